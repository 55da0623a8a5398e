import type { Expectation } from "../model/case.ts";
import { ROUNDTRIP_ROW } from "../model/case-key.ts";
import type { CheckId } from "../model/checks.ts";
import type { Check, Frame, Observation, UpstreamOutcome } from "../model/evidence.ts";
import type { Severity } from "../model/register.ts";
import type { CaseStatus } from "../model/results.ts";
import { expirySlackMs } from "../model/target.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";
import { refusalVerdict, validateRequest, validateResult } from "../validator/index.ts";
import type { SamplingCapabilities } from "../validator/types.ts";
import { countedElsewhere, type DeliveredChannel, type RowRef, rowForRule } from "./attribution.ts";
import { bystanderCheck, ownCallChecks } from "./isolation.ts";
import {
  type DiffWords,
  describeDifferences,
  differences,
  firstDifference,
  hasPointer,
  quoteValue,
  scopedDifferences,
  stringsIn,
  valueAt,
  withoutPointers,
} from "./json-diff.ts";
import { hasMeaning, stackedPrefixes } from "./meanings.ts";
import { mrtrRetryChecks } from "./mrtr-wire.ts";
import { responseIdChecks } from "./response-id.ts";
import { reviewChecks } from "./review-shown.ts";
import { requestsSent, type SequenceInput, sequenceChecks } from "./sequence.ts";

/**
 * The one place a case's verdict is decided: from what each end of the relay actually saw, never from
 * what the relay claims.
 */

export interface CaseVerdict {
  status: CaseStatus;
  reason: string;
  checks: Check[];
  /** A skip because the case does not apply to this target (its cell is n/a when nothing else ran). */
  na?: true;
}

export interface JudgeInput {
  expect: Expectation[];
  era: Era;
  severity: Severity;
  observation: Observation;
  /** The case × era canary; requests the answerer saw must carry it when the sent request did. */
  canary: string;
  /** The case's own cell: checks that count toward another row are recorded here but judged there. */
  cell?: RowRef;
  /** The era the answerer spoke, when it differs from the upstream's. */
  downstreamEra?: Era;
  /** The capabilities the answerer declared (requests it received are validated against them). */
  capabilities?: SamplingCapabilities;
  /** The target's declared answer deadline: an expiry reported later than this plus slack fails. */
  answerTimeoutMs?: number;
  /** The wire frames of the case (for timing). */
  frames?: Frame[];
  /** Which row a validator finding counts toward (default: the rule's own row, see attribution.ts). */
  attribute?: (rule: string, channel: DeliveredChannel) => RowRef;
  /** Checks the case names as its rule's evidence: each must have been evaluated (and hold). */
  reliesOn?: readonly CheckId[];
  /** A case that sends several sampling requests: what they are (src/judge/sequence.ts). */
  sequence?: SequenceInput;
  /** The JSON-RPC id the case has the upstream send its sampling request under (src/judge/response-id.ts). */
  requestId?: string | number;
}

/** How much later than its declared deadline a relay may report expiry (defined with the profile's deadlines). */
export { expirySlackMs };

/** A check the judge records: its id is one of the catalogue's (src/model/checks.ts). */
export type JudgeCheck = Check & { id: CheckId };

/** Whether a failed check decides the verdict (must), lowers it to warn (advisory), or is only recorded (info). */
const levelOf = (c: Check) => c.level ?? "must";

const clip = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

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

function describeExpectation(e: Expectation): string {
  const asked =
    "asked" in e && e.asked !== undefined
      ? e.asked
        ? ", after asking the answerer"
        : ", without asking the answerer"
      : "";
  switch (e.outcome) {
    case "delivered":
      return e.unchanged ? "the answer delivered unchanged" : "the answer delivered";
    case "error": {
      const codes =
        e.code === undefined ? "(any code)" : Array.isArray(e.code) ? e.code.join(" or ") : String(e.code);
      const means = e.means ? ` naming ${e.means}` : "";
      return `error ${codes}${means}${asked}`;
    }
    case "withheld":
      return `no response for the input${asked}`;
  }
}

