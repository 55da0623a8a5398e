/**
 * The mutation table of src/fuzz/mutations.ts: every kind is reported by the reference validator with its rule
 * and code in every era it applies to (and only that rule, where the kind promises no collateral finding);
 * positional kinds strike first, middle and last candidates and shrink towards the first; every content type of
 * an era has a malformed-block kind.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MUTATIONS, type Mutation, mutationKinds, mutationOf } from "../../src/fuzz/mutations.ts";
import { ERAS, type Era, RULES } from "../../src/validator/index.ts";
import { verdictOf } from "../validator/helpers.ts";

const SEED = 20260728;

/** Kinds whose violation drags others along by nature (a role-less message breaks the tool loop it sits in). */
const COLLATERAL = new Set([
  "message-without-role",
  "message-bad-role",
  "wrong-tool-use-id", // its tool_use is left unanswered: message.tool-result-missing
  "tool-result-id-case", // likewise
]);

describe("the mutation table", () => {
  it("lists each kind once, with a rule of the catalogue, and eras it applies to", () => {
    const kinds = MUTATIONS.map((m) => m.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    for (const m of MUTATIONS) {
      expect(RULES[m.rule], m.kind).toBeDefined();
      expect(m.eras.length, m.kind).toBeGreaterThan(0);
      for (const era of ERAS)
        if (!m.eras.includes(era))
          expect(() => mutationOf(era, m.kind), `${m.kind}@${era}`).toThrow(RangeError);
    }
  });

  it.each(ERAS)("%s: every content type of the era has a malformed-block kind", (era) => {
    const kinds = new Set<string>(mutationKinds(era));
    const types: Record<string, string[]> = {
      text: ["text-without-text"],
      image: ["image-without-mime-type", "image-bad-base64"],
      ...(era >= "2025-03-26" ? { audio: ["audio-without-data"] } : {}),
      ...(era >= "2025-11-25"
        ? {
            tool_use: ["tool-use-without-id"],
            tool_result: ["tool-result-without-tool-use-id", "tool-result-id-case"],
          }
        : {}),
    };
    for (const [type, expected] of Object.entries(types))
      for (const k of expected) expect(kinds.has(k), `${type}: ${k}`).toBe(true);
    expect(kinds.has("message-without-role") && kinds.has("message-bad-role")).toBe(true);
  });
});

const cells = MUTATIONS.flatMap((m) => m.eras.map((era) => [m.kind, era] as const));

describe.each(cells)("%s @ %s", (kind, era) => {
  it("is reported with its rule and code", () => {
    const spec = MUTATIONS.find((m) => m.kind === kind)!;
    fc.assert(
      fc.property(mutationOf(era, kind), (m) => {
        expect(m.expectRule).toBe(spec.rule);
        const v = verdictOf(m);
        expect(v.legal).toBe(false);
        const hit = v.errors.find((f) => f.rule === spec.rule);
        expect(hit, JSON.stringify(v.errors)).toBeDefined();
        expect(hit!.code).toBe(m.expectCode);
        expect(v.code).toBe(m.expectCode);
        if (!COLLATERAL.has(kind))
          expect(
            v.errors.filter((f) => f.rule !== spec.rule),
            "no collateral finding",
          ).toEqual([]);
      }),
      { numRuns: 30, seed: SEED },
    );
  });
});

/** Samples of a positional kind that had at least three candidates to choose from. */
function positions(era: Era, kind: (typeof MUTATIONS)[number]["kind"], n: number) {
  const samples = fc.sample(mutationOf(era, kind), { numRuns: n, seed: SEED });
  return samples.map((m) => m.position).filter((p) => p !== undefined);
}

const POSITIONAL = cells.filter(([kind, era]) => {
  const [m] = fc.sample(mutationOf(era, kind), { numRuns: 1, seed: 1 });
  return m!.position !== undefined;
});

describe("positions", () => {
  it("every kind that targets a message or a block records where it struck", () => {
    const kinds = new Set(POSITIONAL.map(([k]) => k));
    for (const k of [
      "message-without-role",
      "message-bad-role",
      "text-without-text",
      "image-without-mime-type",
      "image-bad-base64",
      "audio-without-data",
      "array-content-old-era",
      "drop-tool-result",
      "mix-text-into-tool-result",
      "wrong-tool-use-id",
      "tool-result-id-case",
      "tool-use-without-id",
      "tool-result-without-tool-use-id",
      "result-malformed-block",
    ])
      expect(kinds.has(k as never), k).toBe(true);
  });

  it.each(POSITIONAL)("%s @ %s strikes first, middle and last candidates", (kind, era) => {
    const ps = positions(era, kind, 200);
    expect(ps.length).toBe(200);
    if (ps.every((p) => p.of === 1)) {
      // Before 2025-11-25 a result's content is one block: there is nothing to choose from.
      expect([kind, era < "2025-11-25"]).toEqual(["result-malformed-block", true]);
      return;
    }
    const wide = ps.filter((p) => p.of >= 3);
    expect(wide.length, "enough samples with three or more candidates").toBeGreaterThanOrEqual(20);
    const first = wide.filter((p) => p.index === 0).length;
    const last = wide.filter((p) => p.index === p.of - 1).length;
    const middle = wide.length - first - last;
    for (const [where, count] of Object.entries({ first, middle, last }))
      expect(count / wide.length, `${where}: ${first}/${middle}/${last}`).toBeGreaterThanOrEqual(0.1);
  });

  it("the validator's pointers agree: a bad role strikes messages well past messages[0]", () => {
    const struck = new Set<number>();
    for (const m of fc.sample(mutationOf("2025-11-25", "message-bad-role"), { numRuns: 200, seed: SEED })) {
      const f = verdictOf(m).errors.find((e) => e.rule === "message.role")!;
      struck.add(Number(f.pointer.split("/")[2]));
    }
    expect(Math.max(...struck)).toBeGreaterThanOrEqual(4);
    expect(struck.size).toBeGreaterThanOrEqual(5);
  });

  it.each([
    ["2025-11-25", "tool-result-id-case"],
    ["2025-11-25", "image-bad-base64"],
    ["2024-11-05", "message-without-role"],
    ["2025-06-18", "result-malformed-block"],
  ] as const)("%s %s shrinks towards the first candidate", (era, kind) => {
    // A property that every positional mutation fails: fast-check shrinks to the simplest one.
    const out = fc.check(
      fc.property(mutationOf(era, kind), () => false),
      { seed: SEED, numRuns: 5 },
    );
    expect(out.failed).toBe(true);
    const [m] = out.counterexample as [Mutation];
    expect(m.position?.index).toBe(0);
  });
});
