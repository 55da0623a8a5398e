import { Command, CommanderError } from "commander";
import { type RegisterCommand, registerCommands } from "./commands.ts";
import { EXIT, InputError } from "./errors.ts";
import { type CliIo, processIo, type SetExit } from "./io.ts";
import { toolInfo } from "./run.ts";

export const TOOL_NAME = "mcpx-conform";

/**
 * The command line as commander declares it: what `main` parses and (with the relay's command, src/main.ts) what
 * docs/cli.md is generated from.
 */
export function createProgram(setExit: SetExit, io: CliIo, registerRelay?: RegisterCommand): Command {
  const program = new Command(TOOL_NAME)
    .description("Conformance harness and matrix generator for MCP sampling relays")
    .version(toolInfo().version, "-V, --version", "print the version")
    .exitOverride()
    // Before the subcommands are declared: they inherit it (help and usage errors go to io too).
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();
  registerCommands(program, setExit, io, registerRelay);
  return program;
}

/**
 * Runs the CLI and returns the process exit code (0 ok, 1 failed cells, 2 bad input, 3 harness failure).
 * `io` (default: the process's streams and folder) is where it prints and what relative paths mean.
 */
export async function main(
  argv: string[],
  io: CliIo = processIo(),
  registerRelay?: RegisterCommand,
): Promise<number> {
  let code: number = EXIT.ok;
  const program = createProgram(
    (c) => {
      code = c;
    },
    io,
    registerRelay,
  );
  try {
    await program.parseAsync(argv, { from: "user" });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof InputError) {
      io.stderr(`${TOOL_NAME}: ${error.oneLine()}\n`);
      return EXIT.usage;
    }
    io.stderr(
      `${TOOL_NAME}: harness failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.harness;
  }
}