/** Requests shown to anyone on the answering side: the model downstream and, on review targets, the reviewer. */
function timesAsked(o: Observation): number {
  return o.asked.length + (o.reviews ?? []).filter((r) => r.stage === "request").length;
}

/** What the relay changed in the request on its way to the answerer, as a clause (empty when nothing). */
function requestChanged(o: Observation): string {
  if (o.asked.length === 0) return "";
  const d = differences(o.sent, o.asked[0]);
  return d.length ? ` (the relay changed it on the way: ${describeDifferences(d, ASKED)})` : "";
}

/** What the relay changed in the answerer's result on its way to the upstream, as a clause (empty when nothing). */
function resultChanged(o: Observation): string {
  const answered = o.answered as { result?: unknown } | undefined;
  if (o.upstream.kind !== "result" || !answered || !("result" in answered)) return "";
  const d = differences(answered.result, o.upstream.result);
  return d.length ? `, which differs from the answerer's: ${describeDifferences(d)}` : "";
}

const ASKED: DiffWords = { sent: "sent", received: "asked" };

function askedChecks(asked: boolean | undefined, observation: Observation): JudgeCheck[] {
  if (asked === undefined) return [];
  const n = timesAsked(observation);
  return asked
    ? [
        {
          id: "answerer-asked",
          ok: n > 0,
          detail: n > 0 ? `the answerer was asked (${n}×)` : "the answerer was never asked",
        },
      ]
    : [
        {
          id: "answerer-not-asked",
          ok: n === 0,
          detail:
            n === 0
              ? "the answerer was never asked"
              : `the answerer was asked ${n}× about a request that had to be refused first${requestChanged(observation)}`,
        },
      ];
}

/** What the answerer must not have been shown, and what the relay must (not) have declared upstream. */
/** The reviewer's edited request, when it approved one. */
function requestEdit(o: Observation): unknown {
  return (o.reviews ?? []).find(
    (r) => r.stage === "request" && r.decision.action === "approve" && r.decision.params,
  )?.decision.params;
}

function extraChecks(e: Expectation, o: Observation, era: Era, cell?: RowRef): JudgeCheck[] {
  const checks: JudgeCheck[] = [...reviewChecks(e.reviewed ?? [], o, era, requestEdit(o), cell)];
  if (e.modelAsked !== undefined) {
    const n = o.asked.length;
    checks.push({
      id: "model-asked",
      ok: n > 0 === e.modelAsked,
      detail:
        n > 0
          ? `the model downstream was asked (${n}×)${e.modelAsked ? "" : ", though the reviewer had not approved"}`
          : `the model downstream was never asked${e.modelAsked ? ", though it should have been" : ""}`,
    });
  }
  if (e.modelGotEdit) {
    const edit = requestEdit(o);
    const diffs = edit !== undefined && o.asked.length > 0 ? differences(edit, o.asked[0]) : [];
    const ok = edit !== undefined && o.asked.length > 0 && diffs.length === 0;
    checks.push({
      id: "model-got-edit",
      ok,
      detail: ok
        ? "the model was asked with the reviewer's edited request"
        : edit === undefined
          ? "the reviewer made no edit (the case must script one)"
          : o.asked.length === 0
            ? "the model was never asked after the reviewer's edit"
            : `the model was asked with a request other than the reviewer's edit: ${describeDifferences(diffs, { sent: "edited", received: "asked" })}`,
    });
  }
  for (const pointer of e.askedWithout ?? []) {
    const leaked = o.asked.filter((a) => hasPointer(a, pointer)).length;
    checks.push({
      id: "asked-without",
      ok: leaked === 0,
      detail:
        leaked === 0
          ? `the answerer was never shown ${pointer}`
          : `the answerer was shown ${pointer} (${leaked}×), which it must not receive`,
    });
  }
  for (const [pointer, present] of Object.entries(e.declaredUpstream ?? {})) {
    const declared = o.declared !== undefined && hasPointer(o.declared, pointer);
    checks.push({
      id: "declared-upstream",
      ok: declared === present,
      detail:
        o.declared === undefined
          ? `the relay declared no capabilities to the upstream (expected ${pointer} ${present ? "present" : "absent"})`
          : `the relay ${declared ? "declared" : "did not declare"} ${pointer} to the upstream${declared === present ? "" : ` (expected ${present ? "present" : "absent"})`}`,
    });
  }
  return [...checks, ...callErrorChecks(e.callError, o)];
}

