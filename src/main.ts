import type { Command } from "commander";
import type { CliIo, SetExit } from "./cli/io.ts";
import { main as cliMain, createProgram as cliProgram } from "./cli/main.ts";
import { register as registerRelay } from "./relay/command.ts";

/**
 * The `mcpx-conform` program: the CLI's commands (src/cli/) and the reference relay's own (`relay`,
 * src/relay/command.ts). Only this entry imports both, so the CLI never imports the relay, and the relay, judged
 * through its profile like any target, never imports the CLI. bin/mcpx-conform.js runs it (and src/relay/main.ts
 * alone for `relay`, the command every relay process of a run starts from).
 */
export function createProgram(setExit: SetExit, io: CliIo): Command {
  return cliProgram(setExit, io, registerRelay);
}

/** Runs the whole program and returns the exit code, as src/cli/main.ts's `main` does. */
export function main(argv: string[], io?: CliIo): Promise<number> {
  return cliMain(argv, io, registerRelay);
}
