/**
 * The validator's structure beyond single findings: the zod schemas and the allocation-free fast path agree on
 * every input (fast.ts mirrors schemas.ts; a disagreement hides findings), each era's schema accepts a request and
 * a result that use every field the era defines and rejects a wrong value in each of them, the era helpers,
 * pointers, the 2026-07-28 wrappers and the rule sources. Written for the mutation run (npm run mutation).
 */
import { describe, expect, it } from "vitest";
import { requestParamsOk, resultOk } from "../../src/validator/fast.ts";
import {
  ERAS,
  type Era,
  eraAtLeast,
  escapeToken,
  featuresOf,
  isBase64,
  isEra,
  isModernEra,
  pointerOf,
  RULE_IDS,
  RULES,
  ruleTable,
  SCHEMAS,
  sourceFor,
  validateEmbeddedRequest,
  validateInputRequests,
  validateInputResponses,
  validateRequest,
  validateResult,
} from "../../src/validator/index.ts";

const B64 = "aGVsbG8=";
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

/** Sets the value at a path ("a.0.b"), creating nothing: the path must exist up to its parent. */
function withValue(root: unknown, path: string, value: unknown): unknown {
  const copy = clone(root) as Record<string, unknown>;
  const keys = path.split(".");
  let at: any = copy;
  for (const k of keys.slice(0, -1)) at = at[k];
  at[keys[keys.length - 1]!] = value;
  return copy;
}

function richRequest(era: Era): Record<string, unknown> {
  const f = featuresOf(era);
  const blockMeta = f.blockMeta ? { _meta: { k: 1 } } : {};
  const annotations = {
    audience: ["user", "assistant"],
    priority: 0.5,
    ...(f.blockMeta ? { lastModified: "2025-01-01T00:00:00Z" } : {}),
  };
  const text = { type: "text", text: "hi", annotations, ...blockMeta };
  const image = { type: "image", data: B64, mimeType: "image/png", annotations, ...blockMeta };
  const audio = { type: "audio", data: B64, mimeType: "audio/wav", annotations, ...blockMeta };
  const messages: unknown[] = [
    { role: "user", content: text },
    { role: "assistant", content: image },
  ];
  if (f.audio) messages.push({ role: "user", content: audio });
  const params: Record<string, unknown> = {
    messages,
    modelPreferences: {
      hints: [{ name: "claude" }, {}],
      costPriority: 0,
      speedPriority: 1,
      intelligencePriority: 0.5,
    },
    systemPrompt: "sys",
    includeContext: "none",
    temperature: 0.7,
    maxTokens: 64,
    stopSequences: ["\n"],
    metadata: { a: 1 },
  };
  if (f.paramsMeta) params._meta = { progressToken: "t" };
  if (f.task) params.task = { ttl: 1000 };
  if (f.tools) {
    messages.push(
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "c1", name: "f", input: { x: 1 }, _meta: { m: 1 } }],
        _meta: { n: 1 },
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: "c1",
            content: [
              text,
              image,
              audio,
              {
                type: "resource_link",
                uri: "file:///a",
                name: "a",
                title: "A",
                description: "d",
                mimeType: "text/plain",
                size: 3,
                icons: [{ src: "https://example.com/a.png" }],
                annotations,
                _meta: {},
              },
              {
                type: "resource",
                resource: { uri: "file:///b", mimeType: "text/plain", text: "b", _meta: {} },
                annotations,
                _meta: {},
              },
              { type: "resource", resource: { uri: "file:///c", blob: B64 } },
            ],
            structuredContent: { ok: true },
            isError: false,
            _meta: { r: 1 },
          },
        ],
      },
      { role: "user", content: [text, image] },
    );
    params.tools = [
      {
        name: "f",
        title: "F",
        description: "d",
        inputSchema: { type: "object", properties: { x: { type: "number" } }, required: ["x"] },
        outputSchema: { type: "object" },
        annotations: {
          title: "F",
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
        icons: [{ src: "https://example.com/f.png", mimeType: "image/png", sizes: ["48x48"], theme: "dark" }],
        ...(f.task ? { execution: { taskSupport: "optional" } } : {}),
        _meta: {},
      },
    ];
    params.toolChoice = { mode: "auto" };
  }
  return params;
}

