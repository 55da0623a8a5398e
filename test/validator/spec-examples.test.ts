/**
 * The spec's own examples (sampling.mdx of each revision; mrtr.mdx), judged in every
 * era where they apply, and the era boundaries of content shapes.
 */
import { describe, expect, it } from "vitest";
import {
  ERAS,
  type Era,
  SCHEMAS,
  type Verdict,
  validateEmbeddedRequest,
  validateInputRequests,
  validateInputResponses,
  validateRequest,
  validateResult,
} from "../../src/validator/index.ts";
import {
  assistant,
  audio,
  image,
  params,
  result,
  TOOLS_CAPS,
  text,
  toolParams,
  toolResult,
  toolUse,
  user,
} from "./helpers.ts";

const OLD: Era[] = ["2024-11-05", "2025-03-26", "2025-06-18"];
const NEW: Era[] = ["2025-11-25", "2026-07-28"];

const rules = (v: Verdict) => v.errors.map((f) => f.rule);
const find = (v: Verdict, rule: string) => v.errors.find((f) => f.rule === rule);

const question = user(text("What's the weather like in Paris and London?"));

describe("Creating Messages example (every era)", () => {
  const req = {
    messages: [user(text("What is the capital of France?"))],
    modelPreferences: { hints: [{ name: "claude-3-sonnet" }], intelligencePriority: 0.8, speedPriority: 0.5 },
    systemPrompt: "You are a helpful assistant.",
    maxTokens: 100,
  };
  const res = result(text("The capital of France is Paris."));
  it.each(ERAS)("request and response are legal in %s", (era) => {
    expect(validateRequest(req, { era, capabilities: { sampling: {} } })).toEqual({
      legal: true,
      errors: [],
      warnings: [],
      code: null,
    });
    expect(validateResult(res, { era, request: req }).legal).toBe(true);
  });
});

describe("Tool Result Messages (§2.4)", () => {
  const single = [question, assistant([toolUse("call_123")]), user(toolResult("call_123"))];
  const multiple = [
    question,
    assistant([toolUse("call_123"), toolUse("call_456")]),
    user([toolResult("call_123", "Result 1"), toolResult("call_456", "Result 2")]),
  ];
  const mixed = [
    question,
    assistant([toolUse("call_123")]),
    user([text("Here are the results:"), toolResult("call_123")]),
  ];

  it.each(NEW)("valid - single tool result (bare block) is legal in %s", (era) => {
    expect(validateRequest(toolParams(single), { era, capabilities: TOOLS_CAPS }).errors).toEqual([]);
  });
  it.each(NEW)("valid - multiple tool results is legal in %s", (era) => {
    expect(validateRequest(toolParams(multiple), { era, capabilities: TOOLS_CAPS }).errors).toEqual([]);
  });
  it.each(NEW)("invalid - mixed content is message.tool-result-only, -32602, in %s", (era) => {
    const v = validateRequest(toolParams(mixed), { era, capabilities: TOOLS_CAPS });
    expect(v.legal).toBe(false);
    expect(v.code).toBe(-32602);
    expect(rules(v)).toEqual(["message.tool-result-only"]);
    expect(find(v, "message.tool-result-only")).toMatchObject({
      pointer: "/messages/2/content/0",
      level: "MUST",
      code: -32602,
      source: `https://modelcontextprotocol.io/specification/${era}/client/sampling#tool-result-messages`,
    });
  });
  it.each(OLD)("tool blocks do not exist in %s: every example is illegal", (era) => {
    const v1 = validateRequest(toolParams(single), { era });
    expect(v1.errors.map((f) => [f.rule, f.pointer])).toEqual([
      ["content.array-before-2025-11-25", "/messages/1/content"],
      ["content.tool-blocks-before-2025-11-25", "/messages/2/content/type"],
    ]);
    const v2 = validateRequest(toolParams(multiple), { era });
    expect(rules(v2)).toContain("content.array-before-2025-11-25");
    expect(v2.code).toBe(-32602);
  });
});

describe("Tool Use and Result Balance (§2.5)", () => {
  const valid = [
    question,
    assistant([toolUse("call_abc123"), toolUse("call_def456", "get_weather", { city: "London" })]),
    user([toolResult("call_abc123", "18°C, partly cloudy"), toolResult("call_def456", "15°C, rainy")]),
    assistant(text("Paris is warmer than London.")),
  ];
  const missing = [
    question,
    assistant([toolUse("call_abc123"), toolUse("call_def456", "get_weather", { city: "London" })]),
    user([toolResult("call_abc123", "18°C, partly cloudy")]),
    assistant(text("Paris is warmer than London.")),
  ];
  it.each(NEW)("the valid sequence is legal in %s", (era) => {
    expect(validateRequest(toolParams(valid), { era, capabilities: TOOLS_CAPS }).legal).toBe(true);
  });
  it.each(NEW)("2 tool_use with 1 tool_result is message.tool-result-missing, -32602, in %s", (era) => {
    const v = validateRequest(toolParams(missing), { era, capabilities: TOOLS_CAPS });
    expect(v.code).toBe(-32602);
    expect(v.errors).toHaveLength(1);
    expect(v.errors[0]).toMatchObject({
      rule: "message.tool-result-missing",
      pointer: "/messages/1/content/1",
      code: -32602,
      source: `https://modelcontextprotocol.io/specification/${era}/client/sampling#tool-use-and-result-balance`,
    });
    expect(v.errors[0]!.message).toContain("call_def456");
  });
});

