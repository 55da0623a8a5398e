/**
 * One or more cases per rule of the catalogue: the rule fires at the expected pointer with the catalogue's
 * level, the channel's code and the era's source URL — and a test fails if a rule has no case here.
 */
import { describe, expect, it } from "vitest";
import {
  CHANNEL_CODE,
  type Channel,
  type Era,
  RULE_IDS,
  RULES,
  type RuleId,
  type SamplingCapabilities,
  sourceFor,
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
  BASIC_CAPS,
  image,
  type Json,
  params,
  result,
  TOOLS_CAPS,
  text,
  toolParams,
  toolResult,
  toolUse,
  user,
  WEATHER_TOOL,
} from "./helpers.ts";

interface Case {
  name: string;
  rule: RuleId;
  eras: Era[];
  pointer: string;
  run: (era: Era) => Verdict;
  channel: Channel;
}

const NEW: Era[] = ["2025-11-25", "2026-07-28"];
const OLD: Era[] = ["2024-11-05", "2025-03-26", "2025-06-18"];
const ALL: Era[] = [...OLD, ...NEW];

const req = (p: unknown, capabilities?: SamplingCapabilities) => (era: Era) =>
  validateRequest(p, capabilities ? { era, capabilities } : { era });
const res =
  (r: unknown, request: unknown = params([user(text())])) =>
  (era: Era) =>
    validateResult(r, { era, request });
/** A round with tool_use a and b, answered by a user message holding `reply`. */
const loop = (reply: unknown, extra: Json = {}) =>
  toolParams([user(text("q")), assistant([toolUse("a"), toolUse("b")]), user(reply)], extra);