/** Paths into richRequest(era) and a wrong value for each: every one must be refused by schema and validator. */
function badRequestFields(era: Era): Array<[string, unknown]> {
  const f = featuresOf(era);
  const bad: Array<[string, unknown]> = [
    ["messages", {}],
    ["messages.0", "m"],
    ["messages.0.role", "system"],
    ["messages.0.content", 5],
    ["messages.0.content.type", "video"],
    ["messages.0.content.text", 1],
    ["messages.0.content.annotations", "x"],
    ["messages.0.content.annotations.audience", ["robot"]],
    ["messages.0.content.annotations.audience", "user"],
    ["messages.0.content.annotations.priority", 1.5],
    ["messages.0.content.annotations.priority", -0.1],
    ["messages.0.content.annotations.priority", "high"],
    ["messages.1.content.data", "not base64"],
    ["messages.1.content.data", 5],
    ["messages.1.content.mimeType", 5],
    ["modelPreferences", "fast"],
    ["modelPreferences.hints", {}],
    ["modelPreferences.hints.0", "claude"],
    ["modelPreferences.hints.0.name", 5],
    ["modelPreferences.costPriority", 2],
    ["modelPreferences.speedPriority", -1],
    ["modelPreferences.intelligencePriority", "1"],
    ["systemPrompt", 5],
    ["includeContext", "all"],
    ["temperature", "0.7"],
    ["maxTokens", 1.5],
    ["maxTokens", "64"],
    ["stopSequences", "\n"],
    ["stopSequences.0", 5],
    ["metadata", []],
    ["metadata", "x"],
  ];
  if (f.blockMeta) {
    bad.push(["messages.0.content._meta", "x"], ["messages.0.content.annotations.lastModified", 5]);
  }
  if (f.audio) bad.push(["messages.2.content.data", "%%"], ["messages.2.content.mimeType", null]);
  if (f.paramsMeta) bad.push(["_meta", "x"], ["_meta.progressToken", 1.5], ["_meta.progressToken", {}]);
  if (f.task) bad.push(["task", "x"], ["task.ttl", "1000"], ["task.ttl", 0.5]);
  if (f.tools) {
    const tu = "messages.3.content.0";
    const tr = "messages.4.content.0";
    bad.push(
      ["messages.3._meta", "x"],
      [`${tu}.id`, 1],
      [`${tu}.name`, 1],
      [`${tu}.input`, "x"],
      [`${tu}.input`, []],
      [`${tu}._meta`, 1],
      [`${tr}.toolUseId`, 1],
      [`${tr}.content`, {}],
      [`${tr}.content.0.type`, "tool_use"],
      [`${tr}.content.3.uri`, 1],
      [`${tr}.content.3.name`, 1],
      [`${tr}.content.3.title`, 1],
      [`${tr}.content.3.description`, 1],
      [`${tr}.content.3.mimeType`, 1],
      [`${tr}.content.3.size`, "3"],
      [`${tr}.content.3.size`, 2.5],
      [`${tr}.content.3.icons`, {}],
      [`${tr}.content.3.icons.0.src`, 1],
      [`${tr}.content.3.annotations`, 1],
      [`${tr}.content.3._meta`, 1],
      [`${tr}.content.4.resource`, {}],
      [`${tr}.content.4.resource.uri`, 1],
      [`${tr}.content.4.resource.text`, 1],
      [`${tr}.content.4.resource.mimeType`, 1],
      [`${tr}.content.4.resource._meta`, 1],
      [`${tr}.content.4.annotations`, 1],
      [`${tr}.content.4._meta`, 1],
      [`${tr}.content.5.resource.blob`, "!"],
      [`${tr}.isError`, "no"],
      [`${tr}._meta`, 1],
      ["tools", {}],
      ["tools.0", "f"],
      ["tools.0.name", 1],
      ["tools.0.title", 1],
      ["tools.0.description", 1],
      ["tools.0.inputSchema", {}],
      ["tools.0.inputSchema.type", "array"],
      ["tools.0.inputSchema.properties", []],
      ["tools.0.inputSchema.required", "x"],
      ["tools.0.outputSchema", isModernEra(era) ? { $schema: 1 } : { type: "string" }],
      ["tools.0.annotations", 1],
      ["tools.0.annotations.title", 1],
      ["tools.0.annotations.readOnlyHint", "yes"],
      ["tools.0.annotations.openWorldHint", null],
      ["tools.0.icons", {}],
      ["tools.0.icons.0", "f.png"],
      ["tools.0.icons.0.src", 1],
      ["tools.0.icons.0.mimeType", 1],
      ["tools.0.icons.0.sizes", "48x48"],
      ["tools.0.icons.0.theme", "dim"],
      ["tools.0._meta", 1],
      ["toolChoice", "auto"],
      ["toolChoice.mode", "any"],
    );
    if (era === "2025-11-25")
      bad.push(
        [`${tr}.structuredContent`, [1]],
        ["tools.0.inputSchema.properties.x", false],
        ["tools.0.outputSchema.properties", []],
        ["tools.0.outputSchema.properties", { y: 1 }],
        ["tools.0.outputSchema.required", "y"],
        ["tools.0.execution", 1],
        ["tools.0.execution.taskSupport", "always"],
      );
  }
  return bad;
}

