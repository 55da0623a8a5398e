import type { Evidence, Frame, Observation, UpstreamOutcome } from "./evidence.ts";
import type { Results } from "./results.ts";

/**
 * Stable output (`run --stable`): results.json and evidence without a wall-clock or measured-time field, so that two
 * runs of the same target, seed and cases write the same bytes (files committed to git change only when a verdict,
 * a message or the relay's output does). What is left out, and nothing else:
 * - results.json: `startedAt`, `finishedAt`, each case's `durationMs`, each fuzz summary's `durationMs`;
 * - evidence: `startedAt`, `durationMs`, each frame's `t` (the frames stay in the order they were seen), a timeout's
 *   measured `afterMs` (its `deadlineMs`, a fixed figure, stays) and each check's `measuredMs`;
 * - in the harness's own words (a case's reason, a cell's note, a fuzz reason, a check's detail): a wall-clock date-time
 *   quoted from what a relay sent (a relay stamping `_meta.timestamp`), whole or cut by the reason's clip, becomes
 *   `<time>` (withoutWallClock). The frames keep the relay's output as it was: they are the evidence.
 * One order is made canonical, as it is a race between concurrent exchanges, not a fact a verdict rests on: within a
 * run of JSON-RPC responses seen back to back (no request or notification between them, at either end: e.g. a burst
 * of concurrent requests answered as each completes, and the relay forwarding each answer as it comes), responses are
 * listed by the rank of the request they answer (orderResponseRuns). And the harness's identical retries of one
 * frame (it re-sends its initialize until a starting relay's port answers: how many times is start-up timing) are
 * kept once (withoutRetries). Every other frame keeps its place.
 * Both files then say `"stable": true`, so a reader knows the times are absent on purpose. The verdicts are judged
 * before any of this is dropped: stable output differs from the usual only in what it records, never in a verdict.
 */

/**
 * An ISO 8601 date-time anywhere ("2026-12-04T07:52:40.123Z"), or one a clip cut short inside a JSON string before its
 * day or after its "T" ("2026-12-…"); a whole date with no time (an era, "2025-11-25…") is not a clock.
 */
