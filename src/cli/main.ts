import { Command, CommanderError } from "commander";
import { registerCommands } from "./commands.ts";
import { EXIT, InputError } from "./errors.ts";

export const TOOL_NAME = "mcpx-conform";

/** Runs the CLI and returns the process exit code (0 ok, 1 failed cells, 2 bad input, 3 harness failure). */
export async function main(argv: string[]): Promise<number> {
  const program = new Command(TOOL_NAME)
    .description("Conformance harness and matrix generator for MCP sampling relays")
    .exitOverride()
    .showHelpAfterError();
  let code: number = EXIT.ok;
  registerCommands(program, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv, { from: "user" });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof InputError) {
      process.stderr.write(`${TOOL_NAME}: ${error.oneLine()}\n`);
      return EXIT.usage;
    }
    process.stderr.write(
      `${TOOL_NAME}: harness failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.harness;
  }
}