/** The relay's own answer to the answerer's probe call: an error with the rule's code and data members. */
function callErrorChecks(expected: Expectation["callError"], o: Observation): JudgeCheck[] {
  if (!expected) return [];
  const response = o.callResponse as { error?: { code?: unknown; data?: unknown } } | undefined;
  const error = response?.error;
  const missing = (expected.dataHas ?? []).filter(
    (p) => error?.data === undefined || !hasPointer(error.data, p),
  );
  const ok = error?.code === expected.code && missing.length === 0;
  const got =
    response === undefined
      ? "no response to its call"
      : error === undefined
        ? "a result, not an error"
        : `error ${String(error.code)}${error.data === undefined ? " without data" : ` with data ${clip(JSON.stringify(error.data))}`}`;
  return [
    {
      id: "call-error",
      ok,
      detail: ok
        ? `the answerer's call was answered with error ${expected.code}, data naming ${(expected.dataHas ?? []).join(", ") || "nothing required"}`
        : `the answerer's call got ${got}; expected error ${expected.code}${missing.length ? ` with ${missing.join(", ")} in its data` : ""}`,
    },
  ];
}

function expectationChecks(
  e: Expectation,
  o: Observation,
  era: Era,
  canary: string,
  cell?: RowRef,
): JudgeCheck[] {
  return [...outcomeChecks(e, o, canary), ...extraChecks(e, o, era, cell)];
}

/**
 * Fidelity counts toward a case only where its rule is about it (`unchanged`); anywhere else a difference is
 * recorded for the reader and judged by sampling-relay-content-unchanged, not by this case's row.
 */
function fidelityCheck(
  e: Extract<Expectation, { outcome: "delivered" }>,
  doc: "request" | "result",
  sent: unknown,
  got: unknown,
  say: { same: string; differs: string },
): JudgeCheck {
  const id = `${doc}-unchanged` as const;
  const inScope = scopedDifferences(e.unchanged ?? [], doc, sent, got);
  if (inScope.length > 0) return { id, ok: false, detail: `${say.differs}: ${describeDifferences(inScope)}` };
  const anywhere = differences(sent, got);
  if (anywhere.length === 0) return { id, ok: true, detail: say.same };
  return {
    id,
    ok: true,
    level: "info",
    detail: `${say.differs} where this case's rule is not about it (fidelity is judged by sampling-relay-content-unchanged): ${describeDifferences(anywhere)}`,
  };
}

type Outcome<K extends Expectation["outcome"]> = Extract<Expectation, { outcome: K }>;

const SHOWN: DiffWords = { sent: "sent", received: "shown" };

/**
 * Identity (`identified`): the document that arrived carries verbatim a string of the one sent that holds the
 * canary, so it is this case's question or this answerer's answer, whatever else the relay changed. A decoy under
 * another token (`<canary>-bystander`), a stand-in result or another case's request carries none of them.
 */
function identifiedCheck(
  doc: "request" | "result",
  sent: unknown,
  got: unknown,
  canary: string,
  say: { is: string; isNot: string },
): JudgeCheck {
  const id = `${doc}-identified` as const;
  const canaried = stringsIn(sent).filter((s) => s.includes(canary));
  if (canaried.length === 0)
    return { id, ok: false, detail: `${say.isNot}: the case's ${doc} holds no text with its canary to tell` };
  const received = new Set(stringsIn(got));
  const match = canaried.find((s) => received.has(s));
  if (match !== undefined)
    return { id, ok: true, detail: `${say.is}: it carries ${quoteValue(match)} as sent` };
  return {
    id,
    ok: false,
    detail: `${say.isNot}: none of its texts with the canary arrived as sent (${describeDifferences(differences(sent, got))})`,
  };
}

