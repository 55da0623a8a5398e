import type { Expectation } from "../../model/case.ts";
import type { Observation } from "../../model/evidence.ts";
import {
  describeDifferences,
  differences,
  firstDifference,
  quoteValue,
  scopedDifferences,
  stringsIn,
  valueAt,
  withoutPointers,
} from "../json-diff.ts";
import { type CheckContext, check, family, type Outcome } from "./check.ts";
import { answerOf, describeOutcome, requestEdit, SHOWN } from "./observed.ts";

/**
 * Delivery (`outcome: delivered`): the answerer was asked and answered, its result reached the upstream, each
 * document whole where the case's rule is about it (`unchanged:`, fidelity) and as this case's own (`identified:`,
 * identity), and a field the relay may not pass on as sent reached the answerer only as the rule allows (`dropped:`).
 */

type Delivered = Extract<Expectation, { outcome: "delivered" }>;

const deliveredOf = (ctx: CheckContext): Delivered | undefined =>
  ctx.e.outcome === "delivered" ? ctx.e : undefined;

/** The answerer's result and what the upstream received, when both are results. */
function resultPair(o: Observation): { answered: unknown; got: unknown } | undefined {
  const answer = answerOf(o);
  return o.upstream.kind === "result" && answer
    ? { answered: answer.result, got: o.upstream.result }
    : undefined;
}

/**
 * Fidelity counts toward a case only where its rule is about it (`unchanged`); anywhere else a difference is
 * recorded for the reader and judged by sampling-relay-content-unchanged, not by this case's row.
 */
function fidelity(
  e: Delivered,
  doc: "request" | "result",
  sent: unknown,
  got: unknown,
  say: { same: string; differs: string },
): Outcome {
  const inScope = scopedDifferences(e.unchanged ?? [], doc, sent, got);
  if (inScope.length > 0) return { ok: false, detail: `${say.differs}: ${describeDifferences(inScope)}` };
  const anywhere = differences(sent, got);
  if (anywhere.length === 0) return { ok: true, detail: say.same };
  return {
    ok: true,
    level: "info",
    detail: `${say.differs} where this case's rule is not about it (fidelity is judged by sampling-relay-content-unchanged): ${describeDifferences(anywhere)}`,
  };
}

/**
 * Identity (`identified`): the document that arrived carries verbatim a string of the one sent that holds the
 * canary, so it is this case's question or this answerer's answer, whatever else the relay changed. A decoy under
 * another token (`<canary>-bystander`), a stand-in result or another case's request carries none of them.
 */
function identity(
  doc: "request" | "result",
  sent: unknown,
  got: unknown,
  canary: string,
  say: { is: string; isNot: string },
): Outcome {
  const canaried = stringsIn(sent).filter((s) => s.includes(canary));
  if (canaried.length === 0)
    return { ok: false, detail: `${say.isNot}: the case's ${doc} holds no text with its canary to tell` };
  const received = new Set(stringsIn(got));
  const match = canaried.find((s) => received.has(s));
  if (match !== undefined) return { ok: true, detail: `${say.is}: it carries ${quoteValue(match)} as sent` };
  return {
    ok: false,
    detail: `${say.isNot}: none of its texts with the canary arrived as sent (${describeDifferences(differences(sent, got))})`,
  };
}

/** What the answerer was meant to receive: the reviewer's edit when it approved one, else the upstream's request. */
const meant = (o: Observation) => {
  const edit = requestEdit(o);
  return { edit, request: edit ?? o.sent, whose: edit ? "the reviewer's edit" : "the upstream's" };
};

/** The request pointers (inside the request document) of the fields a delivered case lets the relay drop or set. */
function droppedPointers(e: Delivered): string[] {
  return Object.keys(e.dropped ?? {}).map((p) => p.slice("/request".length));
}

const RESULT_UNCHANGED = check({
  id: "result-unchanged",
  proves: "the result reached the upstream deep-equal where the case's rule is about it (unchanged:)",
  rule: "sampling-relay-content-unchanged and the case's own row",
  judge: (ctx) => {
    const e = deliveredOf(ctx);
    const pair = resultPair(ctx.o);
    if (!e || !pair) return [];
    return [
      fidelity(e, "result", pair.answered, pair.got, {
        same: "the result reached the upstream unchanged",
        differs: "the result the upstream received differs from the answerer's",
      }),
    ];
  },
});

const REQUEST_UNCHANGED = check({
  id: "request-unchanged",
  proves: "the request reached the answerer deep-equal where the case's rule is about it (unchanged:)",
  rule: "sampling-relay-content-unchanged and the case's own row",
  judge: (ctx) => {
    const e = deliveredOf(ctx);
    if (!e || ctx.o.asked.length === 0) return [];
    const { edit, request, whose } = meant(ctx.o);
    const dropped = droppedPointers(e);
    return [
      fidelity(e, "request", withoutPointers(request, dropped), withoutPointers(ctx.o.asked[0], dropped), {
        same: `the ${edit ? "reviewer's edited " : ""}request reached the answerer unchanged`,
        differs: `the request the answerer received differs from ${whose}`,
      }),
    ];
  },
});

