/**
 * The validator's findings, exactly: rule id, JSON pointer and message (E = error, W = warning) for a battery of
 * invalid and borderline requests and results in several eras, and the capability and include-context rules.
 * Every finding a relay turns into an error message reaches a person, so the wording is part of the contract;
 * these tables also pin the classification of zod issues (issues.ts) and the tool-loop pass (pairing.ts), which
 * the mutation run (npm run mutation) measures.
 */
import { describe, expect, it } from "vitest";
import { type Era, type Verdict, validateRequest, validateResult } from "../../src/validator/index.ts";

const t = (text = "hi") => ({ type: "text", text });
const msg = (role: unknown, content: unknown) => ({ role, content });
const req = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  messages,
  maxTokens: 16,
  ...extra,
});
const use = (id: unknown, name = "f") => ({ type: "tool_use", id, name, input: {} });
const res = (id: unknown, content: unknown = [t("r")]) => ({ type: "tool_result", toolUseId: id, content });
const tools = [{ name: "f", inputSchema: { type: "object" } }];
const B64 = "aGVsbG8=";
const REQUESTS: Array<[string, string, unknown, Record<string, unknown>?]> = [
  ["params null", "2025-11-25", null],
  ["params array", "2025-11-25", []],
  ["params empty", "2025-11-25", {}],
  ["messages string", "2025-11-25", { messages: "x", maxTokens: 1 }],
  ["message number", "2025-11-25", req([1])],
  ["role system", "2025-11-25", req([msg("system", t())])],
  ["role missing", "2025-11-25", req([{ content: t() }])],
  ["content missing", "2025-11-25", req([{ role: "user" }])],
  ["array content 2024", "2024-11-05", req([msg("user", [t("a"), t("b")])])],
  ["string content 2024", "2024-11-05", req([msg("user", "hello")])],
  ["string content 2025-11", "2025-11-25", req([msg("user", "hello")])],
  ["array of string", "2025-11-25", req([msg("user", ["x"])])],
  ["block type video", "2025-11-25", req([msg("user", { type: "video" })])],
  ["block type missing", "2025-11-25", req([msg("user", {})])],
  ["block type number", "2025-11-25", req([msg("user", { type: 5 })])],
  ["text missing", "2025-11-25", req([msg("user", { type: "text" })])],
  ["text number", "2025-11-25", req([msg("user", { type: "text", text: 5 })])],
  [
    "image bad base64",
    "2025-11-25",
    req([msg("user", { type: "image", data: "!!!", mimeType: "image/png" })]),
  ],
  ["image no mimeType", "2025-11-25", req([msg("user", { type: "image", data: B64 })])],
  ["audio 2024", "2024-11-05", req([msg("user", { type: "audio", data: B64, mimeType: "audio/wav" })])],
  ["tool_use 2025-06", "2025-06-18", req([msg("assistant", use("a"))])],
  ["tool_result 2025-03", "2025-03-26", req([msg("user", res("a"))])],
  [
    "tool_result no content",
    "2025-11-25",
    req([msg("assistant", use("a")), msg("user", { type: "tool_result", toolUseId: "a" })], { tools }),
  ],
  [
    "tool_result content string",
    "2025-11-25",
    req([msg("assistant", use("a")), msg("user", res("a", "x"))], { tools }),
  ],
  [
    "tool_result nested text missing",
    "2025-11-25",
    req([msg("assistant", use("a")), msg("user", res("a", [{ type: "text" }]))], { tools }),
  ],
  [
    "tool_result nested bad blob",
    "2025-11-25",
    req(
      [
        msg("assistant", use("a")),
        msg("user", res("a", [{ type: "resource", resource: { uri: "x:y", blob: "!!" } }])),
      ],
      { tools },
    ),
  ],
  [
    "tool_use input string",
    "2025-11-25",
    req([msg("assistant", { type: "tool_use", id: "a", name: "f", input: "x" }), msg("user", res("a"))], {
      tools,
    }),
  ],
  ["maxTokens string", "2025-11-25", { messages: [msg("user", t())], maxTokens: "16" }],
  ["maxTokens fraction", "2025-11-25", { messages: [msg("user", t())], maxTokens: 1.5 }],
  ["maxTokens missing 2024", "2024-11-05", { messages: [msg("user", t())] }],
  ["costPriority 2", "2025-11-25", req([msg("user", t())], { modelPreferences: { costPriority: 2 } })],
  ["costPriority -1", "2025-11-25", req([msg("user", t())], { modelPreferences: { costPriority: -1 } })],
  ["hints not array", "2025-11-25", req([msg("user", t())], { modelPreferences: { hints: "claude" } })],
  ["includeContext everything", "2025-11-25", req([msg("user", t())], { includeContext: "everything" })],
  [
    "toolChoice sometimes",
    "2025-11-25",
    req([msg("user", t())], { tools, toolChoice: { mode: "sometimes" } }),
  ],
  ["tools string", "2025-11-25", req([msg("user", t())], { tools: "x" })],
  [
    "tool without name",
    "2025-11-25",
    req([msg("user", t())], { tools: [{ inputSchema: { type: "object" } }] }),
  ],
  ["temperature string", "2025-11-25", req([msg("user", t())], { temperature: "hot" })],
  ["stopSequences numbers", "2025-11-25", req([msg("user", t())], { stopSequences: [1] })],
  ["systemPrompt long number", "2025-11-25", req([msg("user", t())], { systemPrompt: 12 })],
  ["metadata string long", "2025-11-25", req([msg("user", t())], { metadata: "x".repeat(50) })],
  ["annotations priority 5", "2025-11-25", req([msg("user", { ...t(), annotations: { priority: 5 } })])],
  ["message _meta string", "2025-11-25", req([{ ...msg("user", t()), _meta: "x" }])],
  // tool loops
  ["result without use", "2025-11-25", req([msg("user", res("a"))], { tools })],
  [
    "result in assistant",
    "2025-11-25",
    req([msg("assistant", use("a")), msg("assistant", res("a"))], { tools }),
  ],
  ["result unmatched", "2025-11-25", req([msg("assistant", use("a")), msg("user", res("b"))], { tools })],
  [
    "result twice",
    "2025-11-25",
    req([msg("assistant", use("a")), msg("user", [res("a"), res("a")])], { tools }),
  ],
  [
    "use id twice",
    "2025-11-25",
    req([msg("assistant", [use("a"), use("a")]), msg("user", res("a"))], { tools }),
  ],
  ["use in user", "2025-11-25", req([msg("user", [t(), use("a")])], { tools })],
  ["results mixed", "2025-11-25", req([msg("assistant", use("a")), msg("user", [res("a"), t()])], { tools })],
  [
    "results mixed image first",
    "2025-11-25",
    req(
      [
        msg("assistant", use("a")),
        msg("user", [{ type: "image", data: B64, mimeType: "image/png" }, res("a")]),
      ],
      { tools },
    ),
  ],
  ["trailing use", "2025-11-25", req([msg("user", t()), msg("assistant", use("a"))], { tools })],
  ["use then assistant", "2025-11-25", req([msg("assistant", use("a")), msg("assistant", t())], { tools })],
  [
    "use then role-less",
    "2025-11-25",
    req([msg("assistant", [use("a"), use("b")]), { content: [res("a")] }], { tools }),
  ],
  ["use then text user", "2025-11-25", req([msg("assistant", use("a")), msg("user", t())], { tools })],
  [
    "balanced two rounds",
    "2025-11-25",
    req(
      [
        msg("user", t()),
        msg("assistant", use("a")),
        msg("user", res("a")),
        msg("assistant", use("a")),
        msg("user", res("a")),
      ],
      { tools },
    ),
  ],
  ["use id not string", "2025-11-25", req([msg("assistant", use(5)), msg("user", t())], { tools })],
  ["result id not string", "2025-11-25", req([msg("assistant", use("a")), msg("user", res(5))], { tools })],
  [
    "results mixed with typeless",
    "2025-11-25",
    req([msg("assistant", use("a")), msg("user", [res("a"), { text: "x" }])], { tools }),
  ],
];
const CAPABILITY: Array<[string, string, unknown, unknown]> = [
  [
    "tools no cap",
    "2025-11-25",
    req([msg("user", t())], { tools, toolChoice: { mode: "auto" } }),
    { sampling: {} },
  ],
  ["tools cap declared", "2025-11-25", req([msg("user", t())], { tools }), { sampling: { tools: {} } }],
  ["tools cap null", "2025-11-25", req([msg("user", t())], { tools }), { sampling: { tools: null } }],
  ["no sampling at all", "2025-11-25", req([msg("user", t())], { tools }), {}],
  [
    "sampling not object",
    "2025-11-25",
    req([msg("user", t())], { toolChoice: { mode: "auto" } }),
    { sampling: true },
  ],
  [
    "thisServer no context",
    "2025-11-25",
    req([msg("user", t())], { includeContext: "thisServer" }),
    { sampling: {} },
  ],
  [
    "allServers context null",
    "2025-11-25",
    req([msg("user", t())], { includeContext: "allServers" }),
    { sampling: { context: null } },
  ],
  [
    "allServers with context",
    "2025-11-25",
    req([msg("user", t())], { includeContext: "allServers" }),
    { sampling: { context: {} } },
  ],
  [
    "thisServer 2026",
    "2026-07-28",
    req([msg("user", t())], { includeContext: "thisServer" }),
    { sampling: { context: {} } },
  ],
  ["none no context", "2025-11-25", req([msg("user", t())], { includeContext: "none" }), { sampling: {} }],
  ["tools 2025-06 cap irrelevant", "2025-06-18", req([msg("user", t())], { tools }), { sampling: {} }],
  [
    "thisServer caps unknown",
    "2025-11-25",
    req([msg("user", t())], { includeContext: "thisServer" }),
    undefined,
  ],
];
const ans = (over: Record<string, unknown> = {}) => ({
  role: "assistant",
  content: t("ok"),
  model: "m",
  ...over,
});
const RESULTS: Array<[string, string, unknown, unknown]> = [
  ["null", "2025-11-25", null, req([msg("user", t())])],
  ["empty", "2025-11-25", {}, req([msg("user", t())])],
  ["role system", "2025-11-25", ans({ role: "system" }), req([msg("user", t())])],
  ["model number", "2025-11-25", ans({ model: 42 }), req([msg("user", t())])],
  ["stopReason number", "2025-11-25", ans({ stopReason: 5 }), req([msg("user", t())])],
  ["array 2024", "2024-11-05", ans({ content: [t(), t()] }), req([msg("user", t())])],
  ["content string", "2025-11-25", ans({ content: "x" }), req([msg("user", t())])],
  ["meta string", "2025-11-25", ans({ _meta: "x" }), req([msg("user", t())])],
  ["tool_use 2024", "2024-11-05", ans({ content: use("a") }), req([msg("user", t())])],
  [
    "audio 2024",
    "2024-11-05",
    ans({ content: { type: "audio", data: B64, mimeType: "audio/wav" } }),
    req([msg("user", t())]),
  ],
  [
    "use without tools",
    "2025-11-25",
    ans({ content: [use("a"), use("b")], stopReason: "toolUse" }),
    req([msg("user", t())]),
  ],
  ["use with empty tools", "2025-11-25", ans({ content: use("a") }), req([msg("user", t())], { tools: [] })],
  [
    "use under none",
    "2025-11-25",
    ans({ content: use("a"), stopReason: "toolUse" }),
    req([msg("user", t())], { tools, toolChoice: { mode: "none" } }),
  ],
  ["stop toolUse only", "2025-11-25", ans({ stopReason: "toolUse" }), req([msg("user", t())])],
  [
    "use with tools ok",
    "2025-11-25",
    ans({ content: use("a"), stopReason: "toolUse" }),
    req([msg("user", t())], { tools, toolChoice: { mode: "auto" } }),
  ],
  [
    "use role user",
    "2025-11-25",
    ans({ role: "user", content: use("a") }),
    req([msg("user", t())], { tools }),
  ],
  ["dup use ids", "2025-11-25", ans({ content: [use("a"), use("a")] }), req([msg("user", t())], { tools })],
  [
    "user result mixed",
    "2025-11-25",
    ans({ role: "user", content: [res("a"), t()] }),
    req([msg("user", t())], { tools }),
  ],
  [
    "user result single",
    "2025-11-25",
    ans({ role: "user", content: res("a") }),
    req([msg("user", t())], { tools }),
  ],
  [
    "assistant result mixed",
    "2025-11-25",
    ans({ content: [t(), res("a")] }),
    req([msg("user", t())], { tools }),
  ],
  ["request unknown", "2025-11-25", ans({ content: use("a"), stopReason: "toolUse" }), undefined],
  ["request not object", "2025-11-25", ans({ stopReason: "toolUse" }), "x"],
  ["stop toolUse 2025-06", "2025-06-18", ans({ stopReason: "toolUse" }), req([msg("user", t())])],
  ["use id number", "2025-11-25", ans({ content: [use(1), use(1)] }), req([msg("user", t())], { tools })],
];