function richResult(era: Era): Record<string, unknown> {
  const f = featuresOf(era);
  return {
    role: "assistant",
    content: f.tools
      ? [
          { type: "text", text: "a" },
          { type: "tool_use", id: "x", name: "f", input: {} },
        ]
      : { type: "text", text: "a", ...(f.blockMeta ? { _meta: {} } : {}) },
    model: "m",
    stopReason: "provider.custom",
    _meta: { z: 1 },
    extra: [1],
  };
}

describe("zod schemas and the fast path agree", () => {
  for (const era of ERAS) {
    const s = SCHEMAS[era];
    const f = featuresOf(era);
    it(`${era}: a request using every field the era defines is legal, and a wrong value in any field is not`, () => {
      const good = richRequest(era);
      expect(s.createMessageRequestParams.safeParse(good).success).toBe(true);
      expect(requestParamsOk(good, f)).toBe(true);
      expect(validateRequest(good, { era }).errors).toEqual([]);
      expect(
        s.createMessageRequest.safeParse({ method: "sampling/createMessage", params: good }).success,
      ).toBe(true);
      expect(s.createMessageRequest.safeParse({ method: "sampling/other", params: good }).success).toBe(
        false,
      );
      for (const [path, value] of badRequestFields(era)) {
        const twin = withValue(good, path, value);
        expect([path, s.createMessageRequestParams.safeParse(twin).success]).toEqual([path, false]);
        expect([path, requestParamsOk(twin, f)]).toEqual([path, false]);
        expect([path, validateRequest(twin, { era }).legal]).toEqual([path, false]);
      }
    });
    it(`${era}: a result using every field is legal, and a wrong value in any field is not`, () => {
      const good = richResult(era);
      const request = f.tools ? { ...richRequest(era) } : richRequest(era);
      expect(s.createMessageResult.safeParse(good).success).toBe(true);
      expect(resultOk(good, f)).toBe(true);
      expect(validateResult(good, { era, request }).errors).toEqual([]);
      const bad: Array<[string, unknown]> = [
        ["role", "system"],
        ["model", 1],
        ["stopReason", 1],
        ["_meta", []],
        ["content", "x"],
      ];
      for (const [path, value] of bad) {
        const twin = withValue(good, path, value);
        expect([path, s.createMessageResult.safeParse(twin).success]).toEqual([path, false]);
        expect([path, resultOk(twin, f)]).toEqual([path, false]);
      }
    });
  }

  it("defines the era features and schema parts where the era has them", () => {
    expect(ERAS.map((e) => featuresOf(e))).toEqual([
      {
        audio: false,
        blockMeta: false,
        tools: false,
        task: false,
        paramsMeta: true,
        anyStructuredContent: false,
        mrtr: false,
      },
      {
        audio: true,
        blockMeta: false,
        tools: false,
        task: false,
        paramsMeta: true,
        anyStructuredContent: false,
        mrtr: false,
      },
      {
        audio: true,
        blockMeta: true,
        tools: false,
        task: false,
        paramsMeta: true,
        anyStructuredContent: false,
        mrtr: false,
      },
      {
        audio: true,
        blockMeta: true,
        tools: true,
        task: true,
        paramsMeta: true,
        anyStructuredContent: false,
        mrtr: false,
      },
      {
        audio: true,
        blockMeta: true,
        tools: true,
        task: false,
        paramsMeta: false,
        anyStructuredContent: true,
        mrtr: true,
      },
    ]);
    for (const era of ERAS) {
      const s = SCHEMAS[era];
      expect(s.era).toBe(era);
      expect(s.audioContent !== undefined).toBe(era >= "2025-03-26");
      expect(s.toolUseContent !== undefined).toBe(era >= "2025-11-25");
      expect(s.toolResultContent !== undefined).toBe(era >= "2025-11-25");
      expect(s.contentBlock !== undefined).toBe(era >= "2025-11-25");
      expect(s.tool !== undefined).toBe(era >= "2025-11-25");
      expect(s.toolChoice !== undefined).toBe(era >= "2025-11-25");
      expect(s.inputRequests !== undefined).toBe(era === "2026-07-28");
      expect(s.inputResponses !== undefined).toBe(era === "2026-07-28");
    }
    // 2026-07-28: structuredContent may be any JSON value.
    const anyStructured = { type: "tool_result", toolUseId: "a", content: [], structuredContent: [1, 2] };
    expect(SCHEMAS["2026-07-28"].toolResultContent!.safeParse(anyStructured).success).toBe(true);
    expect(SCHEMAS["2025-11-25"].toolResultContent!.safeParse(anyStructured).success).toBe(false);
  });

  it("checks base64 strictly (RFC 4648, padded)", () => {
    for (const ok of ["", "aGVsbG8=", "aGk=", "YWJj", "+/+/"]) expect([ok, isBase64(ok)]).toEqual([ok, true]);
    for (const bad of ["a", "aGVsbG8", "aGVsbG8==", "aG k=", "aGk=\n", "a-_b", "====", "aGk=aGk="])
      expect([bad, isBase64(bad)]).toEqual([bad, false]);
  });
});

