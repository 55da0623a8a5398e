/**
 * message.structured-content-schema: a tool_result's structuredContent against the outputSchema of the tool it
 * answers (toolUseId → the tool_use's name → params.tools). SHOULD: a warning in the verdict; `refusalVerdict`
 * (what a relay acts on) counts it as an error with -32602.
 */
import { describe, expect, it } from "vitest";
import {
  type Era,
  REFUSED_SHOULD,
  refusalVerdict,
  validateEmbeddedRequest,
  validateRequest,
} from "../../src/validator/index.ts";
import {
  assistant,
  type Json,
  text,
  toolParams,
  toolResult,
  toolUse,
  user,
  WEATHER_TOOL,
} from "./helpers.ts";

const RULE = "message.structured-content-schema";
const ERAS: Era[] = ["2025-11-25", "2026-07-28"];

const OUTPUT_SCHEMA: Json = {
  type: "object",
  properties: {
    celsius: { type: "number" },
    station: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  },
  required: ["celsius"],
};
const WEATHER: Json = { ...WEATHER_TOOL, outputSchema: OUTPUT_SCHEMA };
const CLOCK: Json = { name: "get_time", inputSchema: { type: "object" } };

const structured = (id: string, sc: unknown): Json => ({ ...toolResult(id), structuredContent: sc });

/** One round: tool_use a (get_weather) answered by `reply`; `tools` declared. */
const oneRound = (reply: unknown, tools: Json[] = [WEATHER]) =>
  toolParams([user(text("q")), assistant([toolUse("a")]), user(reply)], { tools });

const findings = (p: unknown, era: Era) =>
  validateRequest(p, { era }).warnings.filter((f) => f.rule === RULE);