/** delivered: the answerer was asked and answered, its result reached the upstream, fidelity where the rule is about it. */
function deliveredChecks(e: Outcome<"delivered">, o: Observation, canary: string): JudgeCheck[] {
  const up = o.upstream;
  const checks: JudgeCheck[] = [];
  checks.push({
    id: "upstream-got-result",
    ok: up.kind === "result",
    detail: `the upstream received ${describeOutcome(up)}`,
  });
  const answered = o.answered as { result?: unknown } | undefined;
  const hasAnswer = answered !== undefined && "result" in answered;
  checks.push({
    id: "answerer-answered",
    ok: hasAnswer,
    detail: hasAnswer
      ? "the answerer was asked and answered with a result"
      : "the answerer never answered with a result",
  });
  if (up.kind === "result" && hasAnswer) {
    checks.push(
      fidelityCheck(e, "result", answered.result, up.result, {
        same: "the result reached the upstream unchanged",
        differs: "the result the upstream received differs from the answerer's",
      }),
    );
    if (e.identified?.includes("result"))
      checks.push(
        identifiedCheck("result", answered.result, up.result, canary, {
          is: "the result the upstream received is the answerer's",
          isNot: "the result the upstream received is not the answerer's",
        }),
      );
  }
  const edit = requestEdit(o);
  checks.push(...reviewRequestChecks(e, o));
  if (o.asked.length > 0) {
    const dropped = droppedPointers(e);
    checks.push(
      fidelityCheck(
        e,
        "request",
        withoutPointers(edit ?? o.sent, dropped),
        withoutPointers(o.asked[0], dropped),
        {
          same: `the ${edit ? "reviewer's edited " : ""}request reached the answerer unchanged`,
          differs: `the request the answerer received differs from ${edit ? "the reviewer's edit" : "the upstream's"}`,
        },
      ),
    );
    if (e.identified?.includes("request"))
      checks.push(
        identifiedCheck("request", edit ?? o.sent, o.asked[0], canary, {
          is: `the request the answerer received is ${edit ? "the reviewer's edit" : "the upstream's"}`,
          isNot: `the request the answerer received is not ${edit ? "the reviewer's edit" : "the upstream's"}`,
        }),
      );
  }
  return [...checks, ...droppedChecks(e, o)];
}

/**
 * The request each review question showed, like the answerer's request: judged where the case's rule is about the
 * request (its `unchanged` pointers); elsewhere a difference is recorded (a review case judges the whole request it
 * showed under review-request).
 */
function reviewRequestChecks(e: Outcome<"delivered">, o: Observation): JudgeCheck[] {
  return (o.reviews ?? [])
    .filter((x) => x.stage === "request")
    .map((r) => {
      const where = "shown" in r.question ? "the broker" : "the review surface";
      const inScope = scopedDifferences(e.unchanged ?? [], "request", o.sent, r.question.request);
      const all = inScope.length > 0 ? inScope : differences(o.sent, r.question.request);
      return {
        id: "review-request-unchanged",
        ok: inScope.length === 0,
        ...(inScope.length === 0 && all.length > 0 ? { level: "info" as const } : {}),
        detail:
          all.length === 0
            ? `${where} showed the request unchanged`
            : `${where} showed a request that differs from the upstream's${inScope.length === 0 ? " where this case's rule is not about it" : ""}: ${describeDifferences(all, SHOWN)}`,
      };
    });
}

/** The request pointers (inside the request document) of the fields a delivered case lets the relay drop or set. */
function droppedPointers(e: Outcome<"delivered">): string[] {
  return Object.keys(e.dropped ?? {}).map((p) => p.slice("/request".length));
}

