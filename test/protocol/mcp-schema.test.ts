import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { ERAS } from "../../src/protocol/eras.ts";
import {
  checkDefinition,
  checkFrame,
  definitionOfMethod,
  resultDefinition,
  SCHEMA_ERRATA,
  schemaProvenance,
} from "../../src/protocol/mcp-schema.ts";

const FOLDER = resolve(import.meta.dirname, "../../src/protocol/schema");
const raw = (era: string) => readFileSync(join(FOLDER, `${era}.json`));

const PROBE_TOOL = { name: "conformance_probe", inputSchema: { type: "object" } };
const META_2026 = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { sampling: {} },
};

describe("the vendored schemas", () => {
  it("are the files provenance.json records, byte for byte, one per era", () => {
    const p = schemaProvenance();
    expect(p.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.keys(p.revisions)).toEqual([...ERAS]);
    for (const era of ERAS) {
      const record = p.revisions[era];
      expect(record.path).toBe(`schema/${era}/schema.json`);
      expect(createHash("sha256").update(raw(era)).digest("hex"), era).toBe(record.sha256);
      expect(JSON.parse(raw(era).toString()).$schema, era).toBe(record.dialect);
    }
  });

  it("are valid JSON Schema of the draft each declares (the oracle skips that check at run time)", () => {
    for (const era of ERAS) {
      const schema = JSON.parse(raw(era).toString());
      const ajv = String(schema.$schema).includes("2020-12")
        ? new Ajv2020({ strict: false })
        : new Ajv({ strict: false });
      expect(ajv.validateSchema(schema), `${era}: ${ajv.errorsText()}`).toBe(true);
    }
  });

  it("each erratum still fixes something in its vendored file (drop it once schema.json is fixed)", () => {
    for (const erratum of SCHEMA_ERRATA) {
      const schema = JSON.parse(raw(erratum.era).toString());
      expect(erratum.apply(schema.$defs ?? schema.definitions), `${erratum.era} ${erratum.definition}`).toBe(
        true,
      );
    }
  });
});

describe("checkFrame: requests and notifications by method", () => {
  it("finds the definition whose method const matches", () => {
    expect(definitionOfMethod("2026-07-28", "tools/list")).toBe("ListToolsRequest");
    expect(definitionOfMethod("2026-07-28", "notifications/cancelled")).toBe("CancelledNotification");
    expect(definitionOfMethod("2026-07-28", "initialize")).toBeUndefined();
    expect(definitionOfMethod("2024-11-05", "initialize")).toBe("InitializeRequest");
  });

  it("checks the envelope and the method's params, with JSON pointers", () => {
    const ok = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", arguments: {} } };
    expect(checkFrame(ok, { era: "2025-06-18", from: "client" })).toEqual([]);
    expect(checkFrame({ ...ok, params: { arguments: {} } }, { era: "2025-06-18", from: "client" })).toEqual([
      { pointer: "/params", message: "must have required property 'name'", definition: "CallToolRequest" },
    ]);
    expect(checkFrame({ ...ok, jsonrpc: "1.0" }, { era: "2024-11-05", from: "client" })).toEqual([
      { pointer: "/jsonrpc", message: 'must be equal to constant ("2.0")', definition: "CallToolRequest" },
    ]);
    // 2026-07-28: _meta with the protocol version and capabilities is required on every request.
    expect(checkFrame(ok, { era: "2026-07-28", from: "client" })).toEqual([
      { pointer: "/params", message: "must have required property '_meta'", definition: "CallToolRequest" },
    ]);
    const modern = { ...ok, params: { ...ok.params, _meta: META_2026 } };
    expect(checkFrame(modern, { era: "2026-07-28", from: "client" })).toEqual([]);
  });

  it("a method the sender does not send, one the era lacks, a request sent as a notification", () => {
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    expect(checkFrame(list, { era: "2025-06-18", from: "server" })).toEqual([
      {
        pointer: "/method",
        message: '"tools/list" is not a request a server sends in MCP 2025-06-18',
        definition: "ListToolsRequest",
      },
    ]);
    // 2026-07-28 has no server→client requests: sampling travels in inputRequests.
    const sampling = {
      jsonrpc: "2.0",
      id: 1,
      method: "sampling/createMessage",
      params: { messages: [], maxTokens: 1 },
    };
    expect(checkFrame(sampling, { era: "2026-07-28", from: "server" })[0]?.message).toBe(
      '"sampling/createMessage" is not a request a server sends in MCP 2026-07-28',
    );
    expect(
      checkFrame({ jsonrpc: "2.0", id: 1, method: "initialize" }, { era: "2026-07-28", from: "client" }),
    ).toEqual([
      {
        pointer: "/method",
        message: '"initialize" is not a method of MCP 2026-07-28',
        definition: "JSONRPCRequest",
      },
    ]);
    expect(
      checkFrame({ jsonrpc: "2.0", method: "tools/list" }, { era: "2025-06-18", from: "client" })[0]?.message,
    ).toBe('"tools/list" is not a notification in MCP 2025-06-18');
    expect(
      checkFrame(
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { era: "2024-11-05", from: "client" },
      ),
    ).toEqual([]);
  });

  it("formats are asserted: an image's data must be base64 (format byte)", () => {
    const params = {
      messages: [{ role: "user", content: { type: "image", data: "not base64!", mimeType: "image/png" } }],
      maxTokens: 1,
    };
    const found = checkFrame(
      { jsonrpc: "2.0", id: 1, method: "sampling/createMessage", params },
      { era: "2025-06-18", from: "server" },
    );
    expect(found).toEqual([
      {
        pointer: "/params/messages/0/content/data",
        message: 'must match format "byte"',
        definition: "CreateMessageRequest",
      },
    ]);
  });

  it("a failed union reports the branch the value means, not every branch", () => {
    const context = { era: "2025-11-25", from: "server" } as const;
    const content = [{ type: "text" }, { type: "video" }];
    const frame = {
      jsonrpc: "2.0",
      id: 1,
      method: "sampling/createMessage",
      params: { messages: [{ role: "user", content }], maxTokens: 1 },
    };
    expect(checkFrame(frame, context)).toEqual([
      {
        pointer: "/params/messages/0/content/0",
        message: "must have required property 'text'",
        definition: "CreateMessageRequest",
      },
      {
        pointer: "/params/messages/0/content/1/type",
        message:
          'must be equal to one of the allowed values (["text","image","audio","tool_use","tool_result"])',
        definition: "CreateMessageRequest",
      },
    ]);
    // Deep inside a tool result: an embedded resource whose uri is no URI.
    const resource = { type: "resource", resource: { uri: "no uri", text: "t" } };
    const loop = [
      { role: "user", content: { type: "text", text: "q" } },
      { role: "assistant", content: [{ type: "tool_use", id: "u", name: "t", input: {} }] },
      { role: "user", content: [{ type: "tool_result", toolUseId: "u", content: [resource] }] },
    ];
    const tools = [{ name: "t", inputSchema: { type: "object" } }];
    const request = { method: "sampling/createMessage", params: { messages: loop, maxTokens: 1, tools } };
    expect(checkDefinition("2026-07-28", "CreateMessageRequest", request)).toEqual([
      {
        pointer: "/params/messages/2/content/0/content/0/resource/uri",
        message: 'must match format "uri"',
        definition: "CreateMessageRequest",
      },
    ]);
  });
});