type Row = [string, string, string, string];
const show = (v: Verdict): Row[] => [
  ...v.errors.map((f): Row => ["E", f.rule, f.pointer, f.message]),
  ...v.warnings.map((f): Row => ["W", f.rule, f.pointer, f.message]),
];

const EXPECTED: Record<"requests" | "capability" | "results", Record<string, Row[]>> = {
  requests: {
    "params null": [["E", "request.params", "", "params must be a JSON object, got null"]],
    "params array": [["E", "request.params", "", "params must be a JSON object, got an array"]],
    "params empty": [
      ["E", "request.messages", "/messages", "messages is required"],
      ["E", "request.max-tokens", "/maxTokens", "maxTokens is required"],
    ],
    "messages string": [["E", "request.messages", "/messages", 'messages must be an array, got "x"']],
    "message number": [
      ["E", "request.messages", "/messages/0", "a message must be a JSON object, got number 1"],
    ],
    "role system": [
      ["E", "message.role", "/messages/0/role", 'role must be "user" or "assistant", got "system"'],
    ],
    "role missing": [["E", "message.role", "/messages/0/role", "role is required"]],
    "content missing": [["E", "message.content", "/messages/0/content", "content is required"]],
    "array content 2024": [
      [
        "E",
        "content.array-before-2025-11-25",
        "/messages/0/content",
        "content is an array of 2 block(s); 2024-11-05 allows a single content block",
      ],
    ],
    "string content 2024": [
      ["E", "message.content", "/messages/0/content", 'content must be a content block, got "hello"'],
    ],
    "string content 2025-11": [
      [
        "E",
        "message.content",
        "/messages/0/content",
        'content must be a content block or an array of content blocks, got "hello"',
      ],
    ],
    "array of string": [
      ["E", "content.block-shape", "/messages/0/content/0", 'a content block must be a JSON object, got "x"'],
    ],
    "block type video": [
      [
        "E",
        "content.block-type",
        "/messages/0/content/type",
        'content block type "video" is not allowed here (allowed: "text", "image", "audio", "tool_use", "tool_result")',
      ],
    ],
    "block type missing": [
      [
        "E",
        "content.block-type",
        "/messages/0/content/type",
        'content block type is required (one of "text", "image", "audio", "tool_use", "tool_result")',
      ],
    ],
    "block type number": [
      [
        "E",
        "content.block-type",
        "/messages/0/content/type",
        'content block type number 5 is not allowed here (allowed: "text", "image", "audio", "tool_use", "tool_result")',
      ],
    ],
    "text missing": [["E", "content.block-shape", "/messages/0/content/text", "text is required"]],
    "text number": [
      ["E", "content.block-shape", "/messages/0/content/text", "text must be a string, got number 5"],
    ],
    "image bad base64": [
      [
        "E",
        "content.base64",
        "/messages/0/content/data",
        'data of "image" content is not RFC 4648 base64 (3 characters)',
      ],
    ],
    "image no mimeType": [
      ["E", "content.block-shape", "/messages/0/content/mimeType", "mimeType is required"],
    ],
    "audio 2024": [
      [
        "E",
        "content.audio-before-2025-03-26",
        "/messages/0/content/type",
        "audio content does not exist in 2024-11-05",
      ],
    ],
    "tool_use 2025-06": [
      [
        "E",
        "content.tool-blocks-before-2025-11-25",
        "/messages/0/content/type",
        "tool_use content does not exist in 2025-06-18 (it arrived in 2025-11-25)",
      ],
    ],
    "tool_result 2025-03": [
      [
        "E",
        "content.tool-blocks-before-2025-11-25",
        "/messages/0/content/type",
        "tool_result content does not exist in 2025-03-26 (it arrived in 2025-11-25)",
      ],
    ],
    "tool_result no content": [
      [
        "E",
        "content.tool-result-content",
        "/messages/1/content/content",
        "tool_result content is required (an array of content blocks; [] when empty)",
      ],
    ],
    "tool_result content string": [
      [
        "E",
        "content.tool-result-content",
        "/messages/1/content/content",
        'tool_result content must be an array of content blocks, got "x"',
      ],
    ],
    "tool_result nested text missing": [
      ["E", "content.block-shape", "/messages/1/content/content/0/text", "text is required"],
    ],
    "tool_result nested bad blob": [
      [
        "E",
        "content.base64",
        "/messages/1/content/content/0/resource/blob",
        'blob of "resource" content is not RFC 4648 base64 (2 characters)',
      ],
    ],
    "tool_use input string": [
      ["E", "content.block-shape", "/messages/0/content/input", 'input: expected a JSON object, got "x"'],
    ],
    "maxTokens string": [["E", "request.max-tokens", "/maxTokens", 'maxTokens must be a number, got "16"']],
    "maxTokens fraction": [
      ["E", "request.max-tokens", "/maxTokens", "maxTokens: expected an integer, got number 1.5"],
    ],
    "maxTokens missing 2024": [["E", "request.max-tokens", "/maxTokens", "maxTokens is required"]],
    "costPriority 2": [
      [
        "E",
        "request.model-preferences",
        "/modelPreferences/costPriority",
        "costPriority must be at most 1, got number 2",
      ],
    ],
    "costPriority -1": [
      [
        "E",
        "request.model-preferences",
        "/modelPreferences/costPriority",
        "costPriority must be at least 0, got number -1",
      ],
    ],
    "hints not array": [
      ["E", "request.model-preferences", "/modelPreferences/hints", 'hints must be an array, got "claude"'],
    ],
    "includeContext everything": [
      [
        "E",
        "request.include-context",
        "/includeContext",
        'includeContext must be "none" or "thisServer" or "allServers", got "everything"',
      ],
    ],
    "toolChoice sometimes": [
      [
        "E",
        "request.tool-choice",
        "/toolChoice/mode",
        'mode must be "auto" or "required" or "none", got "sometimes"',
      ],
    ],
    "tools string": [["E", "request.tools", "/tools", 'tools must be an array, got "x"']],
    "tool without name": [["E", "request.tools", "/tools/0/name", "name is required"]],
    "temperature string": [
      ["E", "request.field-type", "/temperature", 'temperature must be a number, got "hot"'],
    ],
    "stopSequences numbers": [
      ["E", "request.field-type", "/stopSequences/0", "item 0 must be a string, got number 1"],
    ],
    "systemPrompt long number": [
      ["E", "request.field-type", "/systemPrompt", "systemPrompt must be a string, got number 12"],
    ],
    "metadata string long": [
      [
        "E",
        "request.field-type",
        "/metadata",
        "metadata: expected a JSON object, got a string of 50 characters",
      ],
    ],
    "annotations priority 5": [
      [
        "E",
        "content.block-shape",
        "/messages/0/content/annotations/priority",
        "priority must be at most 1, got number 5",
      ],
    ],
    "message _meta string": [
      ["E", "request.field-type", "/messages/0/_meta", '_meta: expected a JSON object, got "x"'],
    ],
    "result without use": [
      [
        "E",
        "message.tool-result-unmatched",
        "/messages/0/content/toolUseId",
        'tool_result "a" does not follow an assistant message with tool_use blocks',
      ],
    ],
    "result in assistant": [
      [
        "E",
        "message.tool-result-unmatched",
        "/messages/1/content/toolUseId",
        'tool_result "a" is in a "assistant" message; results go in the user message that follows the tool_use',
      ],
      [
        "E",
        "message.tool-result-missing",
        "/messages/0/content",
        'tool_use "a" is followed by a "assistant" message (/messages/1), not by a user message of tool_results',
      ],
    ],
    "result unmatched": [
      [
        "E",
        "message.tool-result-unmatched",
        "/messages/1/content/toolUseId",
        'tool_result "b" matches no tool_use of the previous message (/messages/0)',
      ],
      [
        "E",
        "message.tool-result-missing",
        "/messages/0/content",
        'tool_use "a" has no tool_result in the next message (/messages/1)',
      ],
    ],
    "result twice": [
      [
        "E",
        "message.duplicate-tool-id",
        "/messages/1/content/1/toolUseId",
        'a second tool_result answers tool_use "a"',
      ],
    ],
    "use id twice": [
      [
        "E",
        "message.duplicate-tool-id",
        "/messages/0/content/1/id",
        'tool_use id "a" repeats block 0 of the same message',
      ],
    ],
    "use in user": [
      [
        "W",
        "message.tool-use-role",
        "/messages/0/content/1",
        "tool_use in a user message: tool use requests come from the assistant",
      ],
    ],
    "results mixed": [
      [
        "E",
        "message.tool-result-only",
        "/messages/1/content/1",
        'a user message with tool_result blocks holds a "text" block too; it must hold only tool_results',
      ],
    ],
    "results mixed image first": [
      [
        "E",
        "message.tool-result-only",
        "/messages/1/content/0",
        'a user message with tool_result blocks holds a "image" block too; it must hold only tool_results',
      ],
    ],
    "trailing use": [
      [
        "E",
        "message.tool-result-missing",
        "/messages/1/content",
        'tool_use "a" is not answered: the request ends with this assistant message',
      ],
    ],
    "use then assistant": [
      [
        "E",
        "message.tool-result-missing",
        "/messages/0/content",
        'tool_use "a" is followed by a "assistant" message (/messages/1), not by a user message of tool_results',
      ],
    ],
    "use then role-less": [
      ["E", "message.role", "/messages/1/role", "role is required"],
      [
        "E",
        "message.tool-result-unmatched",
        "/messages/1/content/0/toolUseId",
        'tool_result "a" is in a role-less message; results go in the user message that follows the tool_use',
      ],
      [
        "E",
        "message.tool-result-missing",
        "/messages/0/content/0",
        'tool_use "a" is followed by a role-less message (/messages/1), not by a user message of tool_results',
      ],
      [
        "E",
        "message.tool-result-missing",
        "/messages/0/content/1",
        'tool_use "b" is followed by a role-less message (/messages/1), not by a user message of tool_results',
      ],
    ],
    "use then text user": [
      [
        "E",
        "message.tool-result-missing",
        "/messages/0/content",
        'tool_use "a" has no tool_result in the next message (/messages/1)',
      ],
    ],
    "balanced two rounds": [],
    "use id not string": [
      ["E", "content.block-shape", "/messages/0/content/id", "id must be a string, got number 5"],
    ],
    "result id not string": [
      [
        "E",
        "content.block-shape",
        "/messages/1/content/toolUseId",
        "toolUseId must be a string, got number 5",
      ],
      [
        "E",
        "message.tool-result-missing",
        "/messages/0/content",
        'tool_use "a" has no tool_result in the next message (/messages/1)',
      ],
    ],
    "results mixed with typeless": [
      [
        "E",
        "content.block-type",
        "/messages/1/content/1/type",
        'content block type is required (one of "text", "image", "audio", "tool_use", "tool_result")',
      ],
      [
        "E",
        "message.tool-result-only",
        "/messages/1/content/1",
        "a user message with tool_result blocks holds a non-tool_result block too; it must hold only tool_results",
      ],
    ],
  },
  capability: {
    "tools no cap": [
      [
        "E",
        "request.tools-capability",
        "/tools",
        "tools is present but the client did not declare the sampling.tools capability",
      ],
      [
        "E",
        "request.tools-capability",
        "/toolChoice",
        "toolChoice is present but the client did not declare the sampling.tools capability",
      ],
    ],
    "tools cap declared": [],
    "tools cap null": [
      [
        "E",
        "request.tools-capability",
        "/tools",
        "tools is present but the client did not declare the sampling.tools capability",
      ],
    ],
    "no sampling at all": [
      [
        "E",
        "request.tools-capability",
        "/tools",
        "tools is present but the client did not declare the sampling.tools capability",
      ],
    ],
    "sampling not object": [
      [
        "E",
        "request.tools-capability",
        "/toolChoice",
        "toolChoice is present but the client did not declare the sampling.tools capability",
      ],
    ],
    "thisServer no context": [
      [
        "W",
        "request.include-context-capability",
        "/includeContext",
        'includeContext "thisServer" without the client\'s sampling.context capability',
      ],
      [
        "W",
        "request.include-context-deprecated",
        "/includeContext",
        'includeContext "thisServer" is soft-deprecated; omit it or use "none"',
      ],
    ],
    "allServers context null": [
      [
        "W",
        "request.include-context-capability",
        "/includeContext",
        'includeContext "allServers" without the client\'s sampling.context capability',
      ],
      [
        "W",
        "request.include-context-deprecated",
        "/includeContext",
        'includeContext "allServers" is soft-deprecated; omit it or use "none"',
      ],
    ],
    "allServers with context": [
      [
        "W",
        "request.include-context-deprecated",
        "/includeContext",
        'includeContext "allServers" is soft-deprecated; omit it or use "none"',
      ],
    ],
    "thisServer 2026": [
      [
        "W",
        "request.include-context-deprecated",
        "/includeContext",
        'includeContext "thisServer" is deprecated (SEP-2596); omit it or use "none"',
      ],
    ],
    "none no context": [],
    "tools 2025-06 cap irrelevant": [],
    "thisServer caps unknown": [
      [
        "W",
        "request.include-context-deprecated",
        "/includeContext",
        'includeContext "thisServer" is soft-deprecated; omit it or use "none"',
      ],
    ],
  },
  results: {
    null: [["E", "result.shape", "", "the result must be a JSON object, got null"]],
    empty: [
      ["E", "result.role", "/role", "role is required"],
      ["E", "result.content", "/content", "content is required"],
      ["E", "result.model", "/model", "model is required"],
    ],
    "role system": [["E", "result.role", "/role", 'role must be "user" or "assistant", got "system"']],
    "model number": [["E", "result.model", "/model", "model must be a string, got number 42"]],
    "stopReason number": [
      ["E", "result.stop-reason", "/stopReason", "stopReason must be a string, got number 5"],
    ],
    "array 2024": [
      [
        "E",
        "content.array-before-2025-11-25",
        "/content",
        "content is an array of 2 block(s); 2024-11-05 allows a single content block",
      ],
    ],
    "content string": [
      [
        "E",
        "result.content",
        "/content",
        'content must be a content block or an array of content blocks, got "x"',
      ],
    ],
    "meta string": [["E", "result.field-type", "/_meta", '_meta: expected a JSON object, got "x"']],
    "tool_use 2024": [
      [
        "E",
        "content.tool-blocks-before-2025-11-25",
        "/content/type",
        "tool_use content does not exist in 2024-11-05 (it arrived in 2025-11-25)",
      ],
    ],
    "audio 2024": [
      ["E", "content.audio-before-2025-03-26", "/content/type", "audio content does not exist in 2024-11-05"],
    ],
    "use without tools": [
      [
        "E",
        "result.tool-use-without-tools",
        "/content/0",
        "the result holds 2 tool_use block(s) but the request offered no tools",
      ],
      [
        "E",
        "result.tool-use-without-tools",
        "/stopReason",
        'stopReason is "toolUse" but the request offered no tools',
      ],
    ],
    "use with empty tools": [
      [
        "E",
        "result.tool-use-without-tools",
        "/content",
        "the result holds 1 tool_use block(s) but the request offered no tools",
      ],
    ],
    "use under none": [
      [
        "E",
        "result.tool-use-with-tool-choice-none",
        "/content",
        'the result holds 1 tool_use block(s) but the request set toolChoice.mode "none"',
      ],
      [
        "E",
        "result.tool-use-with-tool-choice-none",
        "/stopReason",
        'stopReason is "toolUse" but the request set toolChoice.mode "none"',
      ],
    ],
    "stop toolUse only": [
      [
        "E",
        "result.tool-use-without-tools",
        "/stopReason",
        'stopReason is "toolUse" but the request offered no tools',
      ],
    ],
    "use with tools ok": [],
    "use role user": [
      [
        "W",
        "result.tool-use-role",
        "/role",
        'a result carrying tool_use should have role "assistant", not "user"',
      ],
    ],
    "dup use ids": [
      ["E", "message.duplicate-tool-id", "/content/1/id", 'tool_use id "a" appears twice in the result'],
    ],
    "user result mixed": [
      [
        "E",
        "message.tool-result-only",
        "/content/1",
        "a user-role result with tool_result blocks holds other blocks too; it must hold only tool_results",
      ],
    ],
    "user result single": [],
    "assistant result mixed": [],
    "request unknown": [],
    "request not object": [
      [
        "E",
        "result.tool-use-without-tools",
        "/stopReason",
        'stopReason is "toolUse" but the request offered no tools',
      ],
    ],
    "stop toolUse 2025-06": [],
    "use id number": [
      ["E", "content.block-shape", "/content/0/id", "id must be a string, got number 1"],
      ["E", "content.block-shape", "/content/1/id", "id must be a string, got number 1"],
    ],
  },
};

