import { compactValue } from "../model/compact.ts";
import type { HarnessLateness, LateAttempt } from "../model/evidence.ts";
import { recutFrame } from "../model/evidence-budget.ts";
import { describeLateness } from "./lateness.ts";
import type { CaseRunOutput } from "./session.ts";

/**
 * A case the harness was late for (lateness.ts) runs again, at most this many times, each on a fresh relay session;
 * still late after that, it is an `error` naming the harness's lateness, never a verdict on the relay.
 */
export const MAX_LATE_RERUNS = 2;
/** What a late attempt keeps of its frames: the first and last LATE_FRAMES / 2, each cut to LATE_FRAME_BYTES. */
export const LATE_FRAMES = 16;
export const LATE_FRAME_BYTES = 1024;

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
 * that is already a harness error is returned as it is. Each late attempt is kept small at once (lateAttemptOf).
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
    if (late.length > max)
      return {
        ...last.output,
        harnessError: describeLateness(last.lateness, late.length),
        lateAttempts: late,
      };
    const lateness = last.lateness;
    // Nothing of the late attempt but its summary outlives it (a relay's 10 MiB frames are not held for the re-run).
    last = await again(late.length, { output: withoutFrames(last.output), lateness });
  }
  return late.length > 0 ? { ...last.output, lateAttempts: late } : last.output;
}

const withoutFrames = (output: CaseRunOutput): CaseRunOutput => ({
  ...output,
  frames: [],
  observation: { ...output.observation, asked: [], answered: undefined },
});

/** A late attempt as the evidence keeps it: its lateness, its outcome, the heads of its first and last frames. */
export function lateAttemptOf(output: CaseRunOutput, lateness: HarnessLateness): LateAttempt {
  const { frames } = output;
  const durationMs = frames.length > 0 ? frames[frames.length - 1]!.t : undefined;
  const half = LATE_FRAMES / 2;
  const kept = frames.length > LATE_FRAMES ? [...frames.slice(0, half), ...frames.slice(-half)] : frames;
  return {
    lateness,
    ...(durationMs !== undefined ? { durationMs: Math.round(durationMs) } : {}),
    upstream: compactValue(output.observation.upstream, LATE_FRAME_BYTES),
    frameCount: frames.length,
    frames: kept.map((f) => recutFrame(f, LATE_FRAME_BYTES)),
  };
}

/**
 * How much more patient the harness is on a re-run (its start-up and case bounds, never the relay's deadline): by
 * the share of the margin its lateness took, at least 1.5 and at most 4.
 */
export function rerunScale(lateness: HarnessLateness): number {
  const scale = 1 + lateness.lateMs / Math.max(1, lateness.marginMs);
  return Math.min(4, Math.max(1.5, Math.round(scale * 10) / 10));
}
