// Sampling rules, per protocol era, written from the spec text (the sampling and schema pages of each revision, https://modelcontextprotocol.io/specification/<revision>/client/sampling).
// Independent of src/validator: plain functions that return the first problem found as
// { at: "messages[2].content[0]", why: "…" }, or null when the message is acceptable.
//
// Leniency policy: the schemas are open (unknown keys allowed), so only what the spec requires or
// forbids is checked; SHOULD-level advice (e.g. includeContext without sampling.context) is not refused. One
// exception: a tool_result whose structuredContent breaks its tool's outputSchema ("this SHOULD conform to that
// schema") is refused, since the answerer would otherwise reason on output the tool's own contract rules out.
// That check uses ajv (JSON Schema), the one package this relay takes from node_modules.

export const ERAS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
export const MODERN = "2026-07-28";

/** True when era `a` is `b` or later (era names sort as dates). */
export const atLeast = (a, b) => a >= b;
// Era names are ISO dates: they compare as strings (Math.min would turn them into NaN).
// biome-ignore lint/complexity/useMathMinMax: strings, not numbers
export const olderOf = (a, b) => (a <= b ? a : b);

import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";

const isObj = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const isStr = (v) => typeof v === "string";
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const isBase64 = (s) => isStr(s) && s.length % 4 === 0 && BASE64.test(s);
const ROLES = ["user", "assistant"];

class Problem extends Error {
  constructor(at, why) {
    super(why);
    this.at = at;
    this.why = why;
  }
}
const fail = (at, why) => {
  throw new Problem(at, why);
};
/** Runs a checker; turns its first thrown Problem into a returned value. */
function firstProblem(check) {
  try {
    check();
    return null;
  } catch (e) {
    if (e instanceof Problem) return { at: e.at, why: e.why };
    throw e;
  }
}

/** Which block types a SamplingMessage may hold in an era. */
function samplingBlockTypes(era) {
  const types = ["text", "image"];
  if (atLeast(era, "2025-03-26")) types.push("audio");
  if (atLeast(era, "2025-11-25")) types.push("tool_use", "tool_result");
  return types;
}

function checkAnnotations(a, at, era) {
  if (a === undefined) return;
  if (!isObj(a)) fail(at, "annotations must be an object");
  if (a.audience !== undefined) {
    if (!Array.isArray(a.audience) || !a.audience.every((r) => ROLES.includes(r)))
      fail(`${at}.audience`, "audience must list roles (user / assistant)");
  }
  if (a.priority !== undefined && !(typeof a.priority === "number" && a.priority >= 0 && a.priority <= 1))
    fail(`${at}.priority`, "priority must be a number from 0 to 1");
  if (atLeast(era, "2025-06-18") && a.lastModified !== undefined && !isStr(a.lastModified))
    fail(`${at}.lastModified`, "lastModified must be a string");
}

function checkMetaField(v, at, era) {
  if (atLeast(era, "2025-06-18") && v !== undefined && !isObj(v)) fail(at, "_meta must be an object");
}

/** text / image / audio: the media blocks shared by sampling content and tool results. */
function checkMediaBlock(b, at, era) {
  switch (b.type) {
    case "text":
      if (!isStr(b.text)) fail(at, "a text block needs a string `text`");
      break;
    case "image":
    case "audio":
      if (!isBase64(b.data)) fail(`${at}.data`, `an ${b.type} block needs base64 \`data\``);
      if (!isStr(b.mimeType)) fail(`${at}.mimeType`, `an ${b.type} block needs a string \`mimeType\``);
      break;
  }
  checkAnnotations(b.annotations, `${at}.annotations`, era);
  checkMetaField(b._meta, `${at}._meta`, era);
}

/** A ContentBlock inside a tool_result (tool output: media, resource links, embedded resources). */
function checkToolOutputBlock(b, at, era) {
  if (!isObj(b) || !isStr(b.type)) fail(at, "a content block must be an object with a `type`");
  if (["text", "image", "audio"].includes(b.type)) return checkMediaBlock(b, at, era);
  if (b.type === "resource_link") {
    if (!isStr(b.uri) || !isStr(b.name)) fail(at, "a resource_link needs string `uri` and `name`");
    return;
  }
  if (b.type === "resource") {
    const r = b.resource;
    if (!isObj(r) || !isStr(r.uri) || !(isStr(r.text) || isStr(r.blob)))
      fail(`${at}.resource`, "an embedded resource needs `uri` and `text` or `blob`");
    return;
  }
  fail(at, `"${b.type}" is not a content block type`);
}