describe("validator findings, exactly", () => {
  it.each(REQUESTS)("request: %s (%s)", (name, era, input) => {
    expect(show(validateRequest(input, { era: era as Era }))).toEqual(EXPECTED.requests[name]);
  });
  it.each(CAPABILITY)("capabilities: %s (%s)", (name, era, input, caps) => {
    const ctx = caps === undefined ? { era: era as Era } : { era: era as Era, capabilities: caps as never };
    expect(show(validateRequest(input, ctx))).toEqual(EXPECTED.capability[name]);
  });
  it.each(RESULTS)("result: %s (%s)", (name, era, input, request) => {
    expect(show(validateResult(input, { era: era as Era, request }))).toEqual(EXPECTED.results[name]);
  });
  it("codes: -32602 for request errors, -32603 for result errors, none for warnings", () => {
    for (const [, era, input] of REQUESTS) {
      const v = validateRequest(input, { era: era as Era });
      for (const f of v.errors) expect(f.code).toBe(-32602);
      for (const f of v.warnings) expect(f.code).toBeNull();
      expect(v.legal).toBe(v.errors.length === 0);
      expect(v.code).toBe(v.errors.length ? -32602 : null);
    }
    for (const [, era, input, request] of RESULTS) {
      const v = validateResult(input, { era: era as Era, request });
      for (const f of v.errors) expect(f.code).toBe(-32603);
      expect(v.code).toBe(v.errors.length ? -32603 : null);
    }
  });
});