describe("checkFrame: responses by the method they answer", () => {
  it("2026-07-28 tools/list needs ttlMs and cacheScope (the harness once sent neither)", () => {
    const result = { resultType: "complete", tools: [PROBE_TOOL] };
    const context = { era: "2026-07-28", from: "server", answers: "tools/list" } as const;
    expect(checkFrame({ jsonrpc: "2.0", id: 1, result }, context)).toEqual([
      {
        pointer: "/result",
        message: "must have required property 'cacheScope'",
        definition: "ListToolsResultResponse",
      },
      {
        pointer: "/result",
        message: "must have required property 'ttlMs'",
        definition: "ListToolsResultResponse",
      },
    ]);
    const cacheable = { ...result, ttlMs: 0, cacheScope: "private" };
    expect(checkFrame({ jsonrpc: "2.0", id: 1, result: cacheable }, context)).toEqual([]);
    // Legacy eras have no such fields.
    const legacy = { jsonrpc: "2.0", id: 1, result: { tools: [PROBE_TOOL] } };
    expect(checkFrame(legacy, { era: "2025-11-25", from: "server", answers: "tools/list" })).toEqual([]);
  });

  it("picks the result definition of the method (EmptyResult when it has none)", () => {
    expect(resultDefinition("2025-06-18", "tools/list")).toBe("ListToolsResult");
    expect(resultDefinition("2025-06-18", "ping")).toBe("EmptyResult");
    expect(resultDefinition("2026-07-28", "server/discover")).toBe("DiscoverResult");
    expect(resultDefinition("2026-07-28", "notifications/cancelled")).toBeUndefined();
    const bad = {
      jsonrpc: "2.0",
      id: 7,
      result: { role: "assistant", content: { type: "text", text: "hi" } },
    };
    expect(checkFrame(bad, { era: "2024-11-05", from: "client", answers: "sampling/createMessage" })).toEqual(
      [
        {
          pointer: "/result",
          message: "must have required property 'model'",
          definition: "CreateMessageResult",
        },
      ],
    );
    // Without the method, only the envelope: a result must be an object.
    expect(checkFrame({ jsonrpc: "2.0", id: 7, result: 3 }, { era: "2024-11-05", from: "client" })).toEqual([
      { pointer: "/result", message: "must be object", definition: "JSONRPCResponse" },
    ]);
  });

  it("2026-07-28: a tool call may be answered with input_required, and every result says its resultType", () => {
    const context = { era: "2026-07-28", from: "server", answers: "tools/call" } as const;
    const inputRequired = {
      resultType: "input_required",
      inputRequests: { k: { method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } } },
      requestState: "s",
    };
    expect(checkFrame({ jsonrpc: "2.0", id: 1, result: inputRequired }, context)).toEqual([]);
    const noType = { jsonrpc: "2.0", id: 1, result: { content: [] } };
    expect(checkFrame(noType, context)).toContainEqual({
      pointer: "/result",
      message: "must have required property 'resultType'",
      definition: "CallToolResultResponse",
    });
  });

  it("2025-11-25: a task-augmented request is answered with CreateTaskResult", () => {
    const task = {
      taskId: "t1",
      status: "working",
      createdAt: "2025-11-25T00:00:00Z",
      lastUpdatedAt: "2025-11-25T00:00:00Z",
      ttl: null,
    };
    const context = { era: "2025-11-25", from: "client", answers: "sampling/createMessage" } as const;
    expect(checkFrame({ jsonrpc: "2.0", id: 1, result: { task } }, context)).toEqual([]);
    expect(checkFrame({ jsonrpc: "2.0", id: 1, result: { task: {} } }, context)[0]?.definition).toBe(
      "CreateTaskResult",
    );
  });

  it("errors: the envelope of the era, and the definition of the code where the era gives one", () => {
    const error = { jsonrpc: "2.0", id: 3, error: { code: -1, message: "User rejected sampling request" } };
    for (const era of ERAS) expect(checkFrame(error, { era, from: "client" }), era).toEqual([]);
    const { id: _id, ...noId } = error;
    expect(checkFrame(noId, { era: "2024-11-05", from: "client" })).toEqual([
      { pointer: "", message: "must have required property 'id'", definition: "JSONRPCError" },
    ]);
    expect(checkFrame(noId, { era: "2025-11-25", from: "client" })).toEqual([]);
    const unsupported = {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32022, message: "no", data: { supported: [] } },
    };
    expect(checkFrame(unsupported, { era: "2026-07-28", from: "server", answers: "initialize" })).toEqual([
      {
        pointer: "/error/data",
        message: "must have required property 'requested'",
        definition: "UnsupportedProtocolVersionError",
      },
    ]);
    const notFound = { jsonrpc: "2.0", id: 1, error: { code: -32601, message: 7 } };
    expect(checkFrame(notFound, { era: "2026-07-28", from: "server" })).toEqual([
      { pointer: "/error/message", message: "must be string", definition: "JSONRPCErrorResponse" },
      { pointer: "/error/message", message: "must be string", definition: "MethodNotFoundError" },
    ]);
  });

  it("batches: members checked one by one in 2025-03-26, refused elsewhere", () => {
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", id: 2, method: "nope" },
    ];
    expect(checkFrame(batch, { era: "2025-03-26", from: "client" })).toEqual([
      {
        pointer: "/1/method",
        message: '"nope" is not a method of MCP 2025-03-26',
        definition: "JSONRPCRequest",
      },
    ]);
    expect(checkFrame(batch, { era: "2025-06-18", from: "client" })).toEqual([
      { pointer: "", message: "a batch is not a message of MCP 2025-06-18", definition: "JSONRPCMessage" },
    ]);
  });
});

describe("checkDefinition and the errata", () => {
  it("checks a value against one definition (a sampling request inside inputRequests)", () => {
    const request = { method: "sampling/createMessage", params: { messages: [], maxTokens: 1.5 } };
    expect(checkDefinition("2026-07-28", "CreateMessageRequest", request)).toEqual([
      { pointer: "/params/maxTokens", message: "must be integer", definition: "CreateMessageRequest" },
    ]);
    expect(() => checkDefinition("2024-11-05", "DiscoverRequest", {})).toThrow(/defines no DiscoverRequest/);
  });

  it("2026-07-28 JSONValue takes null and fractions, as schema.ts says (schema.json alone would not)", () => {
    const request = {
      method: "sampling/createMessage",
      params: { messages: [], maxTokens: 1, metadata: { a: [1, 0.5, { b: null }], c: "x", d: true } },
    };
    expect(checkDefinition("2026-07-28", "CreateMessageRequest", request)).toEqual([]);
    expect(
      checkDefinition("2026-07-28", "CreateMessageRequest", {
        ...request,
        params: { ...request.params, metadata: 1 },
      }),
    ).toContainEqual({
      pointer: "/params/metadata",
      message: "must be object",
      definition: "CreateMessageRequest",
    });
  });
});
