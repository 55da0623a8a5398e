/**
 * The official JSON Schema of each MCP revision (vendored verbatim under ./schema/, with provenance.json) as an
 * oracle on single wire frames. It is independent of the reference validator (src/validator) on purpose: the harness
 * checks its own frames with it (test/harness/self-conformance.e2e.test.ts), the run records what it says about the
 * relay's frames in the evidence, and a property test checks that the reference validator is at least as strict on
 * sampling requests and results.
 *
 * A request or notification is checked against the definition whose `method` const matches (`ListToolsRequest`),
 * inside the JSON-RPC envelope of the revision, and must be one the sender sends in that revision (`ClientRequest`,
 * `ServerNotification`, …). A response is checked against the result of the method it answers, which the caller
 * names (`<X>Result`, or the revision's `<X>ResultResponse` where it has one), or the JSON-RPC error shape (plus the
 * revision's definition for that error code, if any). Each file is read once, when its revision is first used;
 * validators are compiled (ajv, the draft the file declares) on first use and cached.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import formats from "ajv-formats";
import type { Era } from "./eras.ts";

/** Who sent a frame. */
export type Sender = "client" | "server";

export interface FrameContext {
  /** The revision the sender speaks. */
  era: Era;
  from: Sender;
  /** A response: the method of the request it answers (without it, only the JSON-RPC envelope is checked). */
  answers?: string;
}

export interface SchemaFinding {
  /** JSON pointer into the frame. */
  pointer: string;
  message: string;
  /** The revision's definition the frame was checked against (e.g. `ListToolsResult`, `JSONRPCRequest`). */
  definition: string;
}

/** Where the vendored files came from (./schema/provenance.json). */
export interface SchemaProvenance {
  source: string;
  commit: string;
  commitDate: string;
  revisions: Record<Era, { path: string; url: string; spec: string; dialect: string; sha256: string }>;
}

/** At most this many findings per frame: an anyOf that fails reports every branch, which says nothing more. */
const MAX_FINDINGS = 20;

/** A revision's definitions (`definitions` or `$defs`), by name. */
export type Definitions = Record<string, Record<string, any>>;

interface Revision {
  era: Era;
  ajv: Ajv;
  /** `definitions` (draft-07) or `$defs` (2020-12), as the file has it. */
  defsKey: string;
  defs: Definitions;
  /** Request and notification definitions by method. */
  byMethod: Map<string, string>;
  /** Methods each side sends, from the ClientRequest / ServerRequest / …Notification unions. */
  sends: Record<Sender, Set<string>>;
  compiled: Map<string, ValidateFunction>;
  /** The definition of each error code met so far (see errorDefinition). */
  errorCodes: Map<number, { name: string; whole: boolean } | undefined>;
}

/**
 * Where a vendored schema.json says less than its revision's schema.ts, the spec's source of truth (schema.json is
 * generated from it): the oracle follows schema.ts there. Each erratum patches the parsed schema (the file stays
 * verbatim) and says whether it found what it fixes; a test fails once a newer schema.json no longer needs it.
 */
export const SCHEMA_ERRATA: ReadonlyArray<{
  era: Era;
  definition: string;
  why: string;
  apply: (defs: Definitions) => boolean;
}> = [
  {
    era: "2026-07-28",
    definition: "JSONValue",
    why: "schema.ts has `JSONValue = string | number | boolean | null | JSONObject | JSONArray`; schema.json's primitive branch reads integer for number and leaves out null, so `metadata: {a: null}` or `{a: 0.5}` would break it",
    apply: (defs) => {
      const branches: Array<Record<string, unknown>> = defs.JSONValue?.anyOf ?? [];
      const primitive = branches.find((b) => JSON.stringify(b.type) === '["string","integer","boolean"]');
      if (primitive) primitive.type = ["string", "number", "boolean", "null"];
      return primitive !== undefined;
    },
  },
];

