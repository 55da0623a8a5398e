/**
 * Property tests over the fast-check arbitraries of src/fuzz: generated legal exchanges are accepted in their
 * era; any single mutation is rejected with the rule it is tagged with (each kind on its own, its positions and
 * its values: test/fuzz/mutations.test.ts, test/fuzz/values.test.ts).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { legalExchange, legalRequest, legalResult, toolLoopRequest } from "../../src/fuzz/arbitraries.ts";
import { mutation } from "../../src/fuzz/mutations.ts";
import {
  ERAS,
  refusalVerdict,
  validateInputRequests,
  validateInputResponses,
  validateRequest,
  validateResult,
} from "../../src/validator/index.ts";
import { verdictOf } from "./helpers.ts";

const SEED = 20251125;
const opts = (numRuns: number) => ({ numRuns, seed: SEED });

describe.each(ERAS)("%s", (era) => {
  it("generated legal exchanges are accepted", () => {
    fc.assert(
      fc.property(legalExchange(era), (ex) => {
        const ctx = ex.capabilities ? { era, capabilities: ex.capabilities } : { era };
        expect(validateRequest(ex.params, ctx).errors).toEqual([]);
        expect(validateResult(ex.result, { era, request: ex.params }).errors).toEqual([]);
      }),
      opts(150),
    );
  });

  it("any mutation of the era is rejected", () => {
    fc.assert(
      fc.property(mutation(era), (m) => {
        expect(verdictOf(m).errors.map((f) => f.rule)).toContain(m.expectRule);
      }),
      opts(60),
    );
  });
});

describe.each(["2025-11-25", "2026-07-28"] as const)("tool loops in %s", (era) => {
  it("loops of up to 12 rounds with tools declared are legal, and so is every answer the model may give", () => {
    fc.assert(
      fc.property(
        toolLoopRequest(era, { minRounds: 1, maxRounds: 12 }).chain((req) =>
          legalResult(era, req.params).map((result) => ({ req, result })),
        ),
        ({ req, result }) => {
          expect(validateRequest(req.params, { era, capabilities: req.capabilities }).errors).toEqual([]);
          expect(validateResult(result, { era, request: req.params }).errors).toEqual([]);
        },
      ),
      opts(60),
    );
  });
});

describe("2026-07-28 input wrappers", () => {
  const era = "2026-07-28" as const;
  it("legal exchanges embedded in inputRequests / inputResponses are legal", () => {
    fc.assert(
      fc.property(
        fc.array(legalExchange(era, { maxRounds: 2 }), { minLength: 1, maxLength: 3 }),
        (exchanges) => {
          const inputRequests = Object.fromEntries(
            exchanges.map((ex, i) => [`s${i}`, { method: "sampling/createMessage", params: ex.params }]),
          );
          const inputResponses = Object.fromEntries(exchanges.map((ex, i) => [`s${i}`, ex.result]));
          expect(validateInputRequests(inputRequests, { era }).errors).toEqual([]);
          expect(validateInputResponses(inputResponses, { era, inputRequests }).errors).toEqual([]);
        },
      ),
      opts(40),
    );
  });
  it("a mutated request inside inputRequests is reported under its key", () => {
    fc.assert(
      fc.property(
        mutation(era).filter((m) => m.target === "request" && m.expectRule !== "request.tools-capability"),
        legalRequest(era),
        (m, ok) => {
          const inputRequests = {
            good: { method: "sampling/createMessage", params: ok.params },
            "bad/key": { method: "sampling/createMessage", params: m.params },
          };
          const v = refusalVerdict(validateInputRequests(inputRequests, { era }));
          const hit = v.errors.find((f) => f.rule === m.expectRule);
          expect(hit?.pointer.startsWith("/bad~1key/params")).toBe(true);
          expect(v.errors.every((f) => f.pointer.startsWith("/bad~1key/"))).toBe(true);
        },
      ),
      opts(40),
    );
  });
});
