import { caseKey } from "../model/case-key.ts";
import { caseTimeoutMsFor, type TargetProfile } from "../model/target.ts";
import type { CaseInstance } from "./case-instance.ts";
import { type GroupSession, NOT_RETRIED, type Shared } from "./group-session.ts";
import type { HarnessPlan } from "./harness-plan.ts";
import { withCanary } from "./instantiate.ts";
import { RELAY_LOG_CHARS } from "./relay-process.ts";
import type { WorkItem } from "./scheduler.ts";
import { type CaseHooks, type CaseRunOutput, RelaySession } from "./session.ts";
import { CASE_SLACK_MS, LANE_HOLD_MS } from "./waits.ts";

/**
 * The single-session case driver: a case through its group's relay session, bounded in time, handing its lane (and in
 * 2026-07-28 its session) on once it only waits.
 */

/**
 * A case that only waits now, handed on by its lane and recorded when `settling` resolves: with `sessionFree`, its
 * session already takes the next case (2026-07-28 settle); else the session stays its own until then, or until
 * `sessionFreed` resolves (a case whose lane went on at LANE_HOLD_MS may still let its session go later).
 */
export interface Settling {
  settling: Promise<void>;
  sessionFree: boolean;
  sessionFreed: Promise<void>;
}

/**
 * A case through its group's relay session. A relay that could not start without saying anything readable has set
 * the run's `everySession` failure (every later session would fail the same way).
 */
export async function runInSession(
  plan: HarnessPlan,
  group: GroupSession,
  item: WorkItem,
  c: CaseInstance,
  shared: Shared,
): Promise<Settling | undefined> {
  const { kase, era } = item;
  const session = await group.acquire(item, shared);
  if (!(session instanceof RelaySession)) {
    if (session.refused) c.notApplicable(session.failure.reason, session.failure.frames);
    else if (session.every) c.notDriven(session.failure, NOT_RETRIED);
    else c.notDriven(session.failure);
    return;
  }
  const review = kase.review ? withCanary(kase.review, c.canary) : undefined;
  const input = {
    caseKey: caseKey(kase, era),
    params: c.params,
    answer: c.answer,
    canary: c.canary,
    ...(review ? { review } : {}),
    ...(kase.mrtr ? { mrtr: withCanary(kase.mrtr, c.canary) } : {}),
    ...(kase.stream === "standalone" ? { unrelated: true } : {}),
    ...(kase.detached ? { detached: true } : {}),
    ...(kase.requestId !== undefined ? { requestId: kase.requestId } : {}),
    ...(c.sequence ?? {}),
  };
  let handOn!: (how: "session" | "lane") => void;
  const handedOn = new Promise<"session" | "lane">((r) => {
    handOn = r;
  });
  let freeSession!: () => void;
  const sessionFreed = new Promise<void>((r) => {
    freeSession = r;
  });
  const hooks = {
    sessionFree: () => {
      handOn("session");
      freeSession();
    },
    laneFree: () => handOn("lane"),
  };
  // A case still running after LANE_HOLD_MS is waiting: its lane goes on (the first hand-on decides; a later
  // sessionFree still lets the session go through sessionFreed).
  const hold = setTimeout(hooks.laneFree, LANE_HOLD_MS);
  const recorded = runBounded(session, plan.profile, input, plan.signal, hooks)
    .then(c.record)
    .finally(() => clearTimeout(hold));
  // A case that only waits now hands its lane (and in 2026-07-28 its session) on and is recorded when it settles.
  const first = await Promise.race([recorded, handedOn]);
  return first === undefined
    ? undefined
    : { settling: recorded, sessionFree: first === "session", sessionFreed };
}
/**
 * One case with a hard bound: its caseTimeoutMs (caseTimeoutMsFor: longer for an expiry case) + CASE_SLACK_MS (+ startupTimeoutMs while the relay has not yet launched
 * the upstream). A case that exceeds it, or during which the relay sent nothing at either end, means the relay
 * stopped answering: the session is given up (the next case reopens it, once per group).
 */
async function runBounded(
  session: RelaySession,
  profile: TargetProfile,
  input: Parameters<RelaySession["runCase"]>[0],
  signal: AbortSignal | undefined,
  hooks?: CaseHooks,
): Promise<CaseRunOutput> {
  const bound =
    (session.upstreamReady ? 0 : profile.startupTimeoutMs) +
    caseTimeoutMsFor(profile, input.answer) +
    CASE_SLACK_MS;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const mark = session.recorder.mark();
  const giveUp = new Promise<"timeout" | "abort">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), bound);
    onAbort = () => resolve("abort");
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  const running = session.runCase(input, hooks);
  let first: CaseRunOutput | "timeout" | "abort";
  try {
    first = await Promise.race([running, giveUp]);
  } catch (error) {
    session.recorder.release(mark);
    throw error;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
  if (first !== "timeout" && first !== "abort") {
    session.recorder.release(mark);
    const heard = first.frames.some((f) => f.dir === "from-relay" && f.end !== "control");
    const ended = first.observation.upstream.kind === "result" || first.observation.upstream.kind === "error";
    if (!heard && !ended) session.giveUp("the relay sent nothing at either end during a whole case");
    return first;
  }
  const why =
    first === "abort"
      ? `the run was interrupted (${String(signal?.reason ?? "signal")}) during this case`
      : `the relay stopped answering: the case did not end within ${bound} ms`;
  session.giveUp(why);
  // The relay is reaped now; the case's own waits then end at once (its channels close).
  running.catch(() => undefined);
  await session.close();
  const frames = session.recorder.since(mark);
  session.recorder.release(mark);
  return {
    observation: { sent: input.params, asked: [], upstream: { kind: "broken", detail: why } },
    frames,
    negotiated: { upstream: null, downstream: null },
    ...(first === "abort" ? { harnessError: why } : {}),
    ...(session.relayStderr ? { relayLog: session.relayStderr.slice(-RELAY_LOG_CHARS) } : {}),
  } as CaseRunOutput;
}