let folder: string | undefined;
let provenance: SchemaProvenance | undefined;
const revisions = new Map<Era, Revision>();

/**
 * The folder of the vendored files: next to this module in a clone, or `src/protocol/schema/` under the package
 * root when this module runs bundled (dist/chunks/…), found by walking up.
 */
function schemaFolder(): string {
  if (folder) return folder;
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    for (const candidate of [join(dir, "schema"), join(dir, "src/protocol/schema")]) {
      try {
        readFileSync(join(candidate, "provenance.json"));
        folder = candidate;
        return candidate;
      } catch {
        // not here: look further up
      }
    }
    if (dirname(dir) === dir) throw new Error(`the vendored MCP schemas are not found above ${here}`);
  }
}

export function schemaProvenance(): SchemaProvenance {
  provenance ??= JSON.parse(readFileSync(join(schemaFolder(), "provenance.json"), "utf8"));
  return provenance!;
}

/** The methods of a union definition (`anyOf` of `$ref`s, or a single definition as 2026-07-28's ClientNotification). */
function unionMethods(defs: Definitions, name: string): string[] {
  const def = defs[name];
  if (!def) return [];
  const members: Array<Record<string, any>> = Array.isArray(def.anyOf)
    ? def.anyOf.map((r: { $ref: string }) => defs[r.$ref.split("/").pop()!] ?? {})
    : [def];
  return members.map((m) => m.properties?.method?.const).filter((m): m is string => typeof m === "string");
}

function revision(era: Era): Revision {
  const known = revisions.get(era);
  if (known) return known;
  const schema = JSON.parse(readFileSync(join(schemaFolder(), `${era}.json`), "utf8"));
  const defsKey = schema.$defs ? "$defs" : "definitions";
  const defs: Definitions = schema[defsKey];
  for (const erratum of SCHEMA_ERRATA) if (erratum.era === era) erratum.apply(defs);
  // The draft the file declares. Compiling is most of this oracle's cost in a run: the files are not checked against
  // their meta-schema here (a test does that once) nor linted (ajv's strict mode: they are the spec's, not ours), each
  // definition is compiled once and shared by reference, and ajv's code is not optimised.
  const options = {
    allErrors: true,
    strict: false,
    validateSchema: false,
    inlineRefs: false,
    // Errors carry their schema: a failed union's branches are read from it (explain).
    verbose: true,
    code: { optimize: false },
  };
  const ajv = String(schema.$schema).includes("2020-12") ? new Ajv2020(options) : new Ajv(options);
  formats.default(ajv, ["byte", "uri", "uri-template"]);
  ajv.addSchema(schema, era);
  const byMethod = new Map<string, string>();
  for (const [name, def] of Object.entries(defs)) {
    const method = def.properties?.method?.const;
    // Unions that happen to have one member (ClientNotification) name no method of their own.
    if (typeof method === "string" && /(Request|Notification)$/.test(name) && !/^(Client|Server)/.test(name))
      byMethod.set(method, name);
  }
  const sends = {
    client: new Set([...unionMethods(defs, "ClientRequest"), ...unionMethods(defs, "ClientNotification")]),
    server: new Set([...unionMethods(defs, "ServerRequest"), ...unionMethods(defs, "ServerNotification")]),
  };
  const r: Revision = {
    era,
    ajv,
    defsKey,
    defs,
    byMethod,
    sends,
    compiled: new Map(),
    errorCodes: new Map(),
  };
  revisions.set(era, r);
  return r;
}

function ref(r: Revision, name: string): { $ref: string } {
  return { $ref: `${r.era}#/${r.defsKey}/${name}` };
}

function validator(r: Revision, key: string, schema: () => object): ValidateFunction {
  let v = r.compiled.get(key);
  if (!v) {
    v = r.ajv.compile(schema());
    r.compiled.set(key, v);
  }
  return v;
}

