import type { LoadedCase } from "../model/load.ts";
import { caseTimeoutMsFor, type TargetProfile } from "../model/target.ts";
import type { Era } from "../protocol/eras.ts";
import { sessionGroup } from "./case-instance.ts";
import { sessionKey } from "./scheduler.ts";
import { CASE_SLACK_MS, KILL_GRACE_MS } from "./waits.ts";

/** A session group gets its relay started at most this many times (the first start and one reopen). */
export const MAX_STARTS_PER_GROUP = 2;

/**
 * At most this many times in a run, a group whose case holds its relay session while it waits (SPLIT_AFTER_MS) moves
 * its remaining cases to a relay session of their own, so they need not queue behind the wait. Bounded, as each
 * split starts a relay (at most MAX_STARTS_PER_GROUP times, as any group).
 */
export const MAX_SPLITS = 6;
/**
 * On top of caseTimeoutMs, what one case may take before the harness gives it up: the session's own waits after
 * the probe call (up to 2 s for the call to end, 0.3 s of settle) plus margin. A case that exceeds it means the
 * relay stopped answering; its session is given up. (Defined with the other waits in waits.ts.)
 */
export { CASE_SLACK_MS };
/** Start-up, judging and writing: the run's fixed cost on top of its cases (a generous figure for slow machines). */
export const RUN_OVERHEAD_MS = 15_000;

/**
 * The longest a run of these cases can take against this profile, in ms (docs/reliability.md states it, "Worst case"):
 *   (sessions + MAX_SPLITS) × 2 × (startupTimeoutMs + KILL_GRACE_MS) + isolation cases × (startupTimeoutMs + KILL_GRACE_MS)
 *   + case runs × (startupTimeoutMs + caseTimeoutMs + CASE_SLACK_MS) + RUN_OVERHEAD_MS
 * (an expiry case's caseTimeoutMs long enough for the relay's declared deadline: caseTimeoutMsFor)
 * where sessions are the session groups and the sessions apart from them (`apart`: chains of waiting cases). Every relay start is
 * bounded by startupTimeoutMs, every stop by the kill grace, every case by caseTimeoutMs plus slack (plus
 * startupTimeoutMs for the one case of a session that waits for the relay to launch the upstream), and a session is
 * started at most twice. Relays that fail early end far sooner: a relay that never starts costs one start; an era
 * whose round trip fails costs its round trip only.
 */
export function worstCaseMs(
  profile: Pick<TargetProfile, "startupTimeoutMs" | "caseTimeoutMs" | "answerTimeoutMs">,
  work: Array<{ kase: LoadedCase; era: Era }>,
  apart: (item: { kase: LoadedCase; era: Era }) => string | undefined = () => undefined,
): number {
  const isolation = work.filter((w) => w.kase.sessions === 2).length;
  const shared = work.filter((w) => w.kase.sessions !== 2);
  const sessions = new Set(shared.map((w) => sessionKey(sessionGroup(w), apart(w)))).size;
  const start = profile.startupTimeoutMs + KILL_GRACE_MS;
  const perCase = (w: { kase: LoadedCase }) =>
    profile.startupTimeoutMs + caseTimeoutMsFor(profile, w.kase.answer) + CASE_SLACK_MS;
  return (
    (sessions + MAX_SPLITS) * MAX_STARTS_PER_GROUP * start +
    isolation * start +
    work.reduce((sum, w) => sum + perCase(w), 0) +
    RUN_OVERHEAD_MS
  );
}