describe.each(ERAS)("%s", (era) => {
  it("passes conforming structuredContent (array content, single-block content, an earlier round)", () => {
    const ok = { celsius: 18, station: { id: "LFPG" } };
    expect(validateRequest(oneRound([structured("a", ok)]), { era })).toMatchObject({
      legal: true,
      warnings: [],
    });
    expect(validateRequest(oneRound(structured("a", { celsius: -3.5 })), { era }).warnings).toEqual([]);
    const twoRounds = toolParams(
      [
        user(text()),
        assistant(toolUse("a")),
        user(structured("a", ok)),
        assistant([toolUse("b", "get_time", {})]),
        user([toolResult("b")]),
      ],
      { tools: [WEATHER, CLOCK] },
    );
    expect(validateRequest(twoRounds, { era })).toMatchObject({ legal: true, warnings: [] });
  });

  it.each([
    [
      "a required property missing",
      {},
      "/messages/2/content/0/structuredContent",
      /required property 'celsius'/,
    ],
    ["a wrong type", { celsius: "18" }, "/messages/2/content/0/structuredContent/celsius", /must be number/],
    [
      "a nested property of the wrong type",
      { celsius: 18, station: { id: 7 } },
      "/messages/2/content/0/structuredContent/station/id",
      /must be string/,
    ],
  ])("warns on %s, at its pointer, and a relay refuses it with -32602", (_, sc, pointer, message) => {
    const p = oneRound([structured("a", sc)]);
    const v = validateRequest(p, { era });
    expect(v.legal).toBe(true);
    expect(v.errors).toEqual([]);
    expect(v.warnings).toHaveLength(1);
    expect(v.warnings[0]).toMatchObject({ rule: RULE, level: "SHOULD", code: null, pointer });
    expect(v.warnings[0]!.message).toMatch(message);
    expect(v.warnings[0]!.message).toContain('"get_weather"');
    const refused = refusalVerdict(v);
    expect(refused).toMatchObject({ legal: false, code: -32602, warnings: [] });
    expect(refused.errors[0]).toMatchObject({ rule: RULE, pointer, code: -32602 });
  });

  it("checks every position: an earlier round, a middle block of array content, a single-block content", () => {
    const p = toolParams(
      [
        user(text()),
        assistant([toolUse("a"), toolUse("b"), toolUse("c")]),
        user([
          structured("a", { celsius: 1 }),
          structured("b", { celsius: "x" }),
          structured("c", { celsius: 3 }),
        ]),
        assistant(toolUse("d")),
        user(structured("d", {})),
        assistant(text("done")),
        user(text("thanks")),
      ],
      { tools: [WEATHER] },
    );
    expect(findings(p, era).map((f) => f.pointer)).toEqual([
      "/messages/2/content/1/structuredContent/celsius",
      "/messages/4/content/structuredContent",
    ]);
  });

  it("no false positive: no outputSchema, no structuredContent, an unknown tool, an unmatched tool_result", () => {
    const noSchema = oneRound([structured("a", { anything: true })], [WEATHER_TOOL]);
    expect(validateRequest(noSchema, { era })).toMatchObject({ legal: true, warnings: [] });
    const noStructured = oneRound([toolResult("a")]);
    expect(validateRequest(noStructured, { era })).toMatchObject({ legal: true, warnings: [] });
    // The tool_use names a tool the request does not declare: nothing to check against (no finding here).
    const unknownTool = toolParams(
      [user(text()), assistant(toolUse("a", "get_tide")), user(structured("a", {}))],
      { tools: [WEATHER] },
    );
    expect(findings(unknownTool, era)).toEqual([]);
    // A tool_result answering no tool_use breaks the pairing rule, not this one.
    const unmatched = oneRound([toolResult("a"), structured("zz", {})]);
    const v = validateRequest(unmatched, { era });
    expect(v.errors.map((f) => f.rule)).toEqual(["message.tool-result-unmatched"]);
    expect(findings(unmatched, era)).toEqual([]);
  });

  it("matches by the tool_use's name: the first tool of that name with an outputSchema", () => {
    const p = toolParams(
      [user(text()), assistant([toolUse("a", "get_time", {})]), user([structured("a", { celsius: 1 })])],
      { tools: [WEATHER, { ...CLOCK, outputSchema: { type: "object", required: ["iso"] } }] },
    );
    expect(findings(p, era).map((f) => f.message)).toEqual([expect.stringMatching(/"get_time".*'iso'/)]);
    const twice = oneRound([structured("a", {})], [WEATHER_TOOL, WEATHER]);
    expect(findings(twice, era).map((f) => f.message)).toEqual([expect.stringContaining("/tools/1")]);
  });

  it("an outputSchema that cannot be compiled is not checked", () => {
    for (const bad of [
      { type: "object", properties: { celsius: { type: "nonsense" } } },
      { type: "object", properties: { celsius: { $ref: "https://example.com/remote.json" } } },
      { $schema: "https://example.com/my-dialect", type: "object", required: ["celsius"] },
    ]) {
      const p = oneRound([structured("a", {})], [{ ...WEATHER_TOOL, outputSchema: bad }]);
      expect(validateRequest(p, { era }), JSON.stringify(bad)).toMatchObject({ legal: true, warnings: [] });
    }
  });

  it("runs patterns in linear time: a catastrophic pattern against a long near-match is judged at once", () => {
    // "^(a+)+$" backtracks exponentially in JavaScript's RegExp: 2^40 steps for this value.
    const evil = { type: "object", properties: { code: { type: "string", pattern: "^(a+)+$" } } };
    const keys = { type: "object", patternProperties: { "^(a+)+$": { type: "number" } } };
    const value = `${"a".repeat(40)}!`;
    const t0 = performance.now();
    const p = oneRound([structured("a", { code: value })], [{ ...WEATHER_TOOL, outputSchema: evil }]);
    expect(findings(p, era).map((f) => f.pointer)).toEqual(["/messages/2/content/0/structuredContent/code"]);
    const q = oneRound(
      [structured("a", { [value]: "x", aaaa: "y" })],
      [{ ...WEATHER_TOOL, outputSchema: keys }],
    );
    expect(findings(q, era).map((f) => f.pointer)).toEqual(["/messages/2/content/0/structuredContent/aaaa"]);
    expect(performance.now() - t0).toBeLessThan(1_000);
  });

  it("a pattern RE2 cannot run (lookaround, backreferences) makes its schema uncheckable, not a verdict", () => {
    for (const pattern of ["^(?=.*x)", "^(a)\\1$"]) {
      const schema = {
        type: "object",
        properties: { code: { type: "string", pattern } },
        required: ["celsius"],
      };
      const p = oneRound([structured("a", { code: "zzz" })], [{ ...WEATHER_TOOL, outputSchema: schema }]);
      expect(validateRequest(p, { era }), pattern).toMatchObject({ legal: true, warnings: [] });
    }
  });

  it("reads 2020-12 keywords, draft-07 and 2019-09 schemas, and ignores unknown keywords and formats", () => {
    const prefixItems = { type: "object", properties: { pair: { prefixItems: [{ type: "string" }] } } };
    const p2020 = oneRound(
      [structured("a", { pair: [1] })],
      [{ ...WEATHER_TOOL, outputSchema: prefixItems }],
    );
    expect(findings(p2020, era).map((f) => f.pointer)).toEqual([
      "/messages/2/content/0/structuredContent/pair/0",
    ]);
    for (const $schema of [
      "http://json-schema.org/draft-07/schema#",
      "https://json-schema.org/draft/2019-09/schema",
      "https://json-schema.org/draft/2020-12/schema",
    ]) {
      const schema = { $schema, type: "object", required: ["celsius"], "x-vendor": 1 };
      const p = oneRound([structured("a", {})], [{ ...WEATHER_TOOL, outputSchema: schema }]);
      expect(findings(p, era), $schema).toHaveLength(1);
    }
    const formats = { type: "object", properties: { at: { type: "string", format: "date-time" } } };
    const p = oneRound([structured("a", { at: "not a date" })], [{ ...WEATHER_TOOL, outputSchema: formats }]);
    expect(findings(p, era)).toEqual([]);
  });

  it("two schemas with the same $id do not see each other", () => {
    const a = { $id: "https://example.com/out", type: "object", required: ["celsius"] };
    const b = { $id: "https://example.com/out", type: "object", required: ["iso"] };
    expect(
      findings(oneRound([structured("a", { iso: "x" })], [{ ...WEATHER_TOOL, outputSchema: a }]), era),
    ).toHaveLength(1);
    expect(
      findings(oneRound([structured("a", { iso: "x" })], [{ ...WEATHER_TOOL, outputSchema: b }]), era),
    ).toEqual([]);
    expect(
      findings(oneRound([structured("a", { celsius: 1 })], [{ ...WEATHER_TOOL, outputSchema: b }]), era),
    ).toHaveLength(1);
  });

  it("is found inside an embedded request too, with the wrapper's pointer", () => {
    const v = validateEmbeddedRequest(
      { method: "sampling/createMessage", params: oneRound([structured("a", {})]) },
      { era },
    );
    expect(v.warnings.map((f) => f.pointer)).toEqual(["/params/messages/2/content/0/structuredContent"]);
  });

  it("leaves the request as it was (no defaults filled in, nothing removed)", () => {
    const schema = {
      type: "object",
      properties: { unit: { type: "string", default: "C" } },
      additionalProperties: false,
    };
    const sc = { celsius: 1 };
    const p = oneRound([structured("a", sc)], [{ ...WEATHER_TOOL, outputSchema: schema }]);
    const before = JSON.stringify(p);
    expect(findings(p, era)).toHaveLength(1);
    expect(JSON.stringify(p)).toBe(before);
  });
});

