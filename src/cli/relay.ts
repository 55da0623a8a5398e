import { type Command, InvalidArgumentError } from "commander";
import type { SetExit } from "./commands.ts";

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number");
  return n;
}

export function register(program: Command, setExit: SetExit): void {
  program
    .command("relay")
    .description("run the reference sampling relay on stdio: relay [options] -- UPSTREAM_COMMAND…")
    .option(
      "--answer-timeout-ms <ms>",
      "how long a sampling question may stay unanswered",
      positiveInt,
      60_000,
    )
    .argument("<upstream...>", "the upstream MCP server command (after --)")
    .action(async (upstream: string[], opts: { answerTimeoutMs: number }) => {
      // Loaded on demand: the relay is a separate program that shares only the validator with the judge.
      const { runRelay } = await import("../relay/relay.ts");
      await runRelay({ upstream, answerTimeoutMs: opts.answerTimeoutMs });
      setExit(0);
    });
}
