import type {
  ActionLateness,
  ActionTiming,
  BoundLateness,
  Frame,
  HarnessLateness,
  Observation,
} from "../model/evidence.ts";
import type { CoreWait } from "./core-wait.ts";
import type { CaseRunOutput } from "./session.ts";

/**
 * Whether the harness was too late for a case to mean anything (pure: frames, the harness's own action timings and
 * the relay's declared deadline in). The verdict contract: timing is judged against the profile's declared deadlines,
 * never against the harness's own lateness.
 *
 * Only the harness's delay in carrying out a scripted action counts (an answer, a decline, an error, a 2026-07-28
 * retry): from when it was due (its question delivered to the answering code, plus the scripted delay) to when it
 * was written, and of that only the time the harness waited for a core (`coreWaitMs`, core-wait.ts: the kernel's
 * run-queue wait). Time the harness spent reading and parsing the relay's frames is work, not waiting: a relay that
 * floods the harness cannot make it late.
 *
 * Such lateness matters only where the case's outcome can depend on it: an action scripted inside the deadline
 * (counted from the upstream's request, the earliest the relay's clock can start), whose lateness took at least half
 * the margin the script left before that deadline (the rest carries the answer to the relay, on the same machine);
 * a relay whose last word to the upstream came after the action was due (one that ruled sooner did not wait for it);
 * and an outcome that is not the answer delivered anyway (a single result at the upstream).
 */
export function harnessLateness(input: {
  frames: readonly Frame[];
  actions: readonly ActionTiming[];
  deadlineMs: number;
  /** The case's outcome at the upstream: a single delivered result needed no deadline to be met in time. */
  delivered: boolean;
}): ActionLateness | undefined {
  const { frames, actions, deadlineMs, delivered } = input;
  if (delivered || actions.length === 0) return undefined;
  const exchange = exchangeOf(frames);
  if (!exchange) return undefined;
  const { requestAtMs, outcomeAtMs } = exchange;
  let worst: ActionLateness | undefined;
  for (const a of actions) {
    if (a.scriptedDelayMs >= deadlineMs) continue;
    // Due as the script meant it: the question as early as the harness could have read it, plus the scripted delay;
    // the relay's deadline runs from the upstream's request the action answers.
    const askedMs = a.requestAtMs ?? requestAtMs;
    const dueMs = a.deliveredMs - a.readWaitMs + a.scriptedDelayMs;
    const marginMs = deadlineMs - (dueMs - askedMs);
    // The relay asked so late that the script was already past its deadline: not the harness's doing.
    if (marginMs <= 0) continue;
    // The relay ruled before the action was even due: no lateness of the harness can have changed that.
    if (outcomeAtMs !== undefined && outcomeAtMs < dueMs) continue;
    const lateMs = actionLateMs(a);
    if (lateMs < Math.max(LATE_MIN_MS, marginMs / 2)) continue;
    if (worst && worst.lateMs - worst.marginMs / 2 >= lateMs - marginMs / 2) continue;
    worst = {
      deadlineMs,
      kind: a.kind,
      requestAtMs: round(askedMs),
      deliveredMs: round(a.deliveredMs),
      readWaitMs: round(a.readWaitMs),
      scriptedDelayMs: a.scriptedDelayMs,
      writtenMs: round(a.writtenMs),
      lateMs: round(lateMs),
      marginMs: round(marginMs),
      ...(outcomeAtMs !== undefined ? { outcomeAtMs } : {}),
    };
  }
  return worst;
}

/**
 * The scripted actions of a case as the answering end carried them out, in performance.now() time: when the question
 * reached it, the scripted delay, and when the action was written (session.ts turns these into ActionTimings).
 */
export type ActionLog = Array<{
  kind: ActionTiming["kind"];
  deliveredAt: number;
  scriptedDelayMs: number;
  /** Unset while the action has not left yet (over HTTP: its POST not yet answered when the case ended). */
  writtenAt?: number;
}>;

/**
 * The actions of a case in its own time (ms since its mark), each with the time the harness waited for a core
 * between its due moment and its writing (core-wait.ts).
 */