function messageOf(e: ErrorObject): string {
  const detail =
    e.keyword === "additionalProperties"
      ? ` (${JSON.stringify(e.params.additionalProperty)})`
      : e.keyword === "const" || e.keyword === "enum"
        ? ` (${JSON.stringify(e.params.allowedValue ?? e.params.allowedValues)})`
        : "";
  return `${e.message ?? e.keyword}${detail}`;
}

function valueAt(doc: unknown, pointer: string): unknown {
  let at: any = doc;
  for (const step of pointer.split("/").slice(1)) {
    if (at === null || typeof at !== "object") return undefined;
    at = at[step.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return at;
}

/** A branch schema with its references made absolute (`#/$defs/X` → `<era>#/$defs/X`), so it compiles on its own. */
function absolute(r: Revision, schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((s) => absolute(r, s));
  if (!isObject(schema)) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" && v.startsWith("#") ? `${r.era}${v}` : absolute(r, v),
    ]),
  );
}

/**
 * The one branch of a union a value can mean, if there is one: of its shape (object or array), whose const members
 * (a block's `type`, a request's `method`) it has, and, among several, whose required members it has.
 */
function branchFor(r: Revision, branches: unknown, value: unknown): unknown {
  if (!Array.isArray(branches)) return undefined;
  const shape = Array.isArray(value) ? "array" : isObject(value) ? "object" : undefined;
  if (!shape) return undefined;
  const resolved = branches.map((b) => {
    const name = isObject(b) && typeof b.$ref === "string" ? b.$ref.split("/").pop()! : undefined;
    return { b, def: (name ? r.defs[name] : b) as Record<string, any> };
  });
  let fits = resolved.filter(({ def }) => {
    if (def.type !== undefined && def.type !== shape) return false;
    if (shape === "array") return true;
    return Object.entries<Record<string, unknown>>(def.properties ?? {}).every(
      ([k, p]) => p.const === undefined || (value as Record<string, unknown>)[k] === p.const,
    );
  });
  if (fits.length > 1 && shape === "object")
    fits = fits.filter(({ def }) => (def.required ?? []).every((k: string) => k in (value as object)));
  return fits.length === 1 ? fits[0]!.b : undefined;
}

/** The member every object branch of a union fixes with a const (`type`, `method`), when the value's fits none. */
function unknownTag(
  r: Revision,
  branches: unknown,
  value: unknown,
): { key: string; allowed: unknown[] } | undefined {
  if (!Array.isArray(branches) || !isObject(value)) return undefined;
  const defs = branches
    .map((b) => (isObject(b) && typeof b.$ref === "string" ? r.defs[b.$ref.split("/").pop()!] : b))
    .filter((d): d is Record<string, any> => isObject(d) && (d.type === undefined || d.type === "object"));
  for (const key of ["type", "method"]) {
    const allowed = defs.map((d) => d.properties?.[key]?.const);
    if (allowed.length > 0 && allowed.every((c) => c !== undefined) && !allowed.includes(value[key]))
      return { key, allowed };
  }
  return undefined;
}

/**
 * ajv's errors as findings. A failed union (`anyOf`) reports every branch, which buries the one finding that
 * matters: where the value can only mean one branch (a text block, a sampling request), its errors are those of that
 * branch alone, found by checking the value against it (recursively, for unions inside).
 */