const CASES: Case[] = [
  // request structure
  { name: "params null", rule: "request.params", eras: ALL, pointer: "", run: req(null), channel: "request" },
  { name: "params array", rule: "request.params", eras: ALL, pointer: "", run: req([]), channel: "request" },
  {
    name: "messages missing",
    rule: "request.messages",
    eras: ALL,
    pointer: "/messages",
    run: req({ maxTokens: 1 }),
    channel: "request",
  },
  {
    name: "message not an object",
    rule: "request.messages",
    eras: ALL,
    pointer: "/messages/0",
    run: req(params(["hi"])),
    channel: "request",
  },
  {
    name: "maxTokens missing",
    rule: "request.max-tokens",
    eras: ALL,
    pointer: "/maxTokens",
    run: req({ messages: [] }),
    channel: "request",
  },
  {
    name: "maxTokens 1.5",
    rule: "request.max-tokens",
    eras: ALL,
    pointer: "/maxTokens",
    run: req(params([], { maxTokens: 1.5 })),
    channel: "request",
  },
  {
    name: "maxTokens string",
    rule: "request.max-tokens",
    eras: ALL,
    pointer: "/maxTokens",
    run: req(params([], { maxTokens: "100" })),
    channel: "request",
  },
  {
    name: "costPriority 2",
    rule: "request.model-preferences",
    eras: ALL,
    pointer: "/modelPreferences/costPriority",
    run: req(params([], { modelPreferences: { costPriority: 2 } })),
    channel: "request",
  },
  {
    name: "hint name number",
    rule: "request.model-preferences",
    eras: ALL,
    pointer: "/modelPreferences/hints/0/name",
    run: req(params([], { modelPreferences: { hints: [{ name: 1 }] } })),
    channel: "request",
  },
  {
    name: "includeContext bogus",
    rule: "request.include-context",
    eras: ALL,
    pointer: "/includeContext",
    run: req(params([], { includeContext: "everything" })),
    channel: "request",
  },
  {
    name: "tool without inputSchema.type object",
    rule: "request.tools",
    eras: NEW,
    pointer: "/tools/0/inputSchema/type",
    run: req(params([], { tools: [{ name: "t", inputSchema: { type: "string" } }] })),
    channel: "request",
  },
  {
    name: "tool inputSchema property schema not an object",
    rule: "request.tools",
    eras: ["2025-11-25"],
    pointer: "/tools/0/inputSchema/properties/q",
    run: req(
      params([], { tools: [{ name: "t", inputSchema: { type: "object", properties: { q: false } } }] }),
    ),
    channel: "request",
  },
  {
    name: "task ttl a fraction",
    rule: "request.field-type",
    eras: ["2025-11-25"],
    pointer: "/task/ttl",
    run: req(params([], { task: { ttl: 1.5 } })),
    channel: "request",
  },
  {
    name: "tool without name",
    rule: "request.tools",
    eras: NEW,
    pointer: "/tools/0/name",
    run: req(params([], { tools: [{ inputSchema: { type: "object" } }] })),
    channel: "request",
  },
  {
    name: "toolChoice mode bogus",
    rule: "request.tool-choice",
    eras: NEW,
    pointer: "/toolChoice/mode",
    run: req(params([], { toolChoice: { mode: "always" } })),
    channel: "request",
  },
  {
    name: "systemPrompt number",
    rule: "request.field-type",
    eras: ALL,
    pointer: "/systemPrompt",
    run: req(params([], { systemPrompt: 3 })),
    channel: "request",
  },
  {
    name: "stopSequences of numbers",
    rule: "request.field-type",
    eras: ALL,
    pointer: "/stopSequences/0",
    run: req(params([], { stopSequences: [1] })),
    channel: "request",
  },
  {
    name: "metadata array",
    rule: "request.field-type",
    eras: ALL,
    pointer: "/metadata",
    run: req(params([], { metadata: [] })),
    channel: "request",
  },
  {
    name: "message _meta string",
    rule: "request.field-type",
    eras: NEW,
    pointer: "/messages/0/_meta",
    run: req(params([{ ...user(text()), _meta: "x" }])),
    channel: "request",
  },
  {
    name: "role system",
    rule: "message.role",
    eras: ALL,
    pointer: "/messages/0/role",
    run: req(params([{ role: "system", content: text() }])),
    channel: "request",
  },
  {
    name: "role missing",
    rule: "message.role",
    eras: ALL,
    pointer: "/messages/0/role",
    run: req(params([{ content: text() }])),
    channel: "request",
  },
  {
    name: "content missing",
    rule: "message.content",
    eras: ALL,
    pointer: "/messages/0/content",
    run: req(params([{ role: "user" }])),
    channel: "request",
  },
  {
    name: "content a string",
    rule: "message.content",
    eras: ALL,
    pointer: "/messages/0/content",
    run: req(params([user("hi")])),
    channel: "request",
  },

  // content blocks
  {
    name: "array content",
    rule: "content.array-before-2025-11-25",
    eras: OLD,
    pointer: "/messages/0/content",
    run: req(params([user([text()])])),
    channel: "request",
  },
  {
    name: "array content in a result",
    rule: "content.array-before-2025-11-25",
    eras: OLD,
    pointer: "/content",
    run: res(result([text()])),
    channel: "result",
  },
  {
    name: "audio",
    rule: "content.audio-before-2025-03-26",
    eras: ["2024-11-05"],
    pointer: "/messages/0/content/type",
    run: req(params([user(audio())])),
    channel: "request",
  },
  {
    name: "audio result",
    rule: "content.audio-before-2025-03-26",
    eras: ["2024-11-05"],
    pointer: "/content/type",
    run: res(result(audio())),
    channel: "result",
  },
  {
    name: "tool_use block",
    rule: "content.tool-blocks-before-2025-11-25",
    eras: OLD,
    pointer: "/messages/0/content/type",
    run: req(params([assistant(toolUse("a"))])),
    channel: "request",
  },
  {
    name: "tool_result block",
    rule: "content.tool-blocks-before-2025-11-25",
    eras: OLD,
    pointer: "/messages/0/content/type",
    run: req(params([user(toolResult("a"))])),
    channel: "request",
  },
  {
    name: "unknown block type",
    rule: "content.block-type",
    eras: ALL,
    pointer: "/messages/0/content/type",
    run: req(params([user({ type: "video" })])),
    channel: "request",
  },
  {
    name: "block type missing",
    rule: "content.block-type",
    eras: ALL,
    pointer: "/messages/0/content/type",
    run: req(params([user({ text: "x" })])),
    channel: "request",
  },
  {
    name: "resource_link directly in a message",
    rule: "content.block-type",
    eras: NEW,
    pointer: "/messages/0/content/0/type",
    run: req(params([user([{ type: "resource_link", uri: "file:///a", name: "a" }])])),
    channel: "request",
  },
  {
    name: "unknown block in tool_result.content",
    rule: "content.block-type",
    eras: NEW,
    pointer: "/messages/2/content/0/content/0/type",
    run: req(
      params([
        user(text()),
        assistant(toolUse("a")),
        user([{ ...toolResult("a"), content: [{ type: "video" }] }]),
      ]),
    ),
    channel: "request",
  },
  {
    name: "text missing",
    rule: "content.block-shape",
    eras: ALL,
    pointer: "/messages/0/content/text",
    run: req(params([user({ type: "text" })])),
    channel: "request",
  },
  {
    name: "mimeType missing",
    rule: "content.block-shape",
    eras: ALL,
    pointer: "/messages/0/content/mimeType",
    run: req(params([user({ type: "image", data: "AA==" })])),
    channel: "request",
  },
  {
    name: "annotation priority 1.5",
    rule: "content.block-shape",
    eras: ALL,
    pointer: "/messages/0/content/annotations/priority",
    run: req(params([user({ ...text(), annotations: { priority: 1.5 } })])),
    channel: "request",
  },
  {
    name: "tool_use input array",
    rule: "content.block-shape",
    eras: NEW,
    pointer: "/messages/0/content/input",
    run: req(params([assistant({ ...toolUse("a"), input: [] })])),
    channel: "request",
  },
  {
    name: "tool_result isError string",
    rule: "content.block-shape",
    eras: NEW,
    pointer: "/messages/2/content/isError",
    run: req(params([user(text()), assistant(toolUse("a")), user({ ...toolResult("a"), isError: "yes" })])),
    channel: "request",
  },
  {
    name: "result text missing",
    rule: "content.block-shape",
    eras: ALL,
    pointer: "/content/text",
    run: res(result({ type: "text" })),
    channel: "result",
  },
  {
    name: "image data not base64",
    rule: "content.base64",
    eras: ALL,
    pointer: "/messages/0/content/data",
    run: req(params([user(image("not base64!"))])),
    channel: "request",
  },
  {
    name: "unpadded base64",
    rule: "content.base64",
    eras: ALL,
    pointer: "/messages/0/content/data",
    run: req(params([user(image("AAA"))])),
    channel: "request",
  },
  {
    name: "result image data",
    rule: "content.base64",
    eras: ALL,
    pointer: "/content/data",
    run: res(result(image("@@"))),
    channel: "result",
  },
  {
    name: "resource blob",
    rule: "content.base64",
    eras: NEW,
    pointer: "/messages/2/content/content/0/resource/blob",
    run: req(
      params([
        user(text()),
        assistant(toolUse("a")),
        user({
          ...toolResult("a"),
          content: [{ type: "resource", resource: { uri: "file:///a", blob: "%%" } }],
        }),
      ]),
    ),
    channel: "request",
  },
  {
    name: "tool_result without content",
    rule: "content.tool-result-content",
    eras: NEW,
    pointer: "/messages/2/content/0/content",
    run: req(
      params([user(text()), assistant(toolUse("a")), user([{ type: "tool_result", toolUseId: "a" }])]),
    ),
    channel: "request",
  },

  // tool loop
  {
    name: "mixed reply",
    rule: "message.tool-result-only",
    eras: NEW,
    pointer: "/messages/2/content/2",
    run: req(loop([toolResult("a"), toolResult("b"), text()])),
    channel: "request",
  },
  {
    name: "user-role result mixing tool_result and text",
    rule: "message.tool-result-only",
    eras: NEW,
    pointer: "/content/1",
    run: res({ ...result([toolResult("a"), text()]), role: "user" }),
    channel: "result",
  },
  {
    name: "missing result",
    rule: "message.tool-result-missing",
    eras: NEW,
    pointer: "/messages/1/content/1",
    run: req(loop([toolResult("a")])),
    channel: "request",
  },
  {
    name: "trailing tool_use",
    rule: "message.tool-result-missing",
    eras: NEW,
    pointer: "/messages/1/content/0",
    run: req(toolParams([user(text()), assistant([toolUse("a")])])),
    channel: "request",
  },
  {
    name: "tool_use followed by assistant",
    rule: "message.tool-result-missing",
    eras: NEW,
    pointer: "/messages/1/content",
    run: req(toolParams([user(text()), assistant(toolUse("a")), assistant(text())])),
    channel: "request",
  },
  {
    name: "tool_use answered by text",
    rule: "message.tool-result-missing",
    eras: NEW,
    pointer: "/messages/1/content",
    run: req(toolParams([user(text()), assistant(toolUse("a")), user(text("never mind"))])),
    channel: "request",
  },
  {
    name: "structuredContent missing a property its tool's outputSchema requires",
    rule: "message.structured-content-schema",
    eras: NEW,
    pointer: "/messages/2/content/1/structuredContent",
    run: req(
      loop([toolResult("a"), { ...toolResult("b"), structuredContent: {} }], {
        tools: [{ ...WEATHER_TOOL, outputSchema: { type: "object", required: ["celsius"] } }],
      }),
    ),
    channel: "request",
  },
  {
    name: "extra result id",
    rule: "message.tool-result-unmatched",
    eras: NEW,
    pointer: "/messages/2/content/2/toolUseId",
    run: req(loop([toolResult("a"), toolResult("b"), toolResult("c")])),
    channel: "request",
  },
  {
    name: "result without preceding tool_use",
    rule: "message.tool-result-unmatched",
    eras: NEW,
    pointer: "/messages/0/content/toolUseId",
    run: req(toolParams([user(toolResult("a"))])),
    channel: "request",
  },
  {
    name: "result answering an older round",
    rule: "message.tool-result-unmatched",
    eras: NEW,
    pointer: "/messages/4/content/toolUseId",
    run: req(
      toolParams([
        user(text()),
        assistant(toolUse("a")),
        user(toolResult("a")),
        assistant(text()),
        user(toolResult("a")),
      ]),
    ),
    channel: "request",
  },
  {
    name: "tool_result in an assistant message",
    rule: "message.tool-result-unmatched",
    eras: NEW,
    pointer: "/messages/1/content/toolUseId",
    run: req(toolParams([user(text()), assistant(toolResult("a"))])),
    channel: "request",
  },
  {
    name: "duplicate tool_use id",
    rule: "message.duplicate-tool-id",
    eras: NEW,
    pointer: "/messages/1/content/1/id",
    run: req(toolParams([user(text()), assistant([toolUse("a"), toolUse("a")]), user(toolResult("a"))])),
    channel: "request",
  },
  {
    name: "two results for one id",
    rule: "message.duplicate-tool-id",
    eras: NEW,
    pointer: "/messages/2/content/2/toolUseId",
    run: req(loop([toolResult("a"), toolResult("b"), toolResult("a")])),
    channel: "request",
  },
  {
    name: "duplicate tool_use id in a result",
    rule: "message.duplicate-tool-id",
    eras: NEW,
    pointer: "/content/1/id",
    run: res(result([toolUse("x"), toolUse("x")], { stopReason: "toolUse" }), toolParams([user(text())])),
    channel: "result",
  },
  {
    name: "tool_use in a user message",
    rule: "message.tool-use-role",
    eras: NEW,
    pointer: "/messages/0/content",
    run: req(toolParams([user(toolUse("a"))])),
    channel: "request",
  },

  // capabilities
  {
    name: "tools without sampling.tools",
    rule: "request.tools-capability",
    eras: NEW,
    pointer: "/tools",
    run: req(toolParams([user(text())]), BASIC_CAPS),
    channel: "request",
  },
  {
    name: "toolChoice without sampling.tools",
    rule: "request.tools-capability",
    eras: NEW,
    pointer: "/toolChoice",
    run: req(params([user(text())], { toolChoice: { mode: "auto" } }), {}),
    channel: "request",
  },
  {
    name: "includeContext without sampling.context",
    rule: "request.include-context-capability",
    eras: NEW,
    pointer: "/includeContext",
    run: req(params([user(text())], { includeContext: "thisServer" }), TOOLS_CAPS),
    channel: "request",
  },
  {
    name: "includeContext allServers",
    rule: "request.include-context-deprecated",
    eras: NEW,
    pointer: "/includeContext",
    run: req(params([user(text())], { includeContext: "allServers" }), { sampling: { context: {} } }),
    channel: "request",
  },

  // results
  { name: "result null", rule: "result.shape", eras: ALL, pointer: "", run: res(null), channel: "result" },
  {
    name: "role missing",
    rule: "result.role",
    eras: ALL,
    pointer: "/role",
    run: res({ content: text(), model: "m" }),
    channel: "result",
  },
  {
    name: "role system",
    rule: "result.role",
    eras: ALL,
    pointer: "/role",
    run: res(result(text(), { role: "system" })),
    channel: "result",
  },
  {
    name: "model missing",
    rule: "result.model",
    eras: ALL,
    pointer: "/model",
    run: res({ role: "assistant", content: text() }),
    channel: "result",
  },
  {
    name: "model number",
    rule: "result.model",
    eras: ALL,
    pointer: "/model",
    run: res(result(text(), { model: 4 })),
    channel: "result",
  },
  {
    name: "content missing",
    rule: "result.content",
    eras: ALL,
    pointer: "/content",
    run: res({ role: "assistant", model: "m" }),
    channel: "result",
  },
  {
    name: "stopReason number",
    rule: "result.stop-reason",
    eras: ALL,
    pointer: "/stopReason",
    run: res(result(text(), { stopReason: 1 })),
    channel: "result",
  },
  {
    name: "_meta string",
    rule: "result.field-type",
    eras: ALL,
    pointer: "/_meta",
    run: res(result(text(), { _meta: "x" })),
    channel: "result",
  },
  {
    name: "tool_use without tools",
    rule: "result.tool-use-without-tools",
    eras: NEW,
    pointer: "/content/0",
    run: res(result([toolUse("a")], { stopReason: "endTurn" })),
    channel: "result",
  },
  {
    name: "stopReason toolUse without tools",
    rule: "result.tool-use-without-tools",
    eras: NEW,
    pointer: "/stopReason",
    run: res(result(text(), { stopReason: "toolUse" })),
    channel: "result",
  },
  {
    name: "tool_use with empty tools array",
    rule: "result.tool-use-without-tools",
    eras: NEW,
    pointer: "/content",
    run: res(result(toolUse("a")), params([user(text())], { tools: [] })),
    channel: "result",
  },
  {
    name: "tool_use under toolChoice none",
    rule: "result.tool-use-with-tool-choice-none",
    eras: NEW,
    pointer: "/content/0",
    run: res(
      result([toolUse("a")], { stopReason: "toolUse" }),
      toolParams([user(text())], { toolChoice: { mode: "none" } }),
    ),
    channel: "result",
  },
  {
    name: "user-role tool_use result",
    rule: "result.tool-use-role",
    eras: NEW,
    pointer: "/role",
    run: res(result([toolUse("a")], { role: "user", stopReason: "toolUse" }), toolParams([user(text())])),
    channel: "result",
  },

  // 2026 wrappers
  {
    name: "inputRequests array",
    rule: "input.requests-shape",
    eras: ["2026-07-28"],
    pointer: "",
    run: (era) => validateInputRequests([], { era }),
    channel: "request",
  },
  {
    name: "input request not an object",
    rule: "input.request-shape",
    eras: ["2026-07-28"],
    pointer: "/k",
    run: (era) => validateInputRequests({ k: 1 }, { era }),
    channel: "request",
  },
  {
    name: "embedded request without method",
    rule: "input.request-shape",
    eras: ["2026-07-28"],
    pointer: "/method",
    run: (era) => validateEmbeddedRequest({ params: params([]) }, { era }),
    channel: "request",
  },
  {
    name: "unknown input method",
    rule: "input.request-method",
    eras: ["2026-07-28"],
    pointer: "/a~1b/method",
    run: (era) => validateInputRequests({ "a/b": { method: "tools/call", params: {} } }, { era }),
    channel: "request",
  },
  {
    name: "embedded request with another method",
    rule: "input.request-method",
    eras: ["2026-07-28"],
    pointer: "/method",
    run: (era) => validateEmbeddedRequest({ method: "roots/list", params: params([]) }, { era }),
    channel: "request",
  },
  {
    name: "inputResponses string",
    rule: "input.responses-shape",
    eras: ["2026-07-28"],
    pointer: "",
    run: (era) => validateInputResponses("x", { era, inputRequests: {} }),
    channel: "input-response",
  },
  {
    name: "extra response key",
    rule: "input.response-extra-key",
    eras: ["2026-07-28"],
    pointer: "/x~0y",
    run: (era) => validateInputResponses({ "x~y": result(text()) }, { era, inputRequests: {} }),
    channel: "input-response",
  },
];

