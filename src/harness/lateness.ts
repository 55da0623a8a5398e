import type { Answer } from "../model/case.ts";
import type { Frame, HarnessLateness } from "../model/evidence.ts";
import type { Stall } from "./stalls.ts";

/**
 * Whether the harness was too late for a case to mean anything (pure: frames, script, deadline, stalls in). The
 * verdict contract: timing is judged against the profile's declared deadlines, never against the harness's own
 * lateness. A scripted answer leaves `scriptedDelayMs` after its question; it can leave later only by the time the
 * harness could not act (its stalls, stalls.ts) between the upstream's request and the relay's outcome (exchangeOf),
 * or by its own time past the script between reading a question and sending its answer (over HTTP the question is
 * parsed in many small steps no stall shows), with the stalls before and after it. When that delay plus the
 * scripted one exceeds the relay's deadline, the answer may have left after the deadline measured from when the
 * relay asked, while the script meant it to leave before: the case is not judged (the driver runs it again).
 * Answers scripted at or after the deadline, and answers that never come (expiry cases), are late on purpose.
 */
export function harnessLateness(input: {
  frames: Frame[];
  answer: Answer;
  deadlineMs: number;
  stalls: readonly Stall[];
  /**
   * Set when the exchange broke before the upstream asked anything (the harness's own call failed, e.g. its HTTP
   * request to the relay): the case's end. Its whole span is the exchange then: a harness that could not act for
   * longer than the deadline meanwhile may itself have made the call fail.
   */
  brokenEndMs?: number;
}): HarnessLateness | undefined {
  const { frames, answer, deadlineMs, stalls, brokenEndMs } = input;
  if (answer.action === "expire") return expiryLateness(frames, deadlineMs, stalls);
  const scriptedDelayMs = scriptedDelay(answer);
  if (scriptedDelayMs === undefined || scriptedDelayMs >= deadlineMs) return undefined;
  const exchange =
    exchangeOf(frames) ?? (brokenEndMs !== undefined ? { fromMs: 0, toMs: brokenEndMs } : undefined);
  if (!exchange) return undefined;
  const { fromMs, toMs } = exchange;
  // Each answer's own delay: the stalls before its question was read, its time past the script after that (its
  // question parsed, its timer run late, all the harness's), and the stalls until the relay's outcome.
  let lostMs = lostBetween(stalls, fromMs, toMs);
  for (const [askedMs, leftMs] of "answers" in exchange ? exchange.answers : [])
    lostMs = Math.max(
      lostMs,
      Math.round(
        lostBetween(stalls, fromMs, askedMs) +
          Math.max(0, leftMs - askedMs - scriptedDelayMs) +
          lostBetween(stalls, leftMs, toMs),
      ),
    );
  if (scriptedDelayMs + lostMs <= deadlineMs) return undefined;
  return {
    deadlineMs,
    scriptedDelayMs,
    requestAtMs: fromMs,
    untilMs: toMs,
    lostMs,
    ...("turnaroundMs" in exchange && exchange.turnaroundMs !== undefined
      ? { turnaroundMs: exchange.turnaroundMs }
      : {}),
  };
}

/** The time the harness could not act between `fromMs` and `toMs`. */
function lostBetween(stalls: readonly Stall[], fromMs: number, toMs: number): number {
  let lost = 0;
  for (const [start, end] of stalls) lost += Math.max(0, Math.min(end, toMs) - Math.max(start, fromMs));
  return Math.round(lost);
}

/**
 * The slack the judge allows an expiry report past the declared deadline (expirySlackMs in src/judge/case.ts; the
 * harness may not import the judge, test/harness/lateness.test.ts holds the two equal).
 */
export const expiryReportSlackMs = (deadlineMs: number): number => Math.max(1000, Math.round(deadlineMs / 2));

/**
 * An expiry case (the answer never comes): the harness times the relay's expiry report from its request to its reply
 * at the upstream. A stalled harness reads the reply late: when the report looks later than the judge's bound only by
 * the time the harness could not act, the timing is the harness's, not the relay's, and the case is not judged. A
 * relay that reports late on an idle harness (late-expiry) is judged.
 */
function expiryLateness(
  frames: Frame[],
  deadlineMs: number,
  stalls: readonly Stall[],
): HarnessLateness | undefined {
  const sent = frames.find(
    (f) => f.end === "upstream" && f.dir === "to-relay" && messageOf(f)?.method === "sampling/createMessage",
  );
  const id = sent && messageOf(sent)?.id;
  if (!sent || id === undefined) return undefined;
  const reply = frames.find(
    (f) =>
      f.end === "upstream" &&
      f.dir === "from-relay" &&
      messageOf(f)?.id === id &&
      messageOf(f)?.method === undefined,
  );
  if (!reply) return undefined;
  const bound = deadlineMs + expiryReportSlackMs(deadlineMs);
  const elapsed = reply.t - sent.t;
  const lostMs = lostBetween(stalls, sent.t, reply.t);
  if (elapsed <= bound || elapsed - lostMs > bound) return undefined;
  return { deadlineMs, scriptedDelayMs: bound, requestAtMs: sent.t, untilMs: reply.t, lostMs, expiry: true };
}

