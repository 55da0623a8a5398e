import { liveTempDirs, reapAllNow } from "../harness/processes.ts";

/** Exit codes of a run ended by a signal (128 + the signal's number), with partial results written. */
export const SIGNAL_EXIT: Record<"SIGINT" | "SIGTERM", number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Runs `work` so that SIGINT/SIGTERM end it cleanly: the first signal aborts the run (the case running is
 * abandoned and its relay reaped, the rest are recorded as not run, results so far are written); a second
 * signal reaps every process the harness started and exits at once. Returns which signal interrupted, if any.
 */
export async function interruptible<T>(
  work: (signal: AbortSignal) => Promise<T>,
  print: (line: string) => void,
): Promise<{ value: T; interrupted?: "SIGINT" | "SIGTERM" }> {
  const controller = new AbortController();
  let interrupted: "SIGINT" | "SIGTERM" | undefined;
  const handler = (signal: "SIGINT" | "SIGTERM") => {
    if (interrupted) {
      reapAllNow();
      process.exit(SIGNAL_EXIT[signal]);
    }
    interrupted = signal;
    print(`mcpx-conform: ${signal}: stopping; writing the results so far (send it again to quit at once)`);
    controller.abort(signal);
  };
  const onInt = () => handler("SIGINT");
  const onTerm = () => handler("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    const value = await work(controller.signal);
    return interrupted ? { value, interrupted } : { value };
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}

/** With --keep: the temporary folders left in place, for the user to look at. */
export function keptDirsLine(): string | undefined {
  const dirs = liveTempDirs();
  return dirs.length ? `mcpx-conform: kept temporary folders: ${dirs.join(" ")}` : undefined;
}