/** The checks of fidelity where the case's rule is about it (the fuzzer says the same with values of its own). */
export const FIDELITY_CHECKS: readonly string[] = [RESULT_UNCHANGED.id, REQUEST_UNCHANGED.id];

export const DELIVERED = family({
  checks: [
    check({
      id: "upstream-got-result",
      proves: "the upstream received a result for its request",
      rule: "case expectation: delivered",
      judge: (ctx) =>
        deliveredOf(ctx)
          ? [
              {
                ok: ctx.o.upstream.kind === "result",
                detail: `the upstream received ${describeOutcome(ctx.o.upstream)}`,
              },
            ]
          : [],
    }),
    check({
      id: "answerer-answered",
      proves: "the answerer was asked and answered with a result",
      rule: "case expectation: delivered",
      judge: (ctx) => {
        if (!deliveredOf(ctx)) return [];
        const ok = answerOf(ctx.o) !== undefined;
        return [
          {
            ok,
            detail: ok
              ? "the answerer was asked and answered with a result"
              : "the answerer never answered with a result",
          },
        ];
      },
    }),
    RESULT_UNCHANGED,
    check({
      id: "result-identified",
      proves:
        "the result the upstream received is the answerer's: it carries verbatim a text of the answer that holds the case's canary (not a decoy, a stand-in or another session's)",
      rule: "the case's own row (identified:), e.g. sampling-relay-answers-only-the-asker",
      judge: (ctx) => {
        const pair = resultPair(ctx.o);
        if (!deliveredOf(ctx)?.identified?.includes("result") || !pair) return [];
        return [
          identity("result", pair.answered, pair.got, ctx.canary, {
            is: "the result the upstream received is the answerer's",
            isNot: "the result the upstream received is not the answerer's",
          }),
        ];
      },
    }),
    check({
      id: "review-request-unchanged",
      proves: "the review surface showed the request the upstream sent",
      rule: "sampling-app-review-ui",
      // Like the answerer's request: judged where the case's rule is about the request (its `unchanged` pointers);
      // elsewhere a difference is recorded (a review case judges the whole request it showed under review-request).
      judge: (ctx) => {
        const e = deliveredOf(ctx);
        if (!e) return [];
        const o = ctx.o;
        return (o.reviews ?? [])
          .filter((x) => x.stage === "request")
          .map((r) => {
            const where = "shown" in r.question ? "the broker" : "the review surface";
            const inScope = scopedDifferences(e.unchanged ?? [], "request", o.sent, r.question.request);
            const all = inScope.length > 0 ? inScope : differences(o.sent, r.question.request);
            return {
              ok: inScope.length === 0,
              ...(inScope.length === 0 && all.length > 0 ? { level: "info" as const } : {}),
              detail:
                all.length === 0
                  ? `${where} showed the request unchanged`
                  : `${where} showed a request that differs from the upstream's${inScope.length === 0 ? " where this case's rule is not about it" : ""}: ${describeDifferences(all, SHOWN)}`,
            };
          });
      },
    }),
    REQUEST_UNCHANGED,
    check({
      id: "request-identified",
      proves:
        "the request the answerer received is this case's: it carries verbatim a text of the sent request that holds the case's canary (identity, whatever else changed)",
      rule: "the case's own row (identified:), e.g. sampling-relay-unrelated-requests",
      judge: (ctx) => {
        if (!deliveredOf(ctx)?.identified?.includes("request") || ctx.o.asked.length === 0) return [];
        const { request, whose } = meant(ctx.o);
        return [
          identity("request", request, ctx.o.asked[0], ctx.canary, {
            is: `the request the answerer received is ${whose}`,
            isNot: `the request the answerer received is not ${whose}`,
          }),
        ];
      },
    }),
    check({
      id: "dropped-field",
      proves:
        "the answerer received a field it did not declare support for only dropped or set to a value the rule allows",
      rule: "the case's row (e.g. sampling-server-includecontext-only-with-context-capability)",
      // Each field the relay may not pass on as sent reached the answerer absent or as one of the allowed values.
      judge: (ctx) =>
        Object.entries(deliveredOf(ctx)?.dropped ?? {}).map(([pointer, allowed]) => {
          const o = ctx.o;
          const inner = pointer.slice("/request".length);
          const seen = o.asked.map((a) => valueAt(a, inner)).filter((v) => v !== undefined);
          const bad = seen.filter((v) => !allowed.some((ok) => firstDifference(ok, v) === null));
          const may = allowed.length ? ` or ${allowed.map((v) => JSON.stringify(v)).join(" or ")}` : "";
          return {
            ok: bad.length === 0,
            detail:
              bad.length === 0
                ? `the answerer received ${pointer} ${seen.length ? `only as ${JSON.stringify(seen[0])}` : "absent"} (sent ${JSON.stringify(valueAt(o.sent, inner))})`
                : `the answerer received ${pointer} as ${JSON.stringify(bad[0])}; it may only receive it absent${may}`,
          };
        }),
    }),
  ],
});
