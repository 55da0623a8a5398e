import type { Case } from "../model/case.ts";
import { compactValue } from "../model/compact.ts";
import type { UpstreamOutcome } from "../model/evidence.ts";
import type { AnswerFor, Ask, Sequence } from "./ends.ts";
import { DEFAULT_MAX_FRAME_BYTES } from "./frames.ts";
import { withCanary } from "./instantiate.ts";
import { DEFAULT_INPUT_KEY } from "./mrtr.ts";

/**
 * Cases that send several sampling requests in one probe call (`sequence:`, `mrtr.keys:`): the requests the upstream
 * sends, round by round, and the result the answerer gives each. Every request gets a token of its own (its
 * `{{canary}}` becomes `<canary>.<tag><n>.`, the trailing dot keeping `.r1.` apart from `.r10.`), and the answer to
 * it carries the same token, so what reached either end is traceable to one request. Tokens are named by the case's
 * canary and the request's place, never by timing: a run is reproducible with its seed.
 */

const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export interface CaseSequence {
  sequence: Sequence;
  answerFor: AnswerFor;
}

const tokenOf = (canary: string, tag: string, n: number) => `${canary}.${tag}${n}.`;

/** The accepted result for a request, by the token it carries (the longest token found wins). */
function byToken(asks: Ask[], result: Record<string, unknown> | undefined): AnswerFor {
  return (params) => {
    if (!result) return undefined;
    const text = JSON.stringify(params);
    const found = asks.filter((a) => text.includes(a.token)).sort((x, y) => y.token.length - x.token.length);
    return found[0] ? withCanary(result, found[0].token) : undefined;
  };
}

/** How many tool_result rounds a request's history holds (a tool loop's request n carries n − 1). */
export function toolRounds(params: unknown): number {
  const messages = isObject(params) && Array.isArray(params.messages) ? params.messages : [];
  return messages.filter(
    (m) =>
      isObject(m) &&
      m.role === "user" &&
      (Array.isArray(m.content) ? m.content : [m.content]).some(
        (b: unknown) => isObject(b) && b.type === "tool_result",
      ),
  ).length;
}

/** The tool loop's next request: the history so far, the model's tool_use answer, and a tool_result for each use. */
function loopStep(prev: Record<string, unknown>, outcome: UpstreamOutcome, n: number, canary: string) {
  if (outcome.kind !== "result" || !isObject(outcome.result)) return undefined;
  const content = outcome.result.content;
  const blocks: unknown[] = Array.isArray(content) ? content : [content];
  const uses = blocks.filter((b): b is Record<string, any> => isObject(b) && b.type === "tool_use");
  if (uses.length === 0) return undefined;
  const messages = Array.isArray(prev.messages) ? prev.messages : [];
  return {
    ...prev,
    messages: [
      ...messages,
      { role: "assistant", content },
      {
        role: "user",
        content: uses.map((u) => ({
          type: "tool_result",
          toolUseId: u.id,
          content: [{ type: "text", text: `tool output ${n} ${canary}` }],
        })),
      },
    ],
  };
}

/**
 * What a burst, a chain of requests or a tool loop keeps of the outcome of each request after the first: the outcome
 * compacted to `maxFrameBytes` (src/model/compact.ts), as its judge reads only the outcome's kind
 * (src/judge/checks/sequence.ts), so a relay that answers 48 requests at once with 10 MiB each costs the harness one of them,
 * not all 48. The first outcome is the probe's, kept whole. An `mrtr.keys` case keeps every outcome whole: its judge
 * finds each key's token in its answer (it has two or three keys).
 */
const compactOutcome =
  (maxFrameBytes: number) =>
  (outcome: UpstreamOutcome): UpstreamOutcome =>
    compactValue(outcome, maxFrameBytes) as UpstreamOutcome;

/** The sequence of a case, or undefined for a case with one request. */
export function sequenceFor(
  kase: Case,
  canary: string,
  maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES,
): CaseSequence | undefined {
  const keptOutcome = compactOutcome(maxFrameBytes);
  const result = kase.answer.action === "accept" ? kase.answer.result : undefined;
  const ask = (key: string, tag: string, n: number, request: Record<string, unknown>): Ask => {
    const token = tokenOf(canary, tag, n);
    return { key, token, params: withCanary(request, token) };
  };
  const record: Sequence["record"] = [];
  const keys = kase.mrtr?.keys;
  if (keys) {
    const first = keys.map((k, i) => ask(k, "k", i + 1, kase.request));
    return { sequence: { first, record }, answerFor: byToken(first, result) };
  }
  const seq = kase.sequence;
  if (!seq) return undefined;
  if (seq.burst) {
    const first = Array.from({ length: seq.burst }, (_, i) =>
      ask(`${DEFAULT_INPUT_KEY}-${i + 1}`, "b", i + 1, kase.request),
    );
    return { sequence: { first, record, keptOutcome }, answerFor: byToken(first, result) };
  }
  if (seq.after) {
    const all = [kase.request, ...seq.after].map((r, i) =>
      ask(`${DEFAULT_INPUT_KEY}-${i + 1}`, "r", i + 1, r),
    );
    const next: Sequence["next"] = (round, answered) =>
      answered[0]?.outcome.kind === "result" && all[round + 1] ? [all[round + 1]!] : undefined;
    return { sequence: { first: [all[0]!], next, record, keptOutcome }, answerFor: byToken(all, result) };
  }
  const rounds = seq.loop!;
  const first = [
    {
      key: `${DEFAULT_INPUT_KEY}-1`,
      token: tokenOf(canary, "r", 1),
      params: withCanary(kase.request, canary),
    },
  ];
  const next: Sequence["next"] = (round, answered) => {
    const done = answered[0];
    if (!done || round + 1 >= rounds) return undefined;
    const params = loopStep(done.ask.params, done.outcome, round + 1, canary);
    const n = round + 2;
    return params
      ? [{ key: `${DEFAULT_INPUT_KEY}-${n}`, token: tokenOf(canary, "r", n), params }]
      : undefined;
  };
  // Round n's request carries n − 1 tool results: its answer is the case's result under round n's token.
  const answerFor: AnswerFor = (params) =>
    result ? withCanary(result, tokenOf(canary, "r", toolRounds(params) + 1)) : undefined;
  return { sequence: { first, next, record, keptOutcome }, answerFor };
}