describe("Sampling with Tools / Multi-turn Tool Loop examples", () => {
  const first = toolParams([question], { toolChoice: { mode: "auto" } });
  const firstResponse = result(
    [toolUse("call_abc123"), toolUse("call_def456", "get_weather", { city: "London" })],
    {
      stopReason: "toolUse",
    },
  );
  const followUp = toolParams([
    question,
    assistant([toolUse("call_abc123"), toolUse("call_def456", "get_weather", { city: "London" })]),
    user([toolResult("call_abc123"), toolResult("call_def456")]),
  ]);
  const finalResponse = result(text("Based on the current weather data: …"));

  it.each(NEW)("request, tool_use response, follow-up and final response are legal in %s", (era) => {
    expect(validateRequest(first, { era, capabilities: TOOLS_CAPS }).legal).toBe(true);
    expect(validateResult(firstResponse, { era, request: first }).legal).toBe(true);
    expect(validateRequest(followUp, { era, capabilities: TOOLS_CAPS }).legal).toBe(true);
    expect(validateResult(finalResponse, { era, request: followUp }).legal).toBe(true);
  });
  it.each(NEW)(
    "the same request to a client without sampling.tools is request.tools-capability in %s",
    (era) => {
      const v = validateRequest(first, { era, capabilities: { sampling: {} } });
      expect(v.errors.map((f) => [f.rule, f.pointer, f.code])).toEqual([
        ["request.tools-capability", "/tools", -32602],
        ["request.tools-capability", "/toolChoice", -32602],
      ]);
    },
  );
  it.each(NEW)("unknown capabilities skip the capability rule in %s", (era) => {
    expect(validateRequest(first, { era }).legal).toBe(true);
  });
  it.each(OLD)("in %s tools/toolChoice are unknown keys: legal, not flagged", (era) => {
    expect(validateRequest(first, { era, capabilities: { sampling: {} } })).toMatchObject({
      legal: true,
      warnings: [],
    });
  });
  it.each(OLD)("in %s the array tool_use response is illegal", (era) => {
    expect(rules(validateResult(firstResponse, { era, request: first }))).toEqual([
      "content.array-before-2025-11-25",
    ]);
  });
});

describe("content shapes across eras", () => {
  const arrayContent = params([user([text("a"), text("b")])]);
  it("array content is legal in 2025-11-25 and illegal in 2025-06-18", () => {
    expect(validateRequest(arrayContent, { era: "2025-11-25" }).legal).toBe(true);
    const v = validateRequest(arrayContent, { era: "2025-06-18" });
    expect(v.errors.map((f) => [f.rule, f.pointer])).toEqual([
      ["content.array-before-2025-11-25", "/messages/0/content"],
    ]);
  });
  it("audio is illegal in 2024-11-05 and legal from 2025-03-26", () => {
    const req = params([user(audio())]);
    const v = validateRequest(req, { era: "2024-11-05" });
    expect(v.errors.map((f) => [f.rule, f.pointer])).toEqual([
      ["content.audio-before-2025-03-26", "/messages/0/content/type"],
    ]);
    for (const era of ERAS.slice(1)) expect(validateRequest(req, { era }).legal).toBe(true);
  });
  it.each(ERAS)("text and image are legal in %s", (era) => {
    expect(validateRequest(params([user(text()), assistant(image())]), { era }).legal).toBe(true);
  });
  it("empty messages and empty content arrays are schema-legal (no minItems)", () => {
    expect(validateRequest(params([]), { era: "2024-11-05" }).legal).toBe(true);
    expect(validateRequest(params([user([])]), { era: "2025-11-25" }).legal).toBe(true);
  });
});

describe("2026-07-28 multi-round-trip examples (mrtr.mdx)", () => {
  const era = "2026-07-28" as const;
  const inputRequests = {
    github_login: {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: "Please provide your GitHub username",
        requestedSchema: { type: "object" },
      },
    },
    capital_of_france: {
      method: "sampling/createMessage",
      params: {
        messages: [user(text("What is the capital of France?"))],
        modelPreferences: {
          hints: [{ name: "claude-3-sonnet" }],
          intelligencePriority: 0.8,
          speedPriority: 0.5,
        },
        systemPrompt: "You are a helpful assistant.",
        maxTokens: 100,
      },
    },
  };
  const inputResponses = {
    github_login: { action: "accept", content: { name: "octocat" } },
    capital_of_france: result(text("The capital of France is Paris.")),
  };
  it("InputRequests and InputResponses are legal", () => {
    expect(validateInputRequests(inputRequests, { era, capabilities: { sampling: {} } }).legal).toBe(true);
    expect(validateInputResponses(inputResponses, { era, inputRequests })).toMatchObject({
      legal: true,
      warnings: [],
    });
  });
  it("the embedded request needs no jsonrpc/id", () => {
    expect(validateEmbeddedRequest(inputRequests.capital_of_france, { era }).legal).toBe(true);
  });
  it("the zod wrapper schemas agree with the validator on structure", () => {
    const schemas = SCHEMAS[era];
    const cases: unknown[] = [
      inputRequests,
      {},
      [],
      { a: 1 },
      { a: { method: "tools/call" } },
      { a: { method: "sampling/createMessage", params: { messages: [] } } },
      { a: { method: "roots/list" } },
    ];
    for (const c of cases) {
      expect(schemas.inputRequests!.safeParse(c).success, JSON.stringify(c)).toBe(
        validateInputRequests(c, { era }).legal,
      );
    }
    expect(schemas.inputResponses!.safeParse(inputResponses).success).toBe(true);
    expect(schemas.inputResponses!.safeParse([]).success).toBe(
      validateInputResponses([], { era, inputRequests }).legal,
    );
    expect(SCHEMAS["2025-11-25"].inputRequests).toBeUndefined();
  });
  it("omitting a sampling response is legal (the client declined)", () => {
    expect(
      validateInputResponses({ github_login: inputResponses.github_login }, { era, inputRequests }).legal,
    ).toBe(true);
  });
});
