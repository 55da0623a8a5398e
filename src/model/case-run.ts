import type { Era } from "../protocol/eras.ts";
import type { ActionTiming, Frame, LateAttempt, Observation } from "./evidence.ts";
import type { LoadedCase } from "./load.ts";

/**
 * Everything the harness saw for one case × era, ready to be judged. It crosses from the harness (which
 * records it) to the judge (which reads it), so it lives in the model layer that both may import.
 */
export interface CaseRun {
  kase: LoadedCase;
  era: Era;
  canary: string;
  /** The case's expectations with the canary filled in. */
  expect: LoadedCase["expect"];
  /** The client capabilities the answerer declared. */
  capabilities: Record<string, unknown>;
  /** The answer deadline the target profile declared (timing verdicts are judged against it). */
  answerTimeoutMs: number;
  startedAt: string;
  durationMs: number;
  observation: Observation;
  frames: Frame[];
  negotiated: { upstream: string | null; downstream: string | null };
  /** Set when the harness could not drive the case (the relay would not start, …): a harness error, not a verdict. */
  harnessError?: string;
  /**
   * Set when the case was not run because a prerequisite of its era had already failed (the era's round trip): the
   * judge records it as that prerequisite's failure (or error) without the case being run one by one.
   */
  notRun?: string;
  /**
   * Set when the case needs a session shape this relay does not serve (it refused 2026-07-28 clients): the case is
   * n/a against this target, with this reason; nothing else of the run is affected.
   */
  notApplicable?: string;
  relayLog?: string;
  /**
   * Attempts the harness was late for (src/harness/lateness.ts), not judged; the case ran again on a fresh session.
   * When the last attempt was late too, `harnessError` names the lateness and the case is an `error`.
   */
  lateAttempts?: LateAttempt[];
  /** The harness's scripted actions in the judged attempt, timed (src/harness/lateness.ts). */
  actions?: ActionTiming[];
}