describe("every rule of the catalogue", () => {
  it("has at least one case here", () => {
    const covered = new Set(CASES.map((c) => c.rule));
    expect(RULE_IDS.filter((id) => !covered.has(id))).toEqual([]);
  });
  it("is only tested in its eras, on one of its channels", () => {
    for (const c of CASES) {
      for (const era of c.eras) expect(RULES[c.rule].eras, `${c.name} (${era})`).toContain(era);
      expect(RULES[c.rule].channels, c.name).toContain(c.channel);
    }
  });
});

describe.each(CASES)("$rule: $name", (c) => {
  it.each(c.eras)("fires in %s with pointer, level, code and source", (era) => {
    const v = c.run(era);
    const f = [...v.errors, ...v.warnings].find((x) => x.rule === c.rule);
    expect(f, JSON.stringify(v)).toBeDefined();
    const info = RULES[c.rule];
    expect(f).toMatchObject({
      pointer: c.pointer,
      level: info.level,
      code: info.level === "MUST" ? CHANNEL_CODE[c.channel] : null,
      source: sourceFor(c.rule, era),
    });
    expect(f!.message.length).toBeGreaterThan(5);
    expect(v.legal).toBe(v.errors.length === 0);
    expect(v.code).toBe(v.errors[0]?.code ?? null);
    if (info.level === "SHOULD") expect(v.errors.some((x) => x.rule === c.rule)).toBe(false);
  });
});