function checkSamplingBlock(b, at, era) {
  if (!isObj(b) || !isStr(b.type)) fail(at, "a content block must be an object with a string `type`");
  if (!samplingBlockTypes(era).includes(b.type)) fail(at, `block type "${b.type}" does not exist in ${era}`);
  if (b.type === "tool_use") {
    if (!isStr(b.id)) fail(`${at}.id`, "tool_use needs a string `id`");
    if (!isStr(b.name)) fail(`${at}.name`, "tool_use needs a string `name`");
    if (!isObj(b.input)) fail(`${at}.input`, "tool_use needs an object `input`");
    checkMetaField(b._meta, `${at}._meta`, era);
  } else if (b.type === "tool_result") {
    if (!isStr(b.toolUseId)) fail(`${at}.toolUseId`, "tool_result needs a string `toolUseId`");
    if (!Array.isArray(b.content)) fail(`${at}.content`, "tool_result needs a `content` array");
    b.content.forEach((c, i) => {
      checkToolOutputBlock(c, `${at}.content[${i}]`, era);
    });
    // 2026-07-28 relaxed structuredContent to any JSON value (SEP-2106).
    if (era === "2025-11-25" && b.structuredContent !== undefined && !isObj(b.structuredContent))
      fail(`${at}.structuredContent`, "structuredContent must be an object");
    if (b.isError !== undefined && typeof b.isError !== "boolean")
      fail(`${at}.isError`, "isError must be a boolean");
    checkMetaField(b._meta, `${at}._meta`, era);
  } else {
    checkMediaBlock(b, at, era);
  }
}

/** Content of a message or result: one block, or (from 2025-11-25) an array of blocks. Returns the blocks. */
function contentBlocks(content, at, era) {
  if (content === undefined) fail(at, "`content` is required");
  if (Array.isArray(content)) {
    if (!atLeast(era, "2025-11-25")) fail(at, `content must be a single block in ${era}`);
    content.forEach((b, i) => {
      checkSamplingBlock(b, `${at}[${i}]`, era);
    });
    return content;
  }
  checkSamplingBlock(content, at, era);
  return [content];
}

function checkModelPreferences(p) {
  if (p === undefined) return;
  if (!isObj(p)) fail("modelPreferences", "modelPreferences must be an object");
  if (p.hints !== undefined) {
    if (!Array.isArray(p.hints)) fail("modelPreferences.hints", "hints must be an array");
    p.hints.forEach((h, i) => {
      if (!isObj(h) || (h.name !== undefined && !isStr(h.name)))
        fail(`modelPreferences.hints[${i}]`, "a hint is an object whose `name` is a string");
    });
  }
  for (const k of ["costPriority", "speedPriority", "intelligencePriority"]) {
    const v = p[k];
    if (v !== undefined && !(typeof v === "number" && v >= 0 && v <= 1))
      fail(`modelPreferences.${k}`, `${k} must be a number from 0 to 1`);
  }
}

function checkTools(params) {
  const { tools, toolChoice } = params;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) fail("tools", "tools must be an array");
    tools.forEach((t, i) => {
      if (!isObj(t) || !isStr(t.name)) fail(`tools[${i}]`, "a tool needs a string `name`");
      if (!isObj(t.inputSchema) || t.inputSchema.type !== "object")
        fail(`tools[${i}].inputSchema`, 'a tool needs an inputSchema of type "object"');
    });
  }
  if (toolChoice !== undefined) {
    if (!isObj(toolChoice)) fail("toolChoice", "toolChoice must be an object");
    if (toolChoice.mode !== undefined && !["auto", "required", "none"].includes(toolChoice.mode))
      fail("toolChoice.mode", "toolChoice.mode must be auto, required or none");
  }
}

/**
 * The tool loop (2025-11-25 §2.4/§2.5): a message holding tool_result holds nothing else and is a user message;
 * each assistant message with tool_use is followed at once by a user message answering exactly those ids;
 * no tool_result answers an id the message before did not use. Checked at every index, not only the last pair.
 */
