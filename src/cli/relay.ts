import { type Command, InvalidArgumentError } from "commander";
import type { SetExit } from "./commands.ts";
import type { CliIo } from "./io.ts";

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number");
  return n;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError("expected a port number (0-65535)");
  return n;
}

interface RelayCliOptions {
  answerTimeoutMs: number;
  review?: boolean;
  reviewPort?: number;
  reviewTimeoutMs?: number;
  maxOpenSampling?: number;
  maxToolRounds?: number;
}

/** The relay speaks MCP on the process's own stdin/stdout: it has no in-process form, so `io` is not used. */
export function register(program: Command, setExit: SetExit, _io: CliIo): void {
  program
    .command("relay")
    .description("run the reference sampling relay on stdio: relay [options] -- UPSTREAM_COMMAND…")
    .option(
      "--answer-timeout-ms <ms>",
      "how long a sampling question may stay unanswered",
      positiveInt,
      60_000,
    )
    .option(
      "--review",
      "put every sampling request and response in front of a person (review surface on loopback)",
    )
    .option(
      "--review-port <port>",
      "port of the review surface (default: any free port; implies --review)",
      port,
    )
    .option("--review-timeout-ms <ms>", "how long a reviewed question may stay undecided", positiveInt)
    .option(
      "--max-open-sampling <n>",
      "rate limit: sampling requests of the upstream open at once; the excess is refused without asking (default 16)",
      positiveInt,
    )
    .option(
      "--max-tool-rounds <n>",
      "tool-loop iteration limit: tool rounds one sampling request may carry (default 10)",
      positiveInt,
    )
    .argument("<upstream...>", "the upstream MCP server command (after --)")
    .action(async (upstream: string[], opts: RelayCliOptions) => {
      // Loaded on demand: the relay is a separate program that shares only the validator with the judge.
      const { runRelay } = await import("../relay/relay.ts");
      const reviewPort = opts.reviewPort ?? (opts.review ? 0 : undefined);
      await runRelay({
        upstream,
        answerTimeoutMs: opts.answerTimeoutMs,
        ...(reviewPort !== undefined ? { reviewPort } : {}),
        ...(opts.reviewTimeoutMs !== undefined ? { reviewTimeoutMs: opts.reviewTimeoutMs } : {}),
        limits: {
          ...(opts.maxOpenSampling !== undefined ? { maxPendingSampling: opts.maxOpenSampling } : {}),
          ...(opts.maxToolRounds !== undefined ? { maxToolRounds: opts.maxToolRounds } : {}),
        },
      });
      setExit(0);
    });
}