describe("rules not applying outside their eras", () => {
  it("array content, audio and tool blocks pass the new eras' content rules", () => {
    for (const era of NEW) {
      const v = validateRequest(
        toolParams([user([text(), audio()]), assistant([toolUse("a")]), user(toolResult("a"))]),
        {
          era,
          capabilities: TOOLS_CAPS,
        },
      );
      expect(v.errors).toEqual([]);
    }
  });
  it("old eras ignore tools/toolChoice, stopReason toolUse and includeContext without capabilities", () => {
    for (const era of OLD) {
      const p = params([user(text())], {
        tools: "not even an array",
        toolChoice: 3,
        includeContext: "allServers",
      });
      expect(validateRequest(p, { era, capabilities: {} })).toMatchObject({ legal: true, warnings: [] });
      expect(validateResult(result(text(), { stopReason: "toolUse" }), { era, request: p }).legal).toBe(true);
    }
  });
  it("2026-07-28 drops params.task and the declared params._meta (unknown keys there)", () => {
    const p = params([user(text())], { task: "x", _meta: 5 });
    expect(validateRequest(p, { era: "2026-07-28" }).legal).toBe(true);
    expect(validateRequest(p, { era: "2025-11-25" }).errors.map((f) => f.pointer)).toEqual([
      "/_meta",
      "/task",
    ]);
  });
  it("structuredContent: an object in 2025-11-25, any JSON value in 2026-07-28", () => {
    const p = (sc: unknown) =>
      toolParams([
        user(text()),
        assistant(toolUse("a")),
        user({ ...toolResult("a"), structuredContent: sc }),
      ]);
    expect(validateRequest(p([1, 2]), { era: "2026-07-28" }).legal).toBe(true);
    expect(validateRequest(p([1, 2]), { era: "2025-11-25" }).errors[0]?.rule).toBe("content.block-shape");
    expect(validateRequest(p({ temp: 18 }), { era: "2025-11-25" }).legal).toBe(true);
  });
  it("block _meta is declared from 2025-06-18 (an unknown key before)", () => {
    const p = params([user({ ...text(), _meta: "x" })]);
    expect(validateRequest(p, { era: "2025-03-26" }).legal).toBe(true);
    expect(validateRequest(p, { era: "2025-06-18" }).errors[0]?.rule).toBe("content.block-shape");
  });
  it("a result judged without its request skips the result-vs-request rules", () => {
    const v = validateResult(result([toolUse("a")], { stopReason: "toolUse" }), {
      era: "2025-11-25",
      request: undefined,
    });
    expect(v.legal).toBe(true);
  });
});