function checkToolLoop(messages, blocksOf) {
  messages.forEach((m, i) => {
    const blocks = blocksOf[i];
    const results = blocks.filter((b) => b.type === "tool_result");
    const uses = blocks.filter((b) => b.type === "tool_use");
    if (results.length > 0) {
      if (results.length !== blocks.length)
        fail(`messages[${i}].content`, "a message with tool_result blocks may hold only tool_result blocks");
      if (m.role !== "user") fail(`messages[${i}].role`, "tool results travel in a user message");
      const prev = i > 0 ? blocksOf[i - 1].filter((b) => b.type === "tool_use") : [];
      if (prev.length === 0 || messages[i - 1].role !== "assistant")
        fail(`messages[${i}]`, "tool_result blocks answer no tool_use in the message before");
    }
    if (uses.length > 0) {
      if (m.role !== "assistant")
        fail(`messages[${i}].role`, "tool_use blocks belong to an assistant message");
      const next = messages[i + 1];
      if (next === undefined) fail(`messages[${i}]`, "tool_use is never answered by a tool_result");
      const nextBlocks = blocksOf[i + 1];
      if (next.role !== "user" || nextBlocks.length === 0 || nextBlocks.some((b) => b.type !== "tool_result"))
        fail(
          `messages[${i + 1}]`,
          "a tool_use must be followed by a user message of tool_result blocks only",
        );
      const used = new Set(uses.map((b) => b.id));
      const answered = new Set(nextBlocks.map((b) => b.toolUseId));
      for (const id of used)
        if (!answered.has(id))
          fail(`messages[${i + 1}]`, `tool_use ${JSON.stringify(id)} has no tool_result`);
      for (const id of answered)
        if (!used.has(id))
          fail(
            `messages[${i + 1}]`,
            `tool_result ${JSON.stringify(id)} answers no tool_use of messages[${i}]`,
          );
    }
  });
}

// JSON Schema: 2020-12 is MCP's dialect from 2025-11-25 on; draft-07 (what earlier MCP and zod-to-json-schema
// write) when the schema says so. Unknown keywords are ignored, formats are annotations, nothing is fetched.
const AJV_OPTIONS = { strict: false, logger: false, addUsedSchema: false, validateFormats: false };
const dialects = { "2020-12": null, "draft-07": null };
function schemaChecker(schema) {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  const dialect =
    declared === "" || declared.includes("2020-12")
      ? "2020-12"
      : declared.includes("draft-07")
        ? "draft-07"
        : null;
  if (dialect === null) return null; // a dialect this relay does not read: not checked
  dialects[dialect] ??= dialect === "draft-07" ? new Ajv(AJV_OPTIONS) : new Ajv2020(AJV_OPTIONS);
  const ajv = dialects[dialect];
  const { $schema, ...rest } = schema;
  try {
    return ajv.compile(rest);
  } catch {
    return null; // not a schema ajv can compile: the rule cannot be applied
  } finally {
    ajv.removeSchema(rest);
    if (JSON.stringify(rest).includes('"$id"')) dialects[dialect] = null; // its ids stay out of the next schema
  }
}

/**
 * ToolResultContent.structuredContent: "If the tool defined an outputSchema, this SHOULD conform to that schema."
 * The tool of a tool_result: the tool_use with its toolUseId in the message before (the tool loop was checked
 * first), by that tool_use's name, among params.tools.
 */
function checkStructuredContent(params, blocksOf) {
  if (!Array.isArray(params.tools)) return;
  const schemas = new Map();
  for (const t of params.tools)
    if (isObj(t) && isObj(t.outputSchema) && !schemas.has(t.name)) schemas.set(t.name, t.outputSchema);
  if (schemas.size === 0) return;
  blocksOf.forEach((blocks, i) => {
    blocks.forEach((b, j) => {
      if (b.type !== "tool_result" || b.structuredContent === undefined) return;
      const use = blocksOf[i - 1]?.find((u) => u.type === "tool_use" && u.id === b.toolUseId);
      const schema = use ? schemas.get(use.name) : undefined;
      if (schema === undefined) return;
      const check = schemaChecker(schema);
      if (check === null || check(b.structuredContent)) return;
      const e = check.errors?.[0];
      fail(
        `messages[${i}].content[${j}].structuredContent${e?.instancePath ?? ""}`,
        `structuredContent breaks the outputSchema of tool ${JSON.stringify(use.name)}: ${e?.message ?? "invalid"}`,
      );
    });
  });
}

/**
 * A sampling/createMessage params object as sent in `era`. `caps` is what the answering side declared:
 * { sampling?: { tools?: {} } }.
 */
