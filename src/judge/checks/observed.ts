import type { Observation, UpstreamOutcome } from "../../model/evidence.ts";
import { type DiffWords, describeDifferences, differences } from "../json-diff.ts";

/** What an observation shows, in the phrases several families' reasons share. */

export const clip = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** One phrase for what reached the upstream. */
export function describeOutcome(outcome: UpstreamOutcome): string {
  switch (outcome.kind) {
    case "result": {
      const r = outcome.result as Record<string, unknown> | null;
      const model = r && typeof r === "object" ? JSON.stringify(r.model) : "?";
      const role = r && typeof r === "object" ? JSON.stringify(r.role) : "?";
      return `a result (role ${role ?? "missing"}, model ${model ?? "missing"})`;
    }
    case "error":
      return `error ${JSON.stringify(outcome.error.code)} ${clip(JSON.stringify(outcome.error.message))}`;
    case "withheld":
      return `no response for the input (${outcome.detail})`;
    case "timeout":
      // The harness's own fixed deadline, not the time it measured: the reason is the same from one run to the next.
      return outcome.deadlineMs !== undefined
        ? `no answer within the harness's ${outcome.deadlineMs} ms deadline`
        : outcome.afterMs !== undefined
          ? `no answer within ${outcome.afterMs} ms`
          : "no answer within the harness's deadline";
    case "broken":
      return `a broken exchange (${clip(outcome.detail, 240)})`;
  }
}

export const ASKED: DiffWords = { sent: "sent", received: "asked" };
export const SHOWN: DiffWords = { sent: "sent", received: "shown" };

/** Requests shown to anyone on the answering side: the model downstream and, on review targets, the reviewer. */
export function timesAsked(o: Observation): number {
  return o.asked.length + (o.reviews ?? []).filter((r) => r.stage === "request").length;
}

/** What the relay changed in the request on its way to the answerer, as a clause (empty when nothing). */
export function requestChanged(o: Observation): string {
  if (o.asked.length === 0) return "";
  const d = differences(o.sent, o.asked[0]);
  return d.length ? ` (the relay changed it on the way: ${describeDifferences(d, ASKED)})` : "";
}

/** What the relay changed in the answerer's result on its way to the upstream, as a clause (empty when nothing). */
export function resultChanged(o: Observation): string {
  const answered = o.answered as { result?: unknown } | undefined;
  if (o.upstream.kind !== "result" || !answered || !("result" in answered)) return "";
  const d = differences(answered.result, o.upstream.result);
  return d.length ? `, which differs from the answerer's: ${describeDifferences(d)}` : "";
}

/** The reviewer's edited request, when it approved one. */
export function requestEdit(o: Observation): unknown {
  return (o.reviews ?? []).find(
    (r) => r.stage === "request" && r.decision.action === "approve" && r.decision.params,
  )?.decision.params;
}

/** The answerer's answer, when it answered with a result. */
export function answerOf(o: Observation): { result: unknown } | undefined {
  const answered = o.answered as { result?: unknown } | undefined;
  return answered !== undefined && "result" in answered ? (answered as { result: unknown }) : undefined;
}
