import { caseKey } from "../model/case-key.ts";
import type { HarnessLateness } from "../model/evidence.ts";
import { caseTimeoutMsFor, type TargetProfile } from "../model/target.ts";
import type { CaseInstance } from "./case-instance.ts";
import { processCoreWait } from "./core-wait.ts";
import { debug } from "./debug.ts";
import { type GroupSession, NOT_RETRIED, type Shared } from "./group-session.ts";
import type { HarnessPlan } from "./harness-plan.ts";
import { withCanary } from "./instantiate.ts";
import { type Attempt, rerunScale, rerunWhileLate } from "./late-rerun.ts";
import { caseLateness } from "./lateness.ts";
import { RELAY_LOG_CHARS } from "./relay-process.ts";
import type { WorkItem } from "./scheduler.ts";
import { sequenceFor } from "./sequence.ts";
import { type CaseHooks, type CaseRunOutput, RelaySession, upstreamWaitMs } from "./session.ts";
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
  const { kase } = item;
  const session = await group.acquire(item, shared);
  if (!(session instanceof RelaySession)) {
    if (session.refused) c.notApplicable(session.failure.reason, session.failure.frames);
    else if (session.every) c.notDriven(session.failure, NOT_RETRIED);
    else c.notDriven(session.failure);
    return;
  }
  const inputOf = caseInput(item, c);
  const input = inputOf(c.sequence);
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
    .then((output) => {
      const first = { output, lateness: latenessOf(output, plan.profile) };
      return rerunWhileLate(first, (_rerun, last) => {
        // The group's session is free: the case runs again on a fresh one, apart from its lane.
        hooks.sessionFree();
        return lateRerun(
          plan,
          group,
          item,
          inputOf(sequenceFor(kase, c.canary, plan.maxFrameBytes)),
          shared,
          last,
        );
      });
    })
    .then(c.record)
    .finally(() => clearTimeout(hold));
  // A case that only waits now hands its lane (and in 2026-07-28 its session) on and is recorded when it settles.
  const first = await Promise.race([recorded, handedOn]);
  return first === undefined
    ? undefined
    : { settling: recorded, sessionFree: first === "session", sessionFreed };
}

/** The case's input to a relay session, given its sequence (a re-run gets a sequence of its own: it records its run). */
function caseInput({ kase, era }: WorkItem, c: CaseInstance) {
  const review = kase.review ? withCanary(kase.review, c.canary) : undefined;
  return (sequence: CaseInstance["sequence"]) => ({
    caseKey: caseKey(kase, era),
    params: c.params,
    answer: c.answer,
    canary: c.canary,
    ...(review ? { review } : {}),
    ...(kase.mrtr ? { mrtr: withCanary(kase.mrtr, c.canary) } : {}),
    ...(kase.stream === "standalone" ? { unrelated: true } : {}),
    ...(kase.detached ? { detached: true } : {}),
    ...(kase.requestId !== undefined ? { requestId: kase.requestId } : {}),
    ...(sequence ?? {}),
  });
}

/** How late the harness was for this attempt (lateness.ts, caseLateness), against the relay's declared deadline. */
function latenessOf(output: CaseRunOutput, profile: TargetProfile): HarnessLateness | undefined {
  const late = caseLateness(output, profile.answerTimeoutMs);
  if (late?.kind === "bound")
    debug(`the harness's own wait ran out while it waited ${late.lateMs} ms for a core`);
  else if (late) debug(`an action of the harness left ${late.lateMs} ms late (core wait)`);
  return late;
}

/**
 * The case once more, on a fresh relay session of its group's shape, with the harness's own bounds scaled by the load
 * it measured (rerunScale); re-runs of the run go one at a time. A session that cannot start is a harness error.
 */
async function lateRerun(
  plan: HarnessPlan,
  group: GroupSession,
  item: WorkItem,
  input: Parameters<RelaySession["runCase"]>[0],
  shared: Shared,
  last: Attempt,
): Promise<Attempt> {
  const scale = last.lateness ? rerunScale(last.lateness) : 1;
  const profile = {
    ...plan.profile,
    startupTimeoutMs: Math.round(plan.profile.startupTimeoutMs * scale),
    caseTimeoutMs: Math.round(plan.profile.caseTimeoutMs * scale),
  };
  const turn = (shared.reruns ?? Promise.resolve()).then(async (): Promise<Attempt> => {
    if (plan.signal?.aborted)
      return {
        output: { ...last.output, harnessError: "the run was interrupted before this case ran again" },
        lateness: undefined,
      };
    let session: RelaySession;
    try {
      session = await group.openFresh(item, profile);
    } catch (error) {
      const why = `the relay session to run this case again (the harness was late for it) could not start: ${error instanceof Error ? error.message : String(error)}`;
      return { output: { ...last.output, harnessError: why }, lateness: undefined };
    }
    try {
      const output = await runBounded(session, profile, input, plan.signal);
      return { output, lateness: latenessOf(output, plan.profile) };
    } finally {
      await session.close();
    }
  });
  shared.reruns = turn.catch(() => undefined);
  return turn;
}

/**
 * The harness's own wait in a case (lateness.ts, boundLateness): its upstream's bound, and its wait for a core from the
 * case's start while that bound ran (not after it: a settle or grace afterwards changes nothing the bound decided).
 */
function harnessWaitOf(
  profile: TargetProfile,
  input: Parameters<RelaySession["runCase"]>[0],
  startedAt: number,
  boundEnd: number,
): NonNullable<CaseRunOutput["harnessWait"]> {
  const coreWaitMs = processCoreWait.waitBetween(startedAt, Math.min(performance.now(), boundEnd));
  return {
    boundMs: upstreamWaitMs(caseTimeoutMsFor(profile, input.answer)),
    coreWaitMs: Math.round(coreWaitMs * 10) / 10,
  };
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
  const startedAt = performance.now();
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
    first.harnessWait = harnessWaitOf(profile, input, startedAt, startedAt + bound - CASE_SLACK_MS);
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