function explain(
  r: Revision,
  data: unknown,
  errors: readonly ErrorObject[],
  at = "",
): Array<[string, string]> {
  const unions = errors
    .filter((e) => e.keyword === "anyOf")
    .sort((a, b) => a.instancePath.length - b.instancePath.length);
  const replaced: string[] = [];
  const within = (p: string) => replaced.some((q) => p === q || p.startsWith(`${q}/`));
  const deeper: Array<[string, string]> = [];
  for (const union of unions) {
    const p = union.instancePath;
    if (within(p)) continue;
    const value = valueAt(data, p);
    const branch = branchFor(r, union.schema, value);
    if (branch === undefined) {
      // A member every branch fixes (a block's `type`) with a value none allows: that alone is the finding.
      const tag = unknownTag(r, union.schema, value);
      if (tag) {
        replaced.push(p);
        deeper.push([
          `${at}${p}/${tag.key}`,
          `must be equal to one of the allowed values (${JSON.stringify(tag.allowed)})`,
        ]);
      }
      continue;
    }
    const v = validator(r, `branch ${JSON.stringify(branch)}`, () => absolute(r, branch) as object);
    if (v(value)) continue;
    const own = [...(v.errors ?? [])];
    replaced.push(p);
    deeper.push(...explain(r, value, own, at + p));
  }
  const kept = errors.filter((e) => !within(e.instancePath));
  return [...kept.map((e): [string, string] => [at + e.instancePath, messageOf(e)]), ...deeper];
}