describe("eras and pointers", () => {
  it("recognises eras and orders them", () => {
    for (const e of ERAS) expect(isEra(e)).toBe(true);
    for (const x of ["2025-11-26", "", 20251125, null, undefined, ["2025-11-25"]])
      expect(isEra(x)).toBe(false);
    expect(eraAtLeast("2025-11-25", "2025-11-25")).toBe(true);
    expect(eraAtLeast("2026-07-28", "2025-11-25")).toBe(true);
    expect(eraAtLeast("2025-06-18", "2025-11-25")).toBe(false);
    expect(ERAS.filter(isModernEra)).toEqual(["2026-07-28"]);
  });

  it("escapes pointer tokens and builds pointers", () => {
    expect(escapeToken("a/b~c")).toBe("a~1b~0c");
    expect(escapeToken("~1")).toBe("~01");
    expect(escapeToken("plain")).toBe("plain");
    expect(escapeToken(3)).toBe("3");
    expect(pointerOf([])).toBe("");
    expect(pointerOf(["messages", 0, "a/b"])).toBe("/messages/0/a~1b");
    expect(pointerOf([Symbol("s")])).toBe("/Symbol(s)");
  });
});

describe("2026-07-28 wrappers", () => {
  const era = "2026-07-28";
  const params = { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 8 };
  const show = (v: {
    errors: Array<{ rule: string; pointer: string; message: string }>;
    warnings: Array<{ rule: string; pointer: string; message: string }>;
  }) => [
    ...v.errors.map((f) => `E ${f.rule} ${f.pointer} ${f.message}`),
    ...v.warnings.map((f) => `W ${f.rule} ${f.pointer} ${f.message}`),
  ];

  it("takes any JSON Schema object as a tool's outputSchema (structuredContent may be any JSON value)", () => {
    const tools = [
      { name: "t", inputSchema: { type: "object" }, outputSchema: { type: "array", items: {} } },
    ];
    expect(show(validateRequest({ ...params, tools }, { era }))).toEqual([]);
    expect(show(validateRequest({ ...params, tools }, { era: "2025-11-25" }))).toContain(
      'E request.tools /tools/0/outputSchema/type type must be "object", got "array"',
    );
  });

  it("validates an embedded request: shape, method, then the params under /params", () => {
    expect(show(validateEmbeddedRequest({ method: "sampling/createMessage", params }, { era }))).toEqual([]);
    expect(show(validateEmbeddedRequest(null, { era }))).toEqual([
      "E input.request-shape  an input request must be a JSON object {method, params}",
    ]);
    expect(show(validateEmbeddedRequest({ params }, { era }))).toEqual([
      "E input.request-shape /method method is required",
    ]);
    expect(show(validateEmbeddedRequest({ method: 5, params }, { era }))).toEqual([
      "E input.request-shape /method method must be a string",
    ]);
    expect(
      show(validateEmbeddedRequest({ method: "roots/list", params: { ...params, maxTokens: "x" } }, { era })),
    ).toEqual([
      'E input.request-method /method method must be "sampling/createMessage", got "roots/list"',
      'E request.max-tokens /params/maxTokens maxTokens must be a number, got "x"',
    ]);
  });

  it("validates inputRequests: sampling in full, other methods by name only", () => {
    expect(show(validateInputRequests([], { era }))).toEqual([
      "E input.requests-shape  inputRequests must be a JSON object mapping keys to requests",
    ]);
    const v = validateInputRequests(
      {
        "a/b": { method: "sampling/createMessage", params: { ...params, maxTokens: undefined } },
        roots: { method: "roots/list" },
        elicit: { method: "elicitation/create", params: 5 },
        bad: 5,
        nomethod: {},
        badmethod: { method: 7 },
        other: { method: "tools/call" },
      },
      { era },
    );
    expect(show(v)).toEqual([
      "E request.max-tokens /a~1b/params/maxTokens maxTokens is required",
      "E input.request-shape /bad an input request must be a JSON object {method, params}",
      "E input.request-shape /nomethod/method method is required",
      "E input.request-shape /badmethod/method method must be a string",
      'E input.request-method /other/method method "tools/call" is not an input request method',
    ]);
    expect(v.code).toBe(-32602);
  });

  it("validates inputResponses against the requests they answer", () => {
    const requests = { s: { method: "sampling/createMessage", params }, r: { method: "roots/list" } };
    expect(show(validateInputResponses("x", { era, inputRequests: requests }))).toEqual([
      "E input.responses-shape  inputResponses must be a JSON object mapping keys to responses",
    ]);
    const good = { role: "assistant", content: { type: "text", text: "ok" }, model: "m" };
    expect(
      show(validateInputResponses({ s: good, r: { roots: [] } }, { era, inputRequests: requests })),
    ).toEqual([]);
    expect(show(validateInputResponses({}, { era, inputRequests: requests }))).toEqual([]);
    const v = validateInputResponses(
      { s: { ...good, model: 1 }, "x~y": good, r: 5 },
      { era, inputRequests: requests },
    );
    expect(show(v)).toEqual([
      "E result.model /s/model model must be a string, got number 1",
      'W input.response-extra-key /x~0y inputResponses key "x~y" answers no input request',
    ]);
    expect(v.errors[0]!.code).toBe(-32602);
    expect(show(validateInputResponses({ s: good }, { era, inputRequests: "x" }))).toEqual([
      'W input.response-extra-key /s inputResponses key "s" answers no input request',
    ]);
  });
});

