/**
 * Allocation-free structural pre-check mirroring the era zod schemas (schemas.ts) exactly: `true` means the
 * zod schema would accept the value, so the validator skips zod on the common (legal) path; `false` sends the
 * value through zod, whose issues then become findings. zod stays the authority: a `false` here that zod
 * accepts costs time, never a wrong verdict. The mirror is kept honest by a differential property test
 * (test/validator/fast.test.ts) over legal values and random single mutations of them, in every era.
 *
 * Any change to schemas.ts must be mirrored here (the differential test fails otherwise).
 */
import type { EraFeatures } from "./schemas.ts";
import { isBase64, isJsonObject, TASK_SUPPORT } from "./schemas.ts";

type Obj = Record<string, unknown>;

const isStr = (v: unknown): v is string => typeof v === "string";
const optStr = (v: unknown): boolean => v === undefined || typeof v === "string";
const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const optNum = (v: unknown): boolean => v === undefined || isNum(v);
const optInt = (v: unknown): boolean => v === undefined || (isNum(v) && Number.isInteger(v));
const optObj = (v: unknown): boolean => v === undefined || isJsonObject(v);
const optBool = (v: unknown): boolean => v === undefined || typeof v === "boolean";
const optUnit = (v: unknown): boolean => v === undefined || (isNum(v) && v >= 0 && v <= 1);
const isRole = (v: unknown): boolean => v === "user" || v === "assistant";
const isB64 = (v: unknown): boolean => typeof v === "string" && isBase64(v);

function optStrArray(v: unknown): boolean {
  if (v === undefined) return true;
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== "string") return false;
  return true;
}

function annotationsOk(v: unknown, f: EraFeatures): boolean {
  if (v === undefined) return true;
  if (!isJsonObject(v)) return false;
  const aud = v.audience;
  if (aud !== undefined) {
    if (!Array.isArray(aud)) return false;
    for (let i = 0; i < aud.length; i++) if (!isRole(aud[i])) return false;
  }
  return optUnit(v.priority) && (!f.blockMeta || optStr(v.lastModified));
}

/** text / image / audio, shared by sampling blocks and ContentBlock. */
function mediaOk(b: Obj, type: unknown, f: EraFeatures): boolean {
  if (type === "text") {
    if (!isStr(b.text)) return false;
  } else if (type === "image" || (type === "audio" && f.audio)) {
    if (!isB64(b.data) || !isStr(b.mimeType)) return false;
  } else {
    return false;
  }
  return annotationsOk(b.annotations, f) && (!f.blockMeta || optObj(b._meta));
}

/** A ContentBlock inside tool_result.content (2025-11-25+). */
function contentBlockOk(b: unknown, f: EraFeatures): boolean {
  if (!isJsonObject(b)) return false;
  const type = b.type;
  if (type === "resource_link") {
    return (
      isStr(b.uri) &&
      isStr(b.name) &&
      optStr(b.title) &&
      optStr(b.description) &&
      optStr(b.mimeType) &&
      optInt(b.size) &&
      iconsOk(b.icons) &&
      annotationsOk(b.annotations, f) &&
      optObj(b._meta)
    );
  }
  if (type === "resource") {
    const r = b.resource;
    if (!isJsonObject(r) || !isStr(r.uri) || !optStr(r.mimeType) || !optObj(r._meta)) return false;
    if (!isStr(r.text) && !isB64(r.blob)) return false;
    return annotationsOk(b.annotations, f) && optObj(b._meta);
  }
  return mediaOk(b, type, f);
}

function samplingBlockOk(b: unknown, f: EraFeatures): boolean {
  if (!isJsonObject(b)) return false;
  const type = b.type;
  if (f.tools) {
    if (type === "tool_use") {
      return isStr(b.id) && isStr(b.name) && isJsonObject(b.input) && optObj(b._meta);
    }
    if (type === "tool_result") {
      const c = b.content;
      if (!isStr(b.toolUseId) || !Array.isArray(c)) return false;
      for (let i = 0; i < c.length; i++) if (!contentBlockOk(c[i], f)) return false;
      if (!f.anyStructuredContent && !optObj(b.structuredContent)) return false;
      return (b.isError === undefined || typeof b.isError === "boolean") && optObj(b._meta);
    }
  }
  return mediaOk(b, type, f);
}

function samplingContentOk(c: unknown, f: EraFeatures): boolean {
  if (f.tools && Array.isArray(c)) {
    for (let i = 0; i < c.length; i++) if (!samplingBlockOk(c[i], f)) return false;
    return true;
  }
  return samplingBlockOk(c, f);
}

/** Tool.icons and ResourceLink.icons (2025-11-25+). */
function iconsOk(v: unknown): boolean {
  if (v === undefined) return true;
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) {
    const icon = v[i];
    if (!isJsonObject(icon) || !isStr(icon.src) || !optStr(icon.mimeType) || !optStrArray(icon.sizes))
      return false;
    if (icon.theme !== undefined && icon.theme !== "light" && icon.theme !== "dark") return false;
  }
  return true;
}