function findingsOf(r: Revision, data: unknown, errors: ErrorObject[], definition: string): SchemaFinding[] {
  const seen = new Set<string>();
  const out: SchemaFinding[] = [];
  for (const [pointer, message] of explain(r, data, errors)) {
    const key = `${pointer} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pointer, message, definition });
    if (out.length >= MAX_FINDINGS) break;
  }
  return out;
}

function check(r: Revision, frame: unknown, definition: string, key: string, schema: () => object) {
  const v = validator(r, key, schema);
  return v(frame) ? [] : findingsOf(r, frame, [...(v.errors ?? [])], definition);
}

/** The definition of a request or notification method in a revision (`tools/list` → `ListToolsRequest`). */
export function definitionOfMethod(era: Era, method: string): string | undefined {
  return revision(era).byMethod.get(method);
}

/**
 * The result definition for a request method (`ListToolsResult`; `EmptyResult` for requests with none of their own,
 * such as ping), or undefined when the revision does not define the method.
 */
export function resultDefinition(era: Era, method: string): string | undefined {
  const r = revision(era);
  const request = r.byMethod.get(method);
  if (!request?.endsWith("Request")) return undefined;
  const own = `${request.slice(0, -"Request".length)}Result`;
  return r.defs[own] ? own : "EmptyResult";
}

/** Checks any value against one definition of a revision (e.g. a sampling request inside `inputRequests`). */
export function checkDefinition(era: Era, definition: string, value: unknown): SchemaFinding[] {
  const r = revision(era);
  if (!r.defs[definition]) throw new Error(`MCP ${era} defines no ${definition}`);
  return check(r, value, definition, `def ${definition}`, () => ref(r, definition));
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks one JSON-RPC frame (a parsed message) as sent by `from` in `era`. */
export function checkFrame(frame: unknown, context: FrameContext): SchemaFinding[] {
  const r = revision(context.era);
  if (Array.isArray(frame)) {
    // JSON-RPC batches exist in 2025-03-26 only; their members are checked one by one, responses by envelope alone.
    if (!r.defs.JSONRPCBatchRequest)
      return [
        { pointer: "", message: `a batch is not a message of MCP ${r.era}`, definition: "JSONRPCMessage" },
      ];
    return frame.flatMap((m, i) =>
      checkFrame(m, { era: context.era, from: context.from }).map((f) => ({
        ...f,
        pointer: `/${i}${f.pointer}`,
      })),
    );
  }
  if (isObject(frame) && typeof frame.method === "string") return checkCall(r, frame, frame.method, context);
  if (isObject(frame) && ("result" in frame || "error" in frame)) return checkResponse(r, frame, context);
  return check(r, frame, "JSONRPCMessage", "message", () => ref(r, "JSONRPCMessage"));
}

function checkCall(r: Revision, frame: Record<string, unknown>, method: string, context: FrameContext) {
  const request = "id" in frame;
  const envelope = request ? "JSONRPCRequest" : "JSONRPCNotification";
  const name = r.byMethod.get(method);
  const kind = request ? "request" : "notification";
  if (!name || name.endsWith("Request") !== request) {
    const found = check(r, frame, envelope, envelope, () => ref(r, envelope));
    const message = name
      ? `"${method}" is not a ${kind} in MCP ${r.era}`
      : `"${method}" is not a method of MCP ${r.era}`;
    return [{ pointer: "/method", message, definition: envelope }, ...found];
  }
  const found = check(r, frame, name, `call ${name}`, () => ({ allOf: [ref(r, envelope), ref(r, name)] }));
  if (!r.sends[context.from].has(method))
    found.unshift({
      pointer: "/method",
      message: `"${method}" is not a ${kind} a ${context.from} sends in MCP ${r.era}`,
      definition: name,
    });
  return found;
}

function checkResponse(r: Revision, frame: Record<string, unknown>, context: FrameContext) {
  if ("error" in frame) return checkError(r, frame);
  const envelope = r.defs.JSONRPCResultResponse ? "JSONRPCResultResponse" : "JSONRPCResponse";
  const answers = context.answers;
  const result = answers === undefined ? undefined : resultDefinition(r.era, answers);
  if (!result || answers === undefined) return check(r, frame, envelope, envelope, () => ref(r, envelope));
  // 2026-07-28 names the whole response of most methods (CallToolResultResponse: CallToolResult or InputRequiredResult).
  const whole = `${result}Response`;
  if (r.defs[whole]) return check(r, frame, whole, whole, () => ref(r, whole));
  // 2025-11-25: a task-augmented request is answered with a CreateTaskResult instead.
  const task =
    r.defs.CreateTaskResult !== undefined &&
    isObject(frame.result) &&
    "task" in frame.result &&
    requestTakesTask(r, answers);
  const definition = task ? "CreateTaskResult" : result;
  return check(r, frame, definition, `result ${definition}`, () => ({
    allOf: [ref(r, envelope), { type: "object", properties: { result: ref(r, definition) } }],
  }));
}

/** Whether a request's params may carry `task` (2025-11-25 task augmentation). */
function requestTakesTask(r: Revision, method: string): boolean {
  const params = r.defs[r.byMethod.get(method) ?? ""]?.properties?.params;
  const def = params?.$ref ? r.defs[String(params.$ref).split("/").pop()!] : params;
  return Boolean(def?.properties?.task);
}

/**
 * An error response: the revision's error envelope, and the definition the revision gives that error code, if any
 * (2026-07-28: `-32022` must say which versions are supported, `-32601` is MethodNotFoundError, …).
 */
function checkError(r: Revision, frame: Record<string, unknown>) {
  const envelope = r.defs.JSONRPCErrorResponse ? "JSONRPCErrorResponse" : "JSONRPCError";
  const found = check(r, frame, envelope, envelope, () => ref(r, envelope));
  const code = isObject(frame.error) ? frame.error.code : undefined;
  const coded = typeof code === "number" ? errorDefinition(r, code) : undefined;
  if (!coded) return found;
  const schema = coded.whole
    ? ref(r, coded.name)
    : { type: "object", properties: { error: ref(r, coded.name) } };
  return [...found, ...check(r, frame, coded.name, `error ${coded.name}`, () => schema)];
}

/** The definition of an error code: an error object (`properties.code.const`) or a whole response (`error.…code`). */
function errorDefinition(r: Revision, code: number): { name: string; whole: boolean } | undefined {
  if (r.errorCodes.has(code)) return r.errorCodes.get(code);
  let found: { name: string; whole: boolean } | undefined;
  for (const [name, def] of Object.entries(r.defs)) {
    if (!name.endsWith("Error") || name === "Error") continue;
    const error = def.properties?.error;
    const members: Array<Record<string, any>> = [error, ...(error?.allOf ?? [])];
    if (def.properties?.code?.const === code) found = { name, whole: false };
    else if (members.some((m) => m?.properties?.code?.const === code)) found = { name, whole: true };
    if (found) break;
  }
  r.errorCodes.set(code, found);
  return found;
}