/** How the reason of a case that stayed late begins (the summary counts those). */
export const LATE_REASON = "the harness was late";

/** The lateness in words, with the measured times: the reason of a case that stayed late. */
export function describeLateness(l: HarnessLateness, attempts: number): string {
  if (l.expiry)
    return (
      `${LATE_REASON} in ${attempts} attempt(s), not the relay: in the last, the relay's expiry report reached it ` +
      `${Math.round(l.untilMs - l.requestAtMs)} ms after the upstream's request, past the bound of ${l.scriptedDelayMs} ms ` +
      `(the deadline of ${l.deadlineMs} ms plus slack) only by the ${l.lostMs} ms it could not act meanwhile: ` +
      "the machine is too loaded to judge this case"
    );
  const turnaround =
    l.turnaroundMs !== undefined
      ? `; its slowest answer left ${l.turnaroundMs} ms after its question arrived`
      : "";
  return (
    `${LATE_REASON} in ${attempts} attempt(s), not the relay: in the last, it was ${l.lostMs} ms late on its script ` +
    `between the upstream's request (at ${l.requestAtMs} ms) and the relay's outcome (at ${l.untilMs} ms)${turnaround}; ` +
    `its answer was scripted ${l.scriptedDelayMs} ms after the question and the relay's deadline is ${l.deadlineMs} ms ` +
    `(${l.scriptedDelayMs} + ${l.lostMs} > ${l.deadlineMs}): the machine is too loaded to judge this case`
  );
}

/** How long after its question the script sends the answer; undefined when it never does (expiry). */
function scriptedDelay(answer: Answer): number | undefined {
  switch (answer.action) {
    case "accept":
      return answer.delayMs ?? 0;
    case "decline":
    case "error":
      return 0;
    default:
      return undefined;
  }
}

type Message = Record<string, any>;
const messageOf = (f: Frame): Message | undefined =>
  f.message && typeof f.message === "object" ? (f.message as Message) : undefined;

/** A question the relay put to the harness's answering end (legacy request, or 2026-07-28 input_required). */
function isQuestion(f: Frame, m: Message): boolean {
  if (f.end !== "downstream" || f.dir !== "from-relay") return false;
  return m.method === "sampling/createMessage" || hasInputRequests(m.result);
}

const hasInputRequests = (result: unknown): boolean =>
  typeof result === "object" && result !== null && "inputRequests" in result;

const idKey = (f: Frame, id: unknown) => `${f.session ?? ""} ${JSON.stringify(id)}`;

/**
 * The case's exchange as the harness timed it: from the upstream's first sampling request (the relay cannot have
 * asked before it) to the later of the last answer the harness sent and the last frame the relay sent the upstream
 * (its verdict: until the harness has read it, a stall of the harness may still have held its answer back, as an
 * HTTP answer leaves over several turns of the event loop); undefined when the upstream asked nothing.
 */
function exchangeOf(
  frames: Frame[],
): { fromMs: number; toMs: number; turnaroundMs?: number; answers: Array<[number, number]> } | undefined {
  const answers: Array<[number, number]> = [];
  let fromMs: number | undefined;
  let toMs: number | undefined;
  let turnaroundMs: number | undefined;
  const askedAt = new Map<string, number>();
  let lastRound: number | undefined;
  const until = (t: number) => {
    toMs = Math.max(toMs ?? t, t);
  };
  for (const f of frames) {
    const m = messageOf(f);
    if (!m) continue;
    if (f.end === "upstream" && f.dir === "to-relay") {
      if (m.method === "sampling/createMessage" || hasInputRequests(m.result)) fromMs ??= f.t;
    } else if (f.end === "upstream" && f.dir === "from-relay") {
      if (fromMs !== undefined) until(f.t);
    } else if (isQuestion(f, m)) {
      if (m.method !== undefined && m.id !== undefined) askedAt.set(idKey(f, m.id), f.t);
      else lastRound = f.t;
    } else if (f.end === "downstream" && f.dir === "to-relay") {
      const asked = m.method === undefined && m.id !== undefined ? askedAt.get(idKey(f, m.id)) : undefined;
      const retry =
        m.method === "tools/call" && m.params?.inputResponses !== undefined ? lastRound : undefined;
      const since = asked ?? retry;
      if (since === undefined) continue;
      until(f.t);
      answers.push([since, f.t]);
      turnaroundMs = Math.max(turnaroundMs ?? 0, Math.round((f.t - since) * 10) / 10);
    }
  }
  if (fromMs === undefined || toMs === undefined) return undefined;
  return { fromMs, toMs, answers, ...(turnaroundMs !== undefined ? { turnaroundMs } : {}) };
}