/** Each field the relay may not pass on as sent reached the answerer absent or as one of the allowed values. */
function droppedChecks(e: Outcome<"delivered">, o: Observation): JudgeCheck[] {
  return Object.entries(e.dropped ?? {}).map(([pointer, allowed]) => {
    const inner = pointer.slice("/request".length);
    const seen = o.asked.map((a) => valueAt(a, inner)).filter((v) => v !== undefined);
    const bad = seen.filter((v) => !allowed.some((ok) => firstDifference(ok, v) === null));
    const may = allowed.length ? ` or ${allowed.map((v) => JSON.stringify(v)).join(" or ")}` : "";
    return {
      id: "dropped-field",
      ok: bad.length === 0,
      detail:
        bad.length === 0
          ? `the answerer received ${pointer} ${seen.length ? `only as ${JSON.stringify(seen[0])}` : "absent"} (sent ${JSON.stringify(valueAt(o.sent, inner))})`
          : `the answerer received ${pointer} as ${JSON.stringify(bad[0])}; it may only receive it absent${may}`,
    };
  });
}

/** error: the upstream got an error with a code the rule assigns; the message only where the rule is about it. */
function errorChecks(e: Outcome<"error">, o: Observation): JudgeCheck[] {
  const up = o.upstream;
  const checks: JudgeCheck[] = [
    {
      id: "upstream-got-error",
      ok: up.kind === "error",
      detail: `the upstream received ${describeOutcome(up)}${resultChanged(o)}`,
    },
  ];
  if (up.kind === "error") {
    if (e.code !== undefined) {
      const codes = Array.isArray(e.code) ? e.code : [e.code];
      const ok = codes.includes(up.error.code as number);
      checks.push({
        id: "error-code",
        ok,
        detail: ok
          ? `error code ${up.error.code} as expected`
          : `error code ${JSON.stringify(up.error.code)}, expected ${codes.join(" or ")}`,
      });
    }
    if (e.means) {
      const ok = hasMeaning(up.error.message, e.means);
      checks.push({
        id: `error-message-means-${e.means}`,
        ok,
        detail: ok
          ? `the message names ${e.means}`
          : `the message ${clip(JSON.stringify(up.error.message))} does not name ${e.means}`,
      });
    }
    if (e.notStacked) {
      const n = stackedPrefixes(up.error.message);
      checks.push({
        id: "error-message-not-stacked",
        ok: n <= 1,
        detail:
          n <= 1
            ? "the message carries no stacked error prefixes"
            : `the message ${clip(JSON.stringify(up.error.message))} stacks ${n} error-code prefixes`,
      });
    }
    if (e.message) {
      // Advisory: the spec fixes codes, not wording; a mismatch can only lower the verdict to warn.
      const matches =
        typeof up.error.message === "string" && new RegExp(e.message, "i").test(up.error.message);
      checks.push({
        id: "error-message",
        ok: matches,
        level: "advisory",
        detail: matches
          ? `the message matches /${e.message}/`
          : `the message ${clip(JSON.stringify(up.error.message))} does not match /${e.message}/ (advisory: wording is not normative)`,
      });
    }
  }
  return [...checks, ...askedChecks(e.asked, o)];
}

function outcomeChecks(e: Expectation, o: Observation, canary: string): JudgeCheck[] {
  switch (e.outcome) {
    case "delivered":
      return deliveredChecks(e, o, canary);
    case "error":
      return errorChecks(e, o);
    case "withheld":
      return [
        {
          id: "upstream-withheld",
          ok: o.upstream.kind === "withheld",
          detail: `the upstream received ${describeOutcome(o.upstream)}${resultChanged(o)}`,
        },
        ...askedChecks(e.asked, o),
      ];
  }
}

function crossTalkCheck(o: Observation, canary: string): JudgeCheck[] {
  if (!JSON.stringify(o.sent).includes(canary) || o.asked.length === 0) return [];
  const foreign = o.asked.filter((a) => !JSON.stringify(a).includes(canary));
  return [
    {
      id: "no-cross-talk",
      ok: foreign.length === 0,
      detail:
        foreign.length === 0
          ? "every request the answerer saw came from this case"
          : "the answerer received a request from another case",
    },
  ];
}

