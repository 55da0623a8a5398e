import type { JsonRpcId } from "../harness/jsonrpc-peer.ts";
import { rowForRule } from "../judge/attribution.ts";
import { describeDifference, differences, withoutPointers } from "../judge/json-diff.ts";
import type { Expectation } from "../model/case.ts";
import type { Observation } from "../model/evidence.ts";
import type { CellSide } from "../model/register.ts";
import { type Era, eraAtLeast, isModernEra } from "../protocol/eras.ts";
import { refusalVerdict, validateRequest, validateResult } from "../validator/index.ts";
import type { SamplingCapabilities } from "../validator/types.ts";

/** A generated exchange: what the upstream sends, and what the answerer answers if asked. */
export interface Exchange {
  params: Record<string, unknown>;
  result: Record<string, unknown>;
  /** The sampling request's JSON-RPC id (legacy eras; 2026-07-28 carries the request in inputRequests, keyed). */
  id?: JsonRpcId;
}

export interface OracleVerdict {
  /** Which register row a disagreement on this exchange belongs to, and on which side. */
  row: string;
  side: CellSide;
  expect: Expectation[];
  /** One sentence: what the reference validator says about the exchange. */
  says: string;
}

/** The row a legal exchange answers to: both documents must pass unchanged. */
export const CONTENT_UNCHANGED_ROW = "sampling-relay-content-unchanged";

/**
 * The differential oracle: what a conforming relay must do with an exchange, decided by the reference
 * validator alone. Illegal request → refused before asking (-32602; 2026-07-28: no response at all);
 * legal request with an illegal result → refused after asking; both legal → delivered unchanged both ways
 * (`unchanged: ["/"]`: the whole request and the whole result, so a saved counterexample judges fidelity too).
 */
export function oracle(exchange: Exchange, era: Era, capabilities: SamplingCapabilities): OracleVerdict {
  const modern = isModernEra(era);
  // A SHOULD rule a relay refuses for (REFUSED_SHOULD) is refused like a MUST rule, and counts toward its own row.
  const request = refusalVerdict(validateRequest(exchange.params, { era, capabilities }));
  if (!request.legal) {
    const f = request.errors[0]!;
    const own = f.level === "SHOULD" ? rowForRule(f.rule, "request").row : undefined;
    return {
      row: own ?? "sampling-both-validate-message-content",
      side: "client",
      expect: modern
        ? [{ outcome: "withheld", asked: false }]
        : [{ outcome: "error", code: request.code ?? -32602, asked: false }],
      says: `the request ${f.level === "SHOULD" ? "must be refused" : "is illegal"} in ${era}: ${f.rule} at ${f.pointer || "/"} (${f.message})`,
    };
  }
  const result = validateResult(exchange.result, { era, request: exchange.params });
  if (!result.legal) {
    const f = result.errors[0]!;
    return {
      row: "sampling-both-validate-message-content",
      side: "server",
      expect: modern
        ? [{ outcome: "withheld", asked: true }]
        : [{ outcome: "error", code: [-32602, -32603], asked: true }],
      says: `the result is illegal for this request in ${era}: ${f.rule} at ${f.pointer || "/"} (${f.message})`,
    };
  }
  const dropped = droppable(exchange.params, era, capabilities);
  return {
    row: CONTENT_UNCHANGED_ROW,
    side: "intermediary",
    expect: [{ outcome: "delivered", unchanged: ["/"], ...(Object.keys(dropped).length ? { dropped } : {}) }],
    says: `request and result are legal in ${era}, so both must pass unchanged${Object.keys(dropped).length ? ` (but for ${Object.keys(dropped).join(", ")}, which the answerer did not declare)` : ""}`,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The fields a relay may drop (or set to "none") because the answerer did not declare what they need: includeContext
 * "thisServer"/"allServers" without sampling.context (2025-11-25 on), task without tasks.requests.sampling.createMessage.
 */
export function droppable(
  params: Record<string, unknown>,
  era: Era,
  capabilities: SamplingCapabilities,
): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  const ic = params.includeContext;
  if ((ic === "thisServer" || ic === "allServers") && eraAtLeast(era, "2025-11-25")) {
    if (!isObject(capabilities.sampling?.context)) out["/request/includeContext"] = ["none"];
  }
  const tasks = isObject(capabilities.tasks) ? capabilities.tasks : {};
  const requests = isObject(tasks.requests) ? tasks.requests : {};
  const sampling = isObject(requests.sampling) ? requests.sampling : {};
  if (params.task !== undefined && !isObject(sampling.createMessage)) out["/request/task"] = [];
  return out;
}

/** Where a delivered document differs from what its sender sent. */
export interface FidelityDifference {
  /** request: what the answerer received against what the upstream sent; result: the other way round. */
  document: "request" | "result";
  /** RFC 6901 pointer of the first difference inside the document ("/" for the whole). */
  pointer: string;
  sent: unknown;
  received: unknown;
}

/**
 * Fidelity of what was delivered, independent of the judge's case scoping: the request the answerer received
 * must deep-equal the one the upstream sent, and the result the upstream received the one the answerer sent.
 * Empty when both arrived unchanged or when nothing was delivered (the accept/refuse decision is judged
 * elsewhere). Only meaningful where the oracle says the exchange is legal.
 */
export function fidelity(o: Observation, dropped: readonly string[] = []): FidelityDifference[] {
  const out: FidelityDifference[] = [];
  if (o.asked.length > 0) {
    // On a review target, a reviewer's edit is what the model must receive (the fuzzer scripts none). Fields the
    // relay may drop for this answerer (request pointers under /request) are not compared.
    const edit = (o.reviews ?? []).find((r) => r.stage === "request" && r.decision.params !== undefined);
    const inner = dropped.map((p) => p.slice("/request".length));
    const sent = withoutPointers(edit ? edit.decision.params : o.sent, inner);
    const asked = withoutPointers(o.asked[0], inner);
    const [d] = differences(sent, asked);
    if (d) out.push({ document: "request", ...d });
  }
  const answered = o.answered as { result?: unknown } | undefined;
  if (o.upstream.kind === "result" && answered && "result" in answered) {
    const [d] = differences(answered.result, o.upstream.result);
    if (d) out.push({ document: "result", ...d });
  }
  return out;
}

/** The value at an RFC 6901 pointer ("/" or "" for the whole document; undefined when absent). */
export function valueAt(doc: unknown, pointer: string): unknown {
  if (pointer === "/" || pointer === "") return doc;
  let cur: unknown = doc;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/**
 * One sentence per difference, with the pointer and both values, e.g. `the result the upstream received differs from
 * the one the answerer sent: /model changed (sent "GPT", received "gpt")`.
 */
export function describeFidelity(d: FidelityDifference): string {
  const what =
    d.document === "request"
      ? "the request the answerer received differs from the one the upstream sent"
      : "the result the upstream received differs from the one the answerer sent";
  return `${what}: ${describeDifference(d)}`;
}