it("2026-07-28: a structuredContent of any JSON value is held to the schema (an array where an object is due)", () => {
  const v = validateRequest(oneRound([structured("a", [18])]), { era: "2026-07-28" });
  expect(v.legal).toBe(true);
  expect(v.warnings.map((f) => [f.rule, f.pointer])).toEqual([
    [RULE, "/messages/2/content/0/structuredContent"],
  ]);
});

it("before 2025-11-25 there are no tool blocks, so no such rule", () => {
  const v = validateRequest(oneRound([structured("a", {})]), { era: "2025-06-18" });
  expect(v.warnings.filter((f) => f.rule === RULE)).toEqual([]);
});

it("REFUSED_SHOULD names this rule, and refusalVerdict leaves other verdicts as they are", () => {
  expect([...REFUSED_SHOULD]).toEqual([RULE]);
  const plain = validateRequest(oneRound([structured("a", { celsius: 2 })]), { era: "2025-11-25" });
  expect(refusalVerdict(plain)).toBe(plain);
  const deprecated = validateRequest(
    { ...oneRound([toolResult("a")]), includeContext: "allServers" },
    { era: "2025-11-25" },
  );
  expect(deprecated.warnings.length).toBeGreaterThan(0);
  expect(refusalVerdict(deprecated)).toBe(deprecated);
});
