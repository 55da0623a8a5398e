import type { Command } from "commander";
import { register as registerCompare } from "./compare.ts";
import { register as registerEvidence } from "./evidence.ts";
import { COMMAND_EXAMPLES, exampleHelp } from "./examples.ts";
import { register as registerGate } from "./gate.ts";
import { register as registerInit } from "./init.ts";
import type { CliIo, SetExit } from "./io.ts";
import { register as registerList } from "./list.ts";
import { register as registerMerge } from "./merge.ts";
import { register as registerRender } from "./render.ts";
import { register as registerReplay } from "./replay.ts";
import { register as registerRun } from "./run.ts";
import { register as registerSite } from "./site.ts";
import { register as registerValidate } from "./validate.ts";

/** Declares one command on the program; each subcommand module exports one as `register`. */
export type RegisterCommand = (program: Command, setExit: SetExit, io: CliIo) => void;

/**
 * One line per subcommand module; each module exports `register(program, setExit, io)`.
 * Kept in one list so the CLI surface is visible at a glance. `relay` is the reference relay's own command
 * (src/relay/command.ts), given by the program's entry (src/main.ts): the CLI never imports the relay.
 */
export function registerCommands(
  program: Command,
  setExit: SetExit,
  io: CliIo,
  registerRelay?: RegisterCommand,
): void {
  registerRun(program, setExit, io);
  registerRelay?.(program, setExit, io);
  registerValidate(program, setExit, io);
  registerReplay(program, setExit, io);
  registerList(program, setExit, io);
  registerGate(program, setExit, io);
  registerEvidence(program, setExit, io);
  registerRender(program, setExit, io);
  registerInit(program, setExit, io);
  registerCompare(program, setExit, io);
  registerMerge(program, setExit, io);
  registerSite(program, setExit, io);
  // Every command's help ends with its example (the same one docs/cli.md shows).
  for (const command of program.commands) {
    const example = COMMAND_EXAMPLES[command.name()];
    if (example) command.addHelpText("after", exampleHelp(example));
  }
}