/**
 * One request from the upstream opens at most one question on each side: a relay that drops a refusal and asks
 * again (as mcpx did when its downstream host refused a relayed request) would otherwise pass every denial case.
 */
function askedOnceCheck(o: Observation): JudgeCheck[] {
  const model = o.asked.length;
  const reviewer = (o.reviews ?? []).filter((r) => r.stage === "request").length;
  const sent = requestsSent(o);
  if (model <= sent && reviewer <= sent) return [];
  const what = sent === 1 ? "one request" : `${sent} requests`;
  return [
    {
      id: "asked-once",
      ok: false,
      detail:
        model > sent
          ? `the answerer was asked ${model}× for ${what}`
          : `the review surface asked about ${what} ${reviewer}×`,
    },
  ];
}

/** The id of the sampling request frame the upstream sent, and when; and when its response came back. */
function upstreamRoundTime(frames: Frame[]): number | undefined {
  const sentFrame = frames.find(
    (f) =>
      f.end === "upstream" &&
      f.dir === "to-relay" &&
      (f.message as { method?: unknown } | undefined)?.method === "sampling/createMessage",
  );
  if (!sentFrame) return undefined;
  const id = (sentFrame.message as { id?: unknown }).id;
  const reply = frames.find(
    (f) =>
      f.end === "upstream" &&
      f.dir === "from-relay" &&
      f.t >= sentFrame.t &&
      (f.message as { id?: unknown; method?: unknown } | undefined)?.id === id &&
      (f.message as { method?: unknown }).method === undefined,
  );
  return reply ? reply.t - sentFrame.t : undefined;
}

/** Expiry is a verdict about time too: reported later than the declared deadline plus slack is a failure. */
function expiryTimingCheck(e: Expectation, input: JudgeInput): JudgeCheck[] {
  if (e.outcome !== "error" || e.means !== "expiry" || input.observation.upstream.kind !== "error") return [];
  if (input.answerTimeoutMs === undefined || !input.frames) return [];
  const elapsed = upstreamRoundTime(input.frames);
  if (elapsed === undefined) return [];
  const slack = expirySlackMs(input.answerTimeoutMs);
  const bound = input.answerTimeoutMs + slack;
  // The detail names the declared figures only (the same from one run to the next); what was measured is measuredMs.
  return [
    {
      id: "expiry-in-time",
      ok: elapsed <= bound,
      detail:
        elapsed <= bound
          ? `expiry was reported within the declared deadline of ${input.answerTimeoutMs} ms plus ${slack} ms slack`
          : `expiry was reported later than the declared deadline of ${input.answerTimeoutMs} ms plus ${slack} ms slack`,
      measuredMs: Math.round(elapsed),
    },
  ];
}

const frames = (n: number) => `${n} frame${n === 1 ? "" : "s"}`;

const methodOf = (f: Frame) => (f.message as { method?: unknown } | undefined)?.method;

/**
 * "The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification":
 * from the answerer's wire, no sampling/createMessage reached it before its notifications/initialized.
 */
function initializedChecks(e: Expectation, input: JudgeInput): JudgeCheck[] {
  if (!e.afterInitialized) return [];
  const down = (input.frames ?? []).filter((f) => f.end === "downstream");
  const init = down.findIndex((f) => f.dir === "to-relay" && methodOf(f) === "notifications/initialized");
  const early = down.filter(
    (f, i) => f.dir === "from-relay" && methodOf(f) === "sampling/createMessage" && (init === -1 || i < init),
  );
  // The order of events on the answerer's wire, not their times: the detail is the same from one run to the next.
  const sent =
    init === -1
      ? "(not sent before the case ended)"
      : early.length > 0
        ? `(which came ${frames(init - down.indexOf(early[0]!))} later on the answerer's wire)`
        : "";
  return [
    {
      id: "asked-after-initialized",
      ok: early.length === 0 && init !== -1,
      detail:
        early.length > 0
          ? `the relay sent sampling/createMessage before the answerer's initialized notification ${sent}`
          : init === -1
            ? "the answerer sent no notifications/initialized during the case, so the rule was not exercised"
            : "no sampling request reached the answerer before its initialized notification",
    },
  ];
}