/** An inputSchema (and, in 2025-11-25, an outputSchema): type "object"; each property's schema an object. */
function objectSchemaOk(s: unknown, f: EraFeatures): boolean {
  if (!isJsonObject(s) || s.type !== "object" || !optObj(s.properties) || !optStrArray(s.required))
    return false;
  return f.mrtr || !isJsonObject(s.properties) || Object.values(s.properties).every(isJsonObject);
}

function toolAnnotationsOk(v: unknown): boolean {
  if (v === undefined) return true;
  if (!isJsonObject(v) || !optStr(v.title)) return false;
  return (
    optBool(v.readOnlyHint) &&
    optBool(v.destructiveHint) &&
    optBool(v.idempotentHint) &&
    optBool(v.openWorldHint)
  );
}

function toolOk(t: unknown, f: EraFeatures): boolean {
  if (!isJsonObject(t) || !isStr(t.name) || !optStr(t.title) || !optStr(t.description)) return false;
  if (!objectSchemaOk(t.inputSchema, f)) return false;
  const o = t.outputSchema;
  // 2026-07-28: an outputSchema is any JSON Schema object (structuredContent may be any JSON value).
  if (o !== undefined && !(f.mrtr ? isJsonObject(o) && optStr(o.$schema) : objectSchemaOk(o, f)))
    return false;
  const x = t.execution;
  if (f.task && x !== undefined) {
    if (!isJsonObject(x)) return false;
    if (x.taskSupport !== undefined && !(TASK_SUPPORT as readonly unknown[]).includes(x.taskSupport))
      return false;
  }
  return toolAnnotationsOk(t.annotations) && iconsOk(t.icons) && optObj(t._meta);
}

function modelPreferencesOk(v: unknown): boolean {
  if (v === undefined) return true;
  if (!isJsonObject(v)) return false;
  const hints = v.hints;
  if (hints !== undefined) {
    if (!Array.isArray(hints)) return false;
    for (let i = 0; i < hints.length; i++) {
      const h = hints[i];
      if (!isJsonObject(h) || !optStr(h.name)) return false;
    }
  }
  return optUnit(v.costPriority) && optUnit(v.speedPriority) && optUnit(v.intelligencePriority);
}

/** Sees each message right after it passed, while it is still in cache (the validator's tool-loop pass). */
export interface MessageVisitor {
  visit(message: unknown, index: number): void;
}

/**
 * True when `createMessageRequestParams` of the era would accept `p`. `each`, if given, visits messages 0, 1, 2…
 * in order as they pass; a `false` may come after some or all of them were visited.
 */
export function requestParamsOk(p: unknown, f: EraFeatures, each?: MessageVisitor): boolean {
  if (!isJsonObject(p)) return false;
  const ms = p.messages;
  if (!Array.isArray(ms)) return false;
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i];
    if (!isJsonObject(m) || !isRole(m.role) || !samplingContentOk(m.content, f)) return false;
    if (f.tools && !optObj(m._meta)) return false;
    each?.visit(m, i);
  }
  if (!isNum(p.maxTokens) || !Number.isInteger(p.maxTokens)) return false;
  if (!modelPreferencesOk(p.modelPreferences)) return false;
  if (
    !optStr(p.systemPrompt) ||
    !optNum(p.temperature) ||
    !optStrArray(p.stopSequences) ||
    !optObj(p.metadata)
  ) {
    return false;
  }
  const ic = p.includeContext;
  if (ic !== undefined && ic !== "none" && ic !== "thisServer" && ic !== "allServers") return false;
  if (f.paramsMeta && p._meta !== undefined) {
    const meta = p._meta;
    if (!isJsonObject(meta)) return false;
    const tok = meta.progressToken;
    if (tok !== undefined && !isStr(tok) && !(isNum(tok) && Number.isInteger(tok))) return false;
  }
  if (f.task && p.task !== undefined && (!isJsonObject(p.task) || !optInt(p.task.ttl))) return false;
  if (f.tools) {
    const tools = p.tools;
    if (tools !== undefined) {
      if (!Array.isArray(tools)) return false;
      for (let i = 0; i < tools.length; i++) if (!toolOk(tools[i], f)) return false;
    }
    const tc = p.toolChoice;
    if (tc !== undefined) {
      if (!isJsonObject(tc)) return false;
      const mode = tc.mode;
      if (mode !== undefined && mode !== "auto" && mode !== "required" && mode !== "none") return false;
    }
  }
  return true;
}

/** True when `createMessageResult` of the era would accept `r`. */
export function resultOk(r: unknown, f: EraFeatures): boolean {
  return (
    isJsonObject(r) &&
    isRole(r.role) &&
    samplingContentOk(r.content, f) &&
    isStr(r.model) &&
    optStr(r.stopReason) &&
    optObj(r._meta)
  );
}
