import type { HarnessLateness, LateAttempt } from "../model/evidence.ts";
import { describeLateness } from "./lateness.ts";
import type { CaseRunOutput } from "./session.ts";

/**
 * A case the harness was late for (lateness.ts) runs again, at most this many times, each on a fresh relay session;
 * still late after that, it is an `error` naming the harness's lateness, never a verdict on the relay.
 */
export const MAX_LATE_RERUNS = 2;

/** One attempt of a case: what both ends saw, and how late the harness was for it (undefined: on time). */
export interface Attempt {
  output: CaseRunOutput;
  lateness: HarnessLateness | undefined;
}

/** The attempt that is judged, with the late ones kept beside it. */
export type Judged = CaseRunOutput & { lateAttempts?: LateAttempt[] };

/**
 * Runs `again` while the last attempt was late, at most `max` times, and returns the attempt to judge: the first one
 * the harness was on time for; else the last, as a harness error naming its lateness and measured times. An attempt
 * that is already a harness error is returned as it is.
 */
export async function rerunWhileLate(
  first: Attempt,
  again: (rerun: number, last: Attempt) => Promise<Attempt>,
  max = MAX_LATE_RERUNS,
): Promise<Judged> {
  const late: LateAttempt[] = [];
  let last = first;
  while (last.lateness && last.output.harnessError === undefined) {
    late.push(lateAttemptOf(last.output, last.lateness));
    if (late.length > max) {
      const { output } = last;
      return {
        ...output,
        harnessError: describeLateness(last.lateness, late.length),
        lateAttempts: late,
      };
    }
    last = await again(late.length, last);
  }
  return late.length > 0 ? { ...last.output, lateAttempts: late } : last.output;
}

function lateAttemptOf(output: CaseRunOutput, lateness: HarnessLateness): LateAttempt {
  const durationMs = output.frames.length > 0 ? output.frames[output.frames.length - 1]!.t : undefined;
  return {
    lateness,
    ...(durationMs !== undefined ? { durationMs: Math.round(durationMs) } : {}),
    frames: output.frames,
    observation: output.observation,
  };
}

/**
 * How much more patient the harness is on a re-run (its start-up and case bounds, never the relay's deadline): the
 * load it measured, as the share of the relay's deadline it lost, at least 1.5 and at most 4.
 */
export function rerunScale(lateness: HarnessLateness): number {
  const scale = 1 + lateness.lostMs / lateness.deadlineMs;
  return Math.min(4, Math.max(1.5, Math.round(scale * 10) / 10));
}