export function requestProblem(params, era, _caps) {
  return firstProblem(() => {
    if (!isObj(params)) fail("params", "params must be an object");
    if (!Array.isArray(params.messages)) fail("messages", "`messages` must be an array");
    if (!Number.isInteger(params.maxTokens)) fail("maxTokens", "`maxTokens` must be an integer");
    const blocksOf = params.messages.map((m, i) => {
      if (!isObj(m)) fail(`messages[${i}]`, "a message must be an object");
      if (!ROLES.includes(m.role)) fail(`messages[${i}].role`, "role must be user or assistant");
      const blocks = contentBlocks(m.content, `messages[${i}].content`, era);
      checkMetaField(m._meta, `messages[${i}]._meta`, era);
      return blocks;
    });
    checkModelPreferences(params.modelPreferences);
    if (params.systemPrompt !== undefined && !isStr(params.systemPrompt))
      fail("systemPrompt", "systemPrompt must be a string");
    if (
      params.includeContext !== undefined &&
      !["none", "thisServer", "allServers"].includes(params.includeContext)
    )
      fail("includeContext", "includeContext must be none, thisServer or allServers");
    if (params.temperature !== undefined && typeof params.temperature !== "number")
      fail("temperature", "temperature must be a number");
    if (
      params.stopSequences !== undefined &&
      !(Array.isArray(params.stopSequences) && params.stopSequences.every(isStr))
    )
      fail("stopSequences", "stopSequences must be an array of strings");
    if (params.metadata !== undefined && !isObj(params.metadata))
      fail("metadata", "metadata must be an object");
    if (params._meta !== undefined && !isObj(params._meta)) fail("_meta", "_meta must be an object");
    if (atLeast(era, "2025-11-25")) {
      checkTools(params);
      checkToolLoop(params.messages, blocksOf);
      checkStructuredContent(params, blocksOf);
    }
    return null;
  });
}

/** Whether a request uses tools (tools or toolChoice present). */
export const usesTools = (params) =>
  isObj(params) && (params.tools !== undefined || params.toolChoice !== undefined);

/** Whether the answering side declared sampling / sampling.tools. */
export const declaresSampling = (caps) => isObj(caps) && isObj(caps.sampling);
export const declaresSamplingTools = (caps) => declaresSampling(caps) && isObj(caps.sampling.tools);

/**
 * What an older answering era cannot carry without changing the request (the relay never rewrites a request):
 * returns a problem when `params` (valid in the upstream's era) does not also fit `downEra`.
 */
export function untranslatable(params, downEra) {
  return firstProblem(() => {
    if (atLeast(downEra, "2025-11-25")) return;
    if (params.tools !== undefined || params.toolChoice !== undefined)
      fail("tools", `the answering side speaks ${downEra}, which has no tools in sampling`);
    params.messages.forEach((m, i) => {
      contentBlocks(m.content, `messages[${i}].content`, downEra);
    });
  });
}

/**
 * A CreateMessageResult checked in `era` and against the request it answers: the result must not use tools the
 * request did not offer (or forbade with toolChoice mode "none").
 */
export function resultProblem(result, request, era) {
  return firstProblem(() => {
    if (!isObj(result)) fail("result", "the result must be an object");
    if (!ROLES.includes(result.role)) fail("role", "the result needs a role of user or assistant");
    if (!isStr(result.model)) fail("model", "the result needs a string `model`");
    const blocks = contentBlocks(result.content, "content", era);
    if (result.stopReason !== undefined && !isStr(result.stopReason))
      fail("stopReason", "stopReason must be a string");
    if (result._meta !== undefined && !isObj(result._meta)) fail("_meta", "_meta must be an object");
    if (!atLeast(era, "2025-11-25")) return; // before tools existed "toolUse" is just a custom stop reason
    const offered = isObj(request) && Array.isArray(request.tools) && request.tools.length > 0;
    const forbidden = isObj(request?.toolChoice) && request.toolChoice.mode === "none";
    const toolUse = blocks.some((b) => b.type === "tool_use");
    if (toolUse && !offered) fail("content", "the answer uses a tool though the request offered none");
    if (toolUse && forbidden) fail("content", 'the answer uses a tool though toolChoice was "none"');
    if (toolUse && result.role !== "assistant") fail("role", "a tool_use answer must have role assistant");
    if (result.stopReason === "toolUse" && (!offered || forbidden))
      fail("stopReason", 'stopReason "toolUse" though the request allowed no tool use');
  });
}