export function timedActions(
  log: ActionLog,
  epoch: number,
  coreWait: CoreWait,
  requestTimes: readonly number[],
): ActionTiming[] {
  const ms = (t: number) => Math.round((t - epoch) * 10) / 10;
  const tenth = (t: number) => Math.round(t * 10) / 10;
  // An action that has not left yet is timed as leaving now: at least that late.
  const now = performance.now();
  const written = log.map((a) => a.writtenAt ?? now);
  return log.map((a, i) => {
    const writtenAt = written[i]!;
    // The upstream's request this action answers: the latest before its question (a loop's round, a burst's last).
    const requestAtMs = requestTimes.filter((t) => epoch + t <= a.deliveredAt).at(-1);
    // The question cannot have reached the harness before that request, nor before the harness's own earlier action
    // it followed (a tool loop's next round, a review of the answer).
    const after = written.filter((t) => t < a.deliveredAt).reduce((m, t) => Math.max(m, t), -Infinity);
    const from = Math.max(requestAtMs === undefined ? a.deliveredAt : epoch + requestAtMs, after);
    return {
      kind: a.kind,
      ...(requestAtMs !== undefined ? { requestAtMs } : {}),
      deliveredMs: ms(a.deliveredAt),
      scriptedDelayMs: a.scriptedDelayMs,
      writtenMs: ms(writtenAt),
      readWaitMs: tenth(coreWait.waitBetween(from, a.deliveredAt)),
      coreWaitMs: tenth(coreWait.waitBetween(a.deliveredAt + a.scriptedDelayMs, writtenAt)),
    };
  });
}

/** Below this the harness is never late: a timer's own jitter. */
export const LATE_MIN_MS = 50;

/**
 * The action's own lateness: the time it left past its due moment, counting only the harness's wait for a core
 * meanwhile (never its own work, which includes parsing what the relay sent), and the time its question may have
 * waited to be read while the harness had no core (its wait for a core since the upstream asked).
 */
export function actionLateMs(a: ActionTiming): number {
  const pastDue = a.writtenMs - (a.deliveredMs + a.scriptedDelayMs);
  return a.readWaitMs + Math.max(0, Math.min(pastDue, a.coreWaitMs));
}

const round = (ms: number) => Math.round(ms);

type Message = Record<string, any>;
const messageOf = (f: Frame): Message | undefined =>
  f.message && typeof f.message === "object" ? (f.message as Message) : undefined;

/**
 * The upstream's first sampling request (legacy request, or 2026-07-28 input_required result) and the last frame the
 * relay sent the upstream after it (its outcome); undefined when the upstream asked nothing.
 */
/** When the upstream sent each of its sampling requests (legacy requests, 2026-07-28 input_required results). */
export function upstreamRequestTimes(frames: readonly Frame[]): number[] {
  return frames.filter((f) => f.end === "upstream" && f.dir === "to-relay" && asks(f)).map((f) => f.t);
}

function asks(f: Frame): boolean {
  const m = messageOf(f);
  return (
    m?.method === "sampling/createMessage" ||
    (typeof m?.result === "object" && m.result !== null && "inputRequests" in m.result)
  );
}

function exchangeOf(frames: readonly Frame[]): { requestAtMs: number; outcomeAtMs?: number } | undefined {
  let requestAtMs: number | undefined;
  let outcomeAtMs: number | undefined;
  for (const f of frames) {
    if (f.end !== "upstream") continue;
    if (f.dir === "to-relay" && requestAtMs === undefined) {
      if (asks(f)) requestAtMs = f.t;
    } else if (f.dir === "from-relay" && requestAtMs !== undefined) outcomeAtMs = f.t;
  }
  if (requestAtMs === undefined) return undefined;
  return {
    requestAtMs: round(requestAtMs),
    ...(outcomeAtMs !== undefined ? { outcomeAtMs: round(outcomeAtMs) } : {}),
  };
}

/** How the reason of a case that stayed late begins (the summary counts those). */
export const LATE_REASON = "the harness was late";

/**
 * Whether the harness's own wait ran out because the harness itself was late (pure). The upstream waits a bounded
 * time for its answer (the case's time limit, caseTimeoutMs less a margin: the harness's bound, never the relay's
 * declared deadline); a request still unanswered then is a `timeout`, which the checks read as the relay not
 * answering. That is the relay's doing only when the harness was not the one holding the case up: a tool loop of
 * nine rounds, each through the harness's answerer and upstream, runs out of the bound on a loaded machine without
 * any single action being late.
 *
 * The harness counts a timeout as its own lateness when, during the case, it waited for a core (core-wait.ts: time
 * it had work to do and no core, never time spent working or waiting idle for the relay) at least as long as the
 * timed-out request had had when the bound ran out: what the harness lost then accounts for the time the request
 * lacked (given back, the request would have had at least twice its wait). A relay that never answers has had the
 * whole bound, which no wait for a core during the case can reach (the harness then sleeps); one that answers a
 * request late fails the same way on a re-run with longer bounds.
 */