const DATE_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g;
const CLIPPED_DATE_TIME = /(?<=")\d{4}-(?:\d{0,2}|\d{2}-\d?|\d{2}-\d{2}T[\d:.]*)(?=…)/g;

/** Text the harness wrote, with the wall-clock date-times it quotes replaced by `<time>` (an era, a date, stays). */
export function withoutWallClock(text: string): string {
  return text.replace(DATE_TIME, "<time>").replace(CLIPPED_DATE_TIME, "<time>");
}

function stableOutcome(outcome: UpstreamOutcome): UpstreamOutcome {
  if (outcome.kind !== "timeout") return outcome;
  const { afterMs: _afterMs, ...rest } = outcome;
  return rest;
}

function stableObservation(o: Observation): Observation {
  return {
    ...o,
    upstream: stableOutcome(o.upstream),
    ...(o.sequence ? { sequence: o.sequence.map((s) => ({ ...s, outcome: stableOutcome(s.outcome) })) } : {}),
    ...(o.bystanders
      ? {
          bystanders: o.bystanders.map((b) =>
            b.upstream ? { ...b, upstream: stableOutcome(b.upstream) } : b,
          ),
        }
      : {}),
  };
}

type Message = { id?: unknown; method?: unknown; result?: unknown; error?: unknown };

const messageOf = (f: Omit<Frame, "t">): Message | undefined =>
  f.message !== null && typeof f.message === "object" && !Array.isArray(f.message)
    ? (f.message as Message)
    : undefined;

const isResponse = (f: Omit<Frame, "t">) => {
  const m = messageOf(f);
  return m !== undefined && m.method === undefined && "id" in m && ("result" in m || "error" in m);
};

/**
 * Back-to-back responses, in a canonical order (see above). A run of responses is cut where the method of the
 * requests they answer changes (a burst's sampling responses, then the tool call's: the order the exchange itself
 * imposes stays); within each part, each response goes by the rank of the request it answers among the requests of
 * that method seen the same way at its end (the 1st, 2nd, … sampling request), then the harness's response before
 * the relay's (an answer the answerer gave before the relay's forward of it), then the downstream end first. A
 * response whose request is not in the transcript is a part of its own, in its place.
 */
export function orderResponseRuns<F extends Omit<Frame, "t">>(frames: F[]): F[] {
  const out = [...frames];
  let i = 0;
  while (i < out.length) {
    const first = isResponse(out[i]!) ? answered(out, i, out[i]!) : undefined;
    let j = i;
    while (
      first &&
      j + 1 < out.length &&
      isResponse(out[j + 1]!) &&
      answered(out, i, out[j + 1]!)?.method === first.method
    )
      j++;
    if (j > i) {
      const dirOrder = (f: F) => (f.dir === "to-relay" ? 0 : 1);
      const endOrder = (f: F) => (f.end === "downstream" ? 0 : 1);
      const part = out.slice(i, j + 1).map((f, n) => ({ f, n, rank: answered(out, i, f)!.rank }));
      part.sort(
        (a, b) =>
          a.rank - b.rank || dirOrder(a.f) - dirOrder(b.f) || endOrder(a.f) - endOrder(b.f) || a.n - b.n,
      );
      out.splice(i, part.length, ...part.map((r) => r.f));
    }
    i = j + 1;
  }
  return out;
}

/**
 * The request a response answers, among those seen before `before` at its end the other way: its method and its rank
 * among the requests of that method seen that way (undefined when it is not in the transcript).
 */
function answered<F extends Omit<Frame, "t">>(frames: F[], before: number, response: F) {
  const id = JSON.stringify(messageOf(response)!.id);
  const requests = frames
    .slice(0, before)
    .filter(
      (r) =>
        r.end === response.end &&
        r.dir !== response.dir &&
        r.session === response.session &&
        typeof messageOf(r)?.method === "string" &&
        messageOf(r)?.id !== undefined,
    );
  for (let k = requests.length - 1; k >= 0; k--) {
    const m = messageOf(requests[k]!)!;
    if (JSON.stringify(m.id) !== id) continue;
    const method = m.method as string;
    const rank = requests.slice(0, k).filter((r) => messageOf(r)!.method === method).length;
    return { method, rank };
  }
  return undefined;
}

/** Consecutive identical frames the harness sent the relay (a retry while the relay starts) are kept once. */
export function withoutRetries<F extends Omit<Frame, "t">>(frames: F[]): F[] {
  return frames.filter(
    (f, i) => i === 0 || f.dir !== "to-relay" || JSON.stringify(f) !== JSON.stringify(frames[i - 1]),
  );
}

/** The evidence transcript without its times. */
export function stableEvidence(evidence: Evidence): Evidence {
  const { startedAt: _startedAt, durationMs: _durationMs, ...rest } = evidence;
  return {
    ...rest,
    stable: true,
    frames: orderResponseRuns(withoutRetries(evidence.frames.map(({ t: _t, ...frame }) => frame))),
    observation: stableObservation(evidence.observation),
    verdict: {
      ...evidence.verdict,
      reason: withoutWallClock(evidence.verdict.reason),
      checks: evidence.verdict.checks.map(({ measuredMs: _measuredMs, ...check }) => ({
        ...check,
        detail: withoutWallClock(check.detail),
      })),
    },
  };
}

/** results.json without its times (nor the re-runs a loaded machine cost: src/harness/lateness.ts). */
export function stableResults(results: Results): Results {
  const { startedAt: _startedAt, finishedAt: _finishedAt, lateReruns: _lateReruns, ...rest } = results;
  return {
    ...rest,
    stable: true,
    cells: results.cells.map((cell) => ({
      ...cell,
      ...(cell.note !== undefined ? { note: withoutWallClock(cell.note) } : {}),
      cases: cell.cases.map(({ durationMs: _durationMs, lateReruns: _late, ...c }) => ({
        ...c,
        reason: withoutWallClock(c.reason),
      })),
    })),
    ...(results.fuzz
      ? {
          fuzz: results.fuzz.map(({ durationMs: _durationMs, ...f }) => ({
            ...f,
            reason: withoutWallClock(f.reason),
          })),
        }
      : {}),
  };
}
