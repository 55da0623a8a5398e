import { Command, CommanderError } from "commander";
import { register } from "./command.ts";

/** The CLI's exit codes (docs/cli.md), which the relay's own entry shares. */
const EXIT = { ok: 0, usage: 2, harness: 3 } as const;

/**
 * `mcpx-conform relay …` alone: the entry point a relay process starts from (bin/mcpx-conform.js picks it for the
 * `relay` command). It loads the relay and commander only, not the judge, renderers and fuzzer the other commands
 * need, so each of the many relay processes a run starts costs less to launch. Same options and exit codes as the
 * `relay` command of the whole program (src/main.ts).
 */
export async function relayMain(argv: string[]): Promise<number> {
  const program = new Command("mcpx-conform").exitOverride();
  let code: number = EXIT.ok;
  register(program, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv, { from: "user" });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    process.stderr.write(
      `mcpx-conform relay: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.harness;
  }
}
