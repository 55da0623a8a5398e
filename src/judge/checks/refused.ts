import type { Expectation } from "../../model/case.ts";
import { hasMeaning, type Meaning, stackedPrefixes } from "../meanings.ts";
import { type CheckContext, check, family } from "./check.ts";
import { clip, describeOutcome, requestChanged, resultChanged, timesAsked } from "./observed.ts";

/**
 * Refusal (`outcome: error`, `outcome: withheld`): the upstream got an error with a code the rule assigns (codes are
 * normative; the message only where the rule is about it) or, in 2026-07-28, no response for the input; and the
 * answerer was (not) asked (`asked:`).
 */

type Refused<K extends "error" | "withheld"> = Extract<Expectation, { outcome: K }>;

const errorOf = (ctx: CheckContext): Refused<"error"> | undefined =>
  ctx.e.outcome === "error" ? ctx.e : undefined;

/** The expected error and the error the upstream got, when it got one. */
function errorPair(ctx: CheckContext) {
  const e = errorOf(ctx);
  const up = ctx.o.upstream;
  return e && up.kind === "error" ? { e, error: up.error } : undefined;
}

/** Whether the case expects the answerer asked (true), never asked (false), or says nothing (undefined). */
const askedOf = (ctx: CheckContext): boolean | undefined =>
  ctx.e.outcome === "delivered" ? undefined : ctx.e.asked;

// Every meaning a case may name (`means:`) has its check here: a new meaning needs an entry of its own.
const MEANS_EXPIRY = "expiry" satisfies Meaning;
type Named = NonNullable<Refused<"error">["means"]>;
export const EVERY_MEANING_CHECKED: Exclude<Named, typeof MEANS_EXPIRY> extends never ? true : never = true;

export const REFUSED = family({
  checks: [
    check({
      id: "upstream-got-error",
      proves: "the upstream received a JSON-RPC error",
      rule: "case expectation: error",
      judge: (ctx) =>
        errorOf(ctx)
          ? [
              {
                ok: ctx.o.upstream.kind === "error",
                detail: `the upstream received ${describeOutcome(ctx.o.upstream)}${resultChanged(ctx.o)}`,
              },
            ]
          : [],
    }),
    check({
      id: "error-code",
      proves: "the error code is one the rule assigns",
      rule: "the case's row (codes are normative)",
      judge: (ctx) => {
        const pair = errorPair(ctx);
        if (pair?.e.code === undefined) return [];
        const codes = Array.isArray(pair.e.code) ? pair.e.code : [pair.e.code];
        const ok = codes.includes(pair.error.code as number);
        return [
          {
            ok,
            detail: ok
              ? `error code ${pair.error.code} as expected`
              : `error code ${JSON.stringify(pair.error.code)}, expected ${codes.join(" or ")}`,
          },
        ];
      },
    }),
    check({
      id: "error-message-means-expiry",
      proves: "the message names expiry, by meaning (src/judge/meanings.ts)",
      rule: "sampling-relay-expiry-reported",
      judge: (ctx) => {
        const pair = errorPair(ctx);
        if (pair?.e.means !== MEANS_EXPIRY) return [];
        const ok = hasMeaning(pair.error.message, MEANS_EXPIRY);
        return [
          {
            ok,
            detail: ok
              ? `the message names ${MEANS_EXPIRY}`
              : `the message ${clip(JSON.stringify(pair.error.message))} does not name ${MEANS_EXPIRY}`,
          },
        ];
      },
    }),
    check({
      id: "error-message-not-stacked",
      proves: "the message carries at most one error-code prefix",
      rule: "sampling-relay-error-not-stacked",
      judge: (ctx) => {
        const pair = errorPair(ctx);
        if (!pair?.e.notStacked) return [];
        const n = stackedPrefixes(pair.error.message);
        return [
          {
            ok: n <= 1,
            detail:
              n <= 1
                ? "the message carries no stacked error prefixes"
                : `the message ${clip(JSON.stringify(pair.error.message))} stacks ${n} error-code prefixes`,
          },
        ];
      },
    }),
    check({
      id: "error-message",
      proves: "the message reads as the case expected (advisory: wording is not normative)",
      rule: "none (advisory)",
      judge: (ctx) => {
        const pair = errorPair(ctx);
        const pattern = pair?.e.message;
        if (!pair || !pattern) return [];
        // Advisory: the spec fixes codes, not wording; a mismatch can only lower the verdict to warn.
        const message = pair.error.message;
        const matches = typeof message === "string" && new RegExp(pattern, "i").test(message);
        return [
          {
            ok: matches,
            level: "advisory",
            detail: matches
              ? `the message matches /${pattern}/`
              : `the message ${clip(JSON.stringify(message))} does not match /${pattern}/ (advisory: wording is not normative)`,
          },
        ];
      },
    }),
    check({
      id: "upstream-withheld",
      proves: "2026-07-28: the upstream got no response for the input",
      rule: "sampling-mrtr-no-per-input-error",
      judge: (ctx) =>
        ctx.e.outcome === "withheld"
          ? [
              {
                ok: ctx.o.upstream.kind === "withheld",
                detail: `the upstream received ${describeOutcome(ctx.o.upstream)}${resultChanged(ctx.o)}`,
              },
            ]
          : [],
    }),
    check({
      id: "answerer-asked",
      proves: "the answerer (or the reviewer) was asked",
      rule: "case expectation: asked",
      judge: (ctx) => {
        if (askedOf(ctx) !== true) return [];
        const n = timesAsked(ctx.o);
        return [
          { ok: n > 0, detail: n > 0 ? `the answerer was asked (${n}×)` : "the answerer was never asked" },
        ];
      },
    }),
    check({
      id: "answerer-not-asked",
      proves: "nobody on the answering side was asked about a request that had to be refused first",
      rule: "sampling-relay-validate-before-asking",
      judge: (ctx) => {
        if (askedOf(ctx) !== false) return [];
        const n = timesAsked(ctx.o);
        return [
          {
            ok: n === 0,
            detail:
              n === 0
                ? "the answerer was never asked"
                : `the answerer was asked ${n}× about a request that had to be refused first${requestChanged(ctx.o)}`,
          },
        ];
      },
    }),
  ],
});