/**
 * The reference validator judges every exchange: each request the answerer received (for the era it spoke and
 * the capabilities it declared) and the result the upstream received (against the request it sent). A finding
 * counts toward the row of the rule it breaks; when that is not this case's cell it is recorded here as info.
 */
function validityChecks(input: JudgeInput): JudgeCheck[] {
  const o = input.observation;
  const attribute = input.attribute ?? ((rule, channel) => rowForRule(rule, channel));
  const checks: JudgeCheck[] = [];
  const push = (channel: DeliveredChannel, what: string, verdict: ReturnType<typeof validateRequest>) => {
    const seen = new Set<string>();
    for (const f of verdict.errors) {
      if (seen.has(f.rule)) continue;
      seen.add(f.rule);
      const counts = attribute(f.rule, channel);
      const own =
        !input.cell ||
        (input.cell.row === counts.row && input.cell.side === counts.side) ||
        input.cell.row === ROUNDTRIP_ROW;
      checks.push({
        id: `valid-${channel}-delivered`,
        ok: false,
        ...(own ? {} : { level: "info" as const }),
        rule: f.rule,
        countsFor: counts,
        detail: `${what} breaks ${f.rule} at ${f.pointer || "/"}: ${f.message}${own ? "" : ` (counted under ${counts.row}, ${counts.side} side)`}`,
      });
    }
  };
  const downEra = input.downstreamEra ?? input.era;
  o.asked.forEach((request, i) => {
    const ctx = input.capabilities ? { era: downEra, capabilities: input.capabilities } : { era: downEra };
    // A request breaking a SHOULD rule a relay must refuse for (REFUSED_SHOULD) counts too, at its row's severity.
    const v = refusalVerdict(validateRequest(request, ctx));
    if (!v.legal) push("request", `request ${i + 1} the answerer received (${downEra})`, v);
  });
  if (o.upstream.kind === "result") {
    const v = validateResult(o.upstream.result, { era: input.era, request: o.sent });
    if (!v.legal) push("result", `the result the upstream received (${input.era})`, v);
  }
  return checks;
}

/** 2026-07-28: the retry's wire rules, judged from the upstream's frames; each counts toward its own row. */
function mrtrChecks(input: JudgeInput): JudgeCheck[] {
  if (!isModernEra(input.era) || !input.frames) return [];
  // Two sessions' calls interleave on the upstream's wire: their retries are judged per call (isolation.ts).
  if (input.observation.bystanders) return [];
  return mrtrRetryChecks(input.frames).map((c) => {
    // Counted toward its own row (the check catalogue's `counts`); not the round trip's business either: that is
    // judged on delivery and validity only.
    const elsewhere = countedElsewhere(c.id, input.cell);
    return { ...c, ...(!elsewhere || c.ok ? {} : { level: "info" as const, countsFor: elsewhere }) };
  });
}

/** A case that names the checks its rule rests on is not judged on a run where they never ran. */
function reliedChecks(input: JudgeInput, computed: JudgeCheck[]): JudgeCheck[] {
  const missing = (input.reliesOn ?? []).filter((id) => !computed.some((c) => c.id === id));
  if (!input.reliesOn?.length) return [];
  return [
    {
      id: "relied-check-ran",
      ok: missing.length === 0,
      detail:
        missing.length === 0
          ? `the checks this case rests on ran: ${input.reliesOn.join(", ")}`
          : `the checks this case rests on never ran on this exchange: ${missing.join(", ")}`,
    },
  ];
}

/**
 * A round trip that failed against a relay that declared no `sampling` capability to the upstream (legacy eras, at
 * initialize): that comes first in its reason, as it is why nothing was relayed — the relay does not carry sampling in
 * this mode. Only the reason: a relay that relays anyway is judged on what it did.
 */