describe("open schemas, exactness", () => {
  it("unknown fields are legal everywhere", () => {
    const p = params([{ ...user({ ...text(), x: 1 }), y: 2 }], {
      z: 3,
      modelPreferences: { hints: [{ name: "a", q: 1 }], w: 1 },
    });
    for (const era of ALL) expect(validateRequest(p, { era }).legal).toBe(true);
    for (const era of ALL)
      expect(validateResult({ ...result(text()), extra: true }, { era, request: p }).legal).toBe(true);
  });
  it("custom stopReason values are legal", () => {
    for (const era of ALL)
      expect(validateResult(result(text(), { stopReason: "refusal" }), { era, request: {} }).legal).toBe(
        true,
      );
  });
  it("maxTokens beyond the safe-integer range is still a JSON integer", () => {
    expect(validateRequest(params([], { maxTokens: 2 ** 60 }), { era: "2025-11-25" }).legal).toBe(true);
  });
  it("does not modify its input", () => {
    const p = loop([toolResult("a"), text()], { z: 1 });
    const snapshot = structuredClone(p);
    validateRequest(p, { era: "2025-11-25", capabilities: BASIC_CAPS });
    expect(p).toEqual(snapshot);
  });
  it("reports several findings in one value, errors before warnings, verdict code from the first error", () => {
    const v = validateRequest(
      params([{ role: "x", content: "y" }], { maxTokens: 0.5, includeContext: "thisServer" }),
      {
        era: "2025-11-25",
        capabilities: BASIC_CAPS,
      },
    );
    expect(v.errors.map((f) => f.rule)).toEqual(["message.role", "message.content", "request.max-tokens"]);
    expect(v.warnings.map((f) => f.rule)).toEqual([
      "request.include-context-capability",
      "request.include-context-deprecated",
    ]);
    expect(v.code).toBe(-32602);
  });
  it("inputResponses are judged against their own request and carry -32602", () => {
    const inputRequests = {
      s: { method: "sampling/createMessage", params: params([user(text())]) },
      e: { method: "elicitation/create", params: {} },
    };
    const v = validateInputResponses(
      { s: result([toolUse("a")]), e: { action: "decline" } },
      { era: "2026-07-28", inputRequests },
    );
    expect(v.errors.map((f) => [f.rule, f.pointer, f.code])).toEqual([
      ["result.tool-use-without-tools", "/s/content/0", -32602],
    ]);
  });
  it("inputRequests: a bad embedded sampling request is reported under its key", () => {
    const v = validateInputRequests(
      { q: { method: "sampling/createMessage", params: { messages: [] } } },
      { era: "2026-07-28" },
    );
    expect(v.errors.map((f) => [f.rule, f.pointer])).toEqual([["request.max-tokens", "/q/params/maxTokens"]]);
  });
});
