/**
 * ToolResultContent.structuredContent against the outputSchema of the tool it answers: "If the tool defined an
 * outputSchema, this SHOULD conform to that schema." (2025-11-25 schema.ts:1889; 2026-07-28 schema.ts:2467).
 *
 * The tool loop (pairing.ts) notes each tool_result that carries structuredContent and answers a tool_use of the
 * preceding assistant message, with that tool_use's name; only then, after the walk, is `params.tools` read and
 * the named tool's outputSchema compiled (ajv), so a request without such a tool_result costs nothing here.
 *
 * Decisions (also in the rule catalogue):
 * - The tool is the first `params.tools` entry with the tool_use's name that has an outputSchema object; no such
 *   entry, or a tool_result that answers no tool_use (message.tool-result-unmatched), is not checked.
 * - Dialect: JSON Schema 2020-12 (MCP's default from 2025-11-25, SEP-1613) unless `$schema` names draft-07 (what
 *   MCP used before, and what zod-to-json-schema writes) or 2019-09. Unknown keywords are ignored (JSON Schema's
 *   own rule; ajv `strict: false`), `format` is not asserted (an annotation in 2020-12).
 * - An outputSchema that cannot be compiled (not a valid schema, an unknown `$schema`, a `$ref` that does not
 *   resolve: nothing is fetched) is not checked for this rule; the request is judged by its other rules.
 * - One finding per non-conforming tool_result: ajv's first error, its instancePath under `/structuredContent`.
 *
 * - `pattern` and `patternProperties` run on RE2 (re2js: linear time), not on JavaScript's backtracking RegExp: the
 *   schema and the value both come from the party being checked, and a catastrophic pattern ("^(a+)+$" against a
 *   long near-match) would otherwise stall the relay or the harness judging it. RE2 has no lookaround and no
 *   backreferences: a schema using them cannot be compiled, so it is not checked (as above).
 *
 * Compiled schemas are cached by their JSON text (at most CACHE_SIZE, oldest out first). ajv keeps what it
 * compiled, so each schema is removed from its instance after compiling, and an instance that registered any
 * `$id` from it (or has compiled REFRESH_AFTER schemas) is replaced: no schema sees another's ids, and a
 * long-running relay fed endless distinct schemas holds a bounded amount.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { RE2JS } from "re2js";
import type { Collector } from "./findings.ts";
import { isJsonObject } from "./schemas.ts";

/** A tool_result with structuredContent that answers a tool_use: where it is, which tool, what it holds. */
export interface StructuredResult {
  /** Pointer of the tool_result block (relative to the validated value). */
  pointer: string;
  /** The answered tool_use's `name` (unknown when it has none: then it names no tool). */
  tool: unknown;
  value: unknown;
}

type Dialect = "2020-12" | "2019-09" | "draft-07";
type AnyAjv = Ajv | Ajv2019 | Ajv2020;

const CACHE_SIZE = 128;
const REFRESH_AFTER = 256;

function dialectOf(schema: Record<string, unknown>): Dialect | null {
  const id = schema.$schema;
  if (id === undefined) return "2020-12";
  if (typeof id !== "string") return null;
  const bare = id.replace(/^https?:\/\//, "").replace(/#?$/, "");
  if (bare === "json-schema.org/draft/2020-12/schema") return "2020-12";
  if (bare === "json-schema.org/draft/2019-09/schema") return "2019-09";
  if (bare === "json-schema.org/draft-07/schema") return "draft-07";
  return null;
}

/** ajv's regular-expression engine: RE2 (flags are ajv's "u", which RE2 always is). Throws on what RE2 lacks. */
const re2 = Object.assign((pattern: string) => RE2JS.compile(pattern), {
  code: 'require("re2js").RE2JS.compile',
});

const OPTIONS = {
  strict: false,
  logger: false,
  addUsedSchema: false,
  validateFormats: false,
  code: { regExp: re2 },
} as const;

function newAjv(dialect: Dialect): AnyAjv {
  switch (dialect) {
    case "2020-12":
      return new Ajv2020(OPTIONS);
    case "2019-09":
      return new Ajv2019(OPTIONS);
    case "draft-07":
      return new Ajv(OPTIONS);
  }
}

const instances = new Map<Dialect, { ajv: AnyAjv; compiled: number }>();
/** JSON text of a schema → its validate function, or null when it cannot be compiled. */
const cache = new Map<string, ValidateFunction | null>();

function compile(schema: Record<string, unknown>): ValidateFunction | null {
  const dialect = dialectOf(schema);
  if (dialect === null) return null;
  let slot = instances.get(dialect);
  if (!slot) {
    slot = { ajv: newAjv(dialect), compiled: 0 };
    instances.set(dialect, slot);
  }
  const { ajv } = slot;
  const ids = Object.keys(ajv.refs).length;
  // ajv's `$schema` lookup wants the exact URI it registered; the dialect already chose the instance.
  const { $schema: _, ...body } = schema;
  try {
    return ajv.compile(body);
  } catch {
    return null;
  } finally {
    ajv.removeSchema(body);
    slot.compiled++;
    if (slot.compiled >= REFRESH_AFTER || Object.keys(ajv.refs).length !== ids) instances.delete(dialect);
  }
}

function validatorFor(schema: Record<string, unknown>): ValidateFunction | null {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const fn = compile(schema);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(key, fn);
  return fn;
}

/** Whether any tool of `tools` (params.tools) has an outputSchema: else no structuredContent is checked. */
export function anyOutputSchema(tools: unknown): boolean {
  if (!Array.isArray(tools)) return false;
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i];
    if (isJsonObject(t) && isJsonObject(t.outputSchema)) return true;
  }
  return false;
}

/** The outputSchema of the first tool named `name` that has one. */
function outputSchemaOf(
  tools: unknown,
  name: unknown,
): { schema: Record<string, unknown>; index: number } | null {
  if (!Array.isArray(tools) || typeof name !== "string") return null;
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i];
    if (isJsonObject(t) && t.name === name && isJsonObject(t.outputSchema))
      return { schema: t.outputSchema, index: i };
  }
  return null;
}

/** Whether `value` passes; a value the validation cannot finish (a recursion too deep) is not judged. */
function conforms(validate: ValidateFunction, value: unknown): boolean {
  try {
    return validate(value) as boolean;
  } catch {
    return true;
  }
}

/** Reports each noted tool_result whose structuredContent does not conform to its tool's outputSchema. */
export function checkStructuredContent(
  tools: unknown,
  results: readonly StructuredResult[],
  out: Collector,
): void {
  for (const r of results) {
    const found = outputSchemaOf(tools, r.tool);
    if (!found) continue;
    const validate = validatorFor(found.schema);
    if (validate === null || conforms(validate, r.value)) continue;
    const e = validate.errors?.[0];
    const where = e?.instancePath ?? "";
    out.add(
      "message.structured-content-schema",
      `${r.pointer}/structuredContent${where}`,
      `structuredContent does not conform to the outputSchema of tool ${JSON.stringify(r.tool)} (/tools/${found.index}): ${where ? `at ${where} ` : ""}${e?.message ?? "invalid"}`,
    );
  }
}
