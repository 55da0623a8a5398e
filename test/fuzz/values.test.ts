/**
 * What the generated values look like (src/fuzz/values.ts, src/fuzz/arbitraries.ts): model strings, tool ids,
 * tool names and text mix letter case, non-ASCII and edge whitespace; `_meta` holds nulls, nested objects and
 * arrays; unknown fields appear at every level; everything is plain JSON.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Json, legalExchange } from "../../src/fuzz/arbitraries.ts";
import { mutation } from "../../src/fuzz/mutations.ts";
import { caseVariant, fancy, jsonObject, UNKNOWN_KEYS } from "../../src/fuzz/values.ts";
import { ERAS } from "../../src/validator/index.ts";

const SEED = 424242;
const N = 300;

const mixedCase = (s: string) => s !== s.toLowerCase() && s !== s.toUpperCase();
const nonAscii = (s: string) => /[^\x20-\x7e]/.test(s.trim());
const edgeSpace = (s: string) => s !== s.trim();

/** Every value at every depth, with the key it sits under. */
function* walk(v: unknown, key = ""): Generator<[string, unknown]> {
  yield [key, v];
  if (Array.isArray(v)) for (const x of v) yield* walk(x, key);
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) yield* walk(x, k);
}

const blocksOf = (content: unknown): Json[] => (Array.isArray(content) ? content : [content]) as Json[];

const exchanges = fc.sample(legalExchange("2025-11-25"), { numRuns: N, seed: SEED });
const messages = exchanges.flatMap((x) => x.params.messages as Json[]);
const blocks = [
  ...messages.flatMap((m) => blocksOf(m.content)),
  ...exchanges.flatMap((x) => blocksOf(x.result.content)),
];
const toolUses = blocks.filter((b) => b.type === "tool_use");
const toolResults = blocks.filter((b) => b.type === "tool_result");

/** Asserts that some of `values` have each of the three traits. */
function expectVariety(what: string, values: string[], share = 0.3) {
  expect(values.length, what).toBeGreaterThan(20);
  expect(values.some(mixedCase), `${what}: mixed case`).toBe(true);
  expect(values.some(nonAscii), `${what}: non-ASCII`).toBe(true);
  expect(values.some(edgeSpace), `${what}: leading/trailing whitespace`).toBe(true);
  // …and each in a fair share, not once in a blue moon.
  expect(values.filter(mixedCase).length / values.length, `${what}: share of mixed case`).toBeGreaterThan(
    share,
  );
}

describe("generated strings", () => {
  it("model strings mix case, non-ASCII and whitespace", () => {
    expectVariety(
      "model",
      exchanges.map((x) => x.result.model as string),
    );
  });
  it("tool ids mix case, non-ASCII and whitespace", () => {
    expectVariety(
      "tool_use id",
      toolUses.map((b) => b.id as string),
    );
  });
  it("tool names mix case, non-ASCII and whitespace", () => {
    const names = exchanges.flatMap((x) => ((x.params.tools ?? []) as Json[]).map((t) => t.name as string));
    expectVariety("tool name", names);
    expect(toolUses.every((u) => names.includes(u.name as string))).toBe(true);
  });
  it("text mixes case, non-ASCII and whitespace", () => {
    expectVariety(
      "text",
      blocks.filter((b) => b.type === "text").map((b) => b.text as string),
      0.15, // prose (lorem) is lower-case
    );
  });
  it("fancy strings cover decomposed accents, emoji and non-Latin scripts", () => {
    const all = fc.sample(fancy, { numRuns: 500, seed: SEED }).join("");
    for (const piece of ["E\u0301", "😀", "ж", "中文"]) expect(all).toContain(piece);
  });
  it("some assistant messages hold two tool_use ids that differ only in letter case", () => {
    const twins = messages.filter((m) => {
      const ids = blocksOf(m.content)
        .filter((b) => b.type === "tool_use")
        .map((b) => b.id as string);
      return new Set(ids.map((i) => i.toLowerCase())).size < ids.length;
    });
    expect(twins.length).toBeGreaterThan(0);
  });
  it("caseVariant changes only letter case and avoids the ids already taken", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { maxLength: 3 }), (others) => {
        const id = "toolu_Ab1";
        const v = caseVariant(id, new Set([id, ...others]))!;
        expect(v).not.toBe(id);
        expect(v.toLowerCase()).toBe(id.toLowerCase());
        expect(others).not.toContain(v);
      }),
      { seed: SEED, numRuns: 100 },
    );
  });
});

describe("_meta and unknown fields", () => {
  it("_meta values include null, nested objects and arrays", () => {
    const metas = [...walk(exchanges)].filter(([k, v]) => k === "_meta" && v && typeof v === "object");
    const inner = metas.flatMap(([, m]) => [...walk(m)].slice(1).map(([, v]) => v));
    expect(inner.some((v) => v === null)).toBe(true);
    expect(inner.some((v) => Array.isArray(v))).toBe(true);
    expect(inner.some((v) => v !== null && typeof v === "object" && !Array.isArray(v))).toBe(true);
    const objects = fc.sample(jsonObject, { numRuns: 200, seed: SEED });
    expect(objects.filter((o) => Object.values(o).includes(null)).length).toBeGreaterThan(10);
  });

  it("unknown fields appear on params, messages, every block type, tool defs and results", () => {
    const hasUnknown = (o: Json) => UNKNOWN_KEYS.some((k) => Object.hasOwn(o, k));
    const some = (what: string, objs: Json[]) => expect(objs.some(hasUnknown), what).toBe(true);
    some(
      "params",
      exchanges.map((x) => x.params),
    );
    some("message", messages);
    for (const type of ["text", "image", "audio", "tool_use", "tool_result"])
      some(
        `${type} block`,
        blocks.filter((b) => b.type === type),
      );
    some(
      "tool",
      exchanges.flatMap((x) => (x.params.tools ?? []) as Json[]),
    );
    some(
      "result",
      exchanges.map((x) => x.result),
    );
    // Unknown fields carry any JSON value, null and nested ones included.
    const values = [...walk(exchanges)].filter(([k]) => (UNKNOWN_KEYS as readonly string[]).includes(k));
    expect(values.some(([, v]) => v === null)).toBe(true);
    expect(values.some(([, v]) => v !== null && typeof v === "object")).toBe(true);
    expect(toolResults.some((r) => r._meta !== undefined)).toBe(true);
  });
});

describe.each(ERAS)("%s: everything generated is plain JSON", (era) => {
  it("legal exchanges and mutations survive JSON.stringify/parse unchanged", () => {
    const noNegativeZero = (v: unknown) => [...walk(v)].every(([, x]) => !Object.is(x, -0));
    fc.assert(
      fc.property(fc.oneof(legalExchange(era), mutation(era)), (x) => {
        const plain = { params: x.params, ...(x.result ? { result: x.result } : {}) };
        expect(JSON.parse(JSON.stringify(plain))).toStrictEqual(plain);
        expect(noNegativeZero(plain)).toBe(true);
        expect(JSON.stringify(plain)).not.toMatch(/__proto__|\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i);
      }),
      { seed: SEED, numRuns: 100 },
    );
  });
});