export function boundLateness(input: {
  upstream: Observation["upstream"];
  sequence?: Observation["sequence"];
  /** How long the upstream waited for its answer at most (ms). */
  boundMs: number;
  /** How long the harness waited for a core during the case (ms). */
  coreWaitMs: number;
}): BoundLateness | undefined {
  const { upstream, sequence, boundMs, coreWaitMs } = input;
  const timeouts = [
    ...(sequence ?? []).map((e) => ({ round: e.round + 1, outcome: e.outcome })),
    ...(sequence?.length ? [] : [{ round: undefined, outcome: upstream }]),
  ].filter((t) => t.outcome.kind === "timeout");
  if (timeouts.length === 0) return undefined;
  // The time each cut request had: a timed-out one its wait; one the wait ran out before sending (afterMs 0) the
  // time a round took at the pace of the rounds before it, the least it would have needed.
  const had = timeouts.map((t) => {
    const waitedMs = (t.outcome.kind === "timeout" ? t.outcome.afterMs : undefined) ?? boundMs;
    const before = new Set((sequence ?? []).filter((e) => e.round + 1 < (t.round ?? 0)).map((e) => e.round));
    return {
      round: t.round,
      waitedMs,
      neededMs: waitedMs > 0 ? waitedMs : boundMs / Math.max(1, before.size),
    };
  });
  // The request that had the longest is the one the harness's lateness must account for.
  const longest = had.reduce((a, b) => (b.neededMs > a.neededMs ? b : a));
  if (coreWaitMs < Math.max(LATE_MIN_MS, longest.neededMs)) return undefined;
  return {
    kind: "bound",
    boundMs: round(boundMs),
    ...(longest.round !== undefined ? { round: longest.round } : {}),
    waitedMs: round(longest.waitedMs),
    lateMs: round(coreWaitMs),
    marginMs: round(Math.max(1, longest.neededMs)),
  };
}

/**
 * How late the harness was for one attempt of a case (pure): a scripted action that left too late for the relay's
 * declared deadline (`answerTimeoutMs`, harnessLateness), else its own wait that ran out while it waited for a core
 * (boundLateness). An attempt that is already a harness error is not weighed.
 */
export function caseLateness(
  output: Pick<CaseRunOutput, "observation" | "frames" | "actions" | "harnessError" | "harnessWait">,
  answerTimeoutMs: number,
): HarnessLateness | undefined {
  if (output.harnessError !== undefined) return undefined;
  const { upstream, sequence } = output.observation;
  const late = harnessLateness({
    frames: output.frames,
    actions: output.actions ?? [],
    deadlineMs: answerTimeoutMs,
    delivered: upstream.kind === "result" && sequence === undefined,
  });
  if (late || !output.harnessWait) return late;
  return boundLateness({ upstream, ...(sequence ? { sequence } : {}), ...output.harnessWait });
}

/** The lateness in words, with the measured times: the reason of a case that stayed late. */
export function describeLateness(l: HarnessLateness, attempts: number): string {
  if (l.kind === "bound")
    return (
      `${LATE_REASON} in ${attempts} attempt(s), not the relay: in the last, the harness's own wait for the ` +
      `upstream's answer (its case time limit, ${l.boundMs} ms, not the relay's deadline) ran out ` +
      (l.waitedMs > 0
        ? `while ${l.round !== undefined ? `round ${l.round}'s request` : "its request"} had waited ${l.waitedMs} ms`
        : `before round ${l.round}'s request was sent (at the pace of the rounds before it, ${l.marginMs} ms each)`) +
      `, and during the case the harness waited ${l.lateMs} ms for a core (run-queue wait, not time spent reading ` +
      `the relay's frames): at least the ${l.marginMs} ms that round had. The machine is too loaded to judge this case`
    );
  const outcome =
    l.outcomeAtMs !== undefined ? `; the relay's outcome reached the upstream at ${l.outcomeAtMs} ms` : "";
  return (
    `${LATE_REASON} in ${attempts} attempt(s), not the relay: in the last, its ${l.kind} was scripted ` +
    `${l.scriptedDelayMs} ms after the question reached it (at ${l.deliveredMs} ms, after ${l.readWaitMs} ms the ` +
    `harness waited for a core since the upstream asked at ${l.requestAtMs} ms) and left at ${l.writtenMs} ms: ` +
    `${l.lateMs} ms late in all while the harness waited for a core ` +
    `(run-queue wait, not time spent reading the relay's frames): at least half the ${l.marginMs} ms margin its ` +
    `script left before the relay's ${l.deadlineMs} ms deadline${outcome}. The machine is too loaded to judge this case`
  );
}
