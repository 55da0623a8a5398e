import type { Command } from "commander";
import { register as registerEvidence } from "./evidence.ts";
import { register as registerGate } from "./gate.ts";
import { register as registerList } from "./list.ts";
import { register as registerMerge } from "./merge.ts";
import { register as registerRelay } from "./relay.ts";
import { register as registerRender } from "./render.ts";
import { register as registerReplay } from "./replay.ts";
import { register as registerRun } from "./run.ts";
import { register as registerValidate } from "./validate.ts";

/** Sets the exit code of the running command. */
export type SetExit = (code: number) => void;

/**
 * One line per subcommand module; each module exports `register(program, setExit)`.
 * Kept in one list so the CLI surface is visible at a glance.
 */
export function registerCommands(program: Command, setExit: SetExit): void {
  registerRun(program, setExit);
  registerRelay(program, setExit);
  registerValidate(program, setExit);
  registerReplay(program, setExit);
  registerList(program, setExit);
  registerGate(program, setExit);
  registerEvidence(program, setExit);
  registerRender(program, setExit);
  registerMerge(program, setExit);
}