function undeclaredSampling(input: JudgeInput): string {
  const declared = input.observation.declared;
  if (input.cell?.row !== ROUNDTRIP_ROW || isModernEra(input.era) || declared === undefined) return "";
  if (hasPointer(declared, "/sampling")) return "";
  return `the relay declared no sampling capability to the upstream (capabilities ${clip(JSON.stringify(declared))}), so it does not carry sampling in this mode: `;
}

const mustFailures = (checks: Check[]) => checks.filter((c) => !c.ok && levelOf(c) === "must").length;
const advisoryFailures = (checks: Check[]) => checks.filter((c) => !c.ok && levelOf(c) === "advisory").length;

export function judgeCase(input: JudgeInput): CaseVerdict {
  const { observation: o } = input;
  const applicable = input.expect.filter((e) => !e.eras || e.eras.includes(input.era));
  if (applicable.length === 0) {
    return { status: "error", reason: `the case states no expected outcome for ${input.era}`, checks: [] };
  }
  const common = [
    ...crossTalkCheck(o, input.canary),
    ...askedOnceCheck(o),
    ...bystanderCheck(o, input.canary),
    ...ownCallChecks(o, input.canary, input.frames),
    ...validityChecks(input),
    ...mrtrChecks(input),
    ...responseIdChecks(input.frames, input.requestId),
    ...sequenceChecks(input.sequence, o, input.era, input.cell?.side),
  ];
  let best: { checks: Check[]; must: number; advisory: number } | undefined;
  for (const e of applicable) {
    const own = [
      ...expectationChecks(e, o, input.era, input.canary, input.cell),
      ...expiryTimingCheck(e, input),
      ...initializedChecks(e, input),
      ...common,
    ];
    const checks = [...own, ...reliedChecks(input, own)];
    const must = mustFailures(checks);
    const advisory = advisoryFailures(checks);
    if (!best || must < best.must || (must === best.must && advisory < best.advisory))
      best = { checks, must, advisory };
    if (must === 0 && advisory === 0) break;
  }
  const chosen = best!;
  if (chosen.must === 0 && chosen.advisory === 0) {
    return {
      status: "pass",
      reason: `the upstream received ${describeOutcome(o.upstream)}, as expected`,
      checks: chosen.checks,
    };
  }
  const failing = chosen.checks.filter(
    (c) => !c.ok && levelOf(c) === (chosen.must > 0 ? "must" : "advisory"),
  );
  const wrong = failing.map((c) => c.detail);
  const expected = applicable.map(describeExpectation).join(", or ");
  const reason = `${undeclaredSampling(input)}${wrong.join("; ")} — expected ${expected}`;
  const status: CaseStatus = chosen.must > 0 && input.severity === "failure" ? "fail" : "warn";
  return {
    status,
    reason: reason.charAt(0).toUpperCase() + reason.slice(1),
    checks: chosen.checks,
  };
}

/**
 * A relay that never relays sampling must not be credited with refusing bad requests or honouring denials:
 * every case of an era counts only when that era's round-trip prerequisite passed. Without it the case earns no
 * credit, at its row's own severity (`failure`: fail; `warning`, a SHOULD row: warn), never a pass.
 */
export function applyPrerequisite(
  verdict: CaseVerdict,
  prerequisite: { met: boolean; what: string; harness?: boolean },
  severity: Severity = "failure",
): CaseVerdict {
  if (prerequisite.met || verdict.status === "error") return verdict;
  if (prerequisite.harness) {
    return {
      status: "error",
      reason: `Not judged: the harness could not drive the round trip (${prerequisite.what}), and without it this case proves nothing (it would otherwise have been ${verdict.status})`,
      checks: [...verdict.checks, { id: "prerequisite", ok: false, detail: prerequisite.what }],
    };
  }
  const status: CaseStatus = severity === "failure" ? "fail" : "warn";
  if (verdict.status === "fail") return verdict;
  return {
    status,
    reason: `Prerequisite not met: ${prerequisite.what}, so this case proves nothing (it would otherwise have been ${verdict.status})`,
    checks: [...verdict.checks, { id: "prerequisite", ok: false, detail: prerequisite.what }],
  };
}