describe("rule sources and the rule table", () => {
  it("cites the era's page, the legacy anchor before tools existed, and the schema file before the site had one", () => {
    expect(sourceFor("message.tool-result-only", "2025-11-25")).toBe(
      "https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#tool-result-messages",
    );
    expect(sourceFor("message.tool-result-only", "2025-06-18")).toBe(
      "https://modelcontextprotocol.io/specification/2025-06-18/client/sampling#data-types",
    );
    expect(sourceFor("result.model", "2025-06-18")).toBe(
      "https://modelcontextprotocol.io/specification/2025-06-18/schema#createmessageresult",
    );
    expect(sourceFor("result.model", "2025-03-26")).toBe(
      "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2025-03-26/schema.ts#CreateMessageResult",
    );
    for (const id of RULE_IDS)
      expect(RULES[id].source).toBe(sourceFor(id, RULES[id].eras[RULES[id].eras.length - 1]!));
  });

  it("renders one table row per rule with its era range", () => {
    const table = ruleTable().trimEnd().split("\n");
    expect(ruleTable().endsWith("|\n")).toBe(true);
    expect(table[0]).toBe("| rule | level | code | eras | rule text | decision on an open case |");
    expect(table[1]).toBe("| --- | --- | --- | --- | --- | --- |");
    expect(table.length).toBe(RULE_IDS.length + 2);
    const row = (id: string) => table.find((l) => l.startsWith(`| [\`${id}\`]`))!;
    expect(row("result.model")).toContain(
      "| MUST | -32603 result; -32602 inputResponses | all | The result names the model (a string). |  |",
    );
    expect(row("message.tool-result-only")).toContain(
      "| -32602 request; -32603 result; -32602 inputResponses |",
    );
    expect(row("message.tool-result-only")).toContain("| 2025-11-25…2026-07-28 |");
    expect(row("message.tool-use-role")).toContain("| SHOULD | — (warning) |");
    expect(row("content.audio-before-2025-03-26")).toContain("| 2024-11-05 |");
    expect(ruleTable()).not.toMatch(/\| undefined \|/);
  });
});
