import { readFileSync } from "node:fs";

/**
 * Where a command writes and which folder its relative paths mean. The binary uses the process's own
 * (`processIo`); a caller may pass its own to run the CLI in process and capture what it prints (the tests do).
 */
export interface CliIo {
  /** What the command answers with: listings, verdicts, markdown. */
  stdout: (text: string) => void;
  /** Progress, summaries, warnings and errors. */
  stderr: (text: string) => void;
  /** Relative paths in options resolve against this folder, and printed paths are relative to it. */
  cwd: string;
  /** stderr is a terminal: live progress redraws in place (and may colour). */
  isTTY: boolean;
  /** The terminal's width, when known. */
  columns?: number;
  /** Reads all of standard input (a file option given as `-`); none: stdin cannot be read. */
  stdin?: () => string;
}

/** Sets the exit code of the running command (each command module's `register` is given one). */
export type SetExit = (code: number) => void;

export function processIo(): CliIo {
  return {
    stdin: () => readFileSync(0, "utf8"),
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    cwd: process.cwd(),
    isTTY: process.stderr.isTTY === true,
    ...(process.stderr.columns ? { columns: process.stderr.columns } : {}),
  };
}
