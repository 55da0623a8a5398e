/**
 * Turns zod issues of the era schemas into findings: one stable rule id, an RFC 6901 pointer and a human
 * sentence per issue. Runs only when a value fails its schema (the slow path), so it may look things up in the
 * input freely.
 */
import { type Era, featuresOf } from "../protocol/eras.ts";
import type { Collector } from "./findings.ts";
import { pointerOf } from "./findings.ts";
import type { RuleId } from "./rules.ts";
import { isJsonObject } from "./schemas.ts";

/** The subset of a zod v4 issue this module reads. */
interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
  values?: unknown[];
  minimum?: number | bigint;
  maximum?: number | bigint;
  note?: string;
  options?: unknown[];
  errors?: Issue[][];
}

type Path = PropertyKey[];

function valueAt(root: unknown, path: Path): unknown {
  let v = root;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "string") return v.length > 40 ? `a string of ${v.length} characters` : JSON.stringify(v);
  return `${typeof v} ${String(v)}`;
}

const isMissing = (issue: Issue, root: unknown, base: Path): boolean =>
  valueAt(root, [...base, ...issue.path]) === undefined;

/**
 * Flattens union issues to the issues of the branch the input most plausibly meant: branches whose root type
 * already mismatched are dropped; then the branch with fewest missing fields, then fewest issues wins. When
 * every branch mismatched at the root, the union itself is reported (as an invalid_type at its path).
 */
function flatten(issue: Issue, root: unknown, out: Issue[]): void {
  if (issue.code !== "invalid_union" || !issue.errors || issue.errors.length === 0) {
    out.push(issue);
    return;
  }
  let best: Issue[] | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const branch of issue.errors) {
    if (branch.some((i) => i.path.length === 0 && i.code === "invalid_type")) continue;
    const missing = branch.filter((i) => isMissing(i, root, issue.path)).length;
    const score = missing * 1000 + branch.length;
    if (score < bestScore) {
      best = branch;
      bestScore = score;
    }
  }
  if (!best) {
    out.push({ code: "invalid_type", path: issue.path, message: issue.message, expected: "union" });
    return;
  }
  for (const sub of best) flatten({ ...sub, path: [...issue.path, ...sub.path] }, root, out);
}

function detail(issue: Issue, value: unknown, name: string): string {
  if (value === undefined && (issue.code === "invalid_type" || issue.code === "invalid_value")) {
    return `${name} is required`;
  }
  switch (issue.code) {
    case "invalid_type":
      return `${name} must be ${issue.expected === "union" ? "of a declared type" : `${article(issue.expected)}`}, got ${describe(value)}`;
    case "invalid_value":
      return `${name} must be ${(issue.values ?? []).map((v) => JSON.stringify(v)).join(" or ")}, got ${describe(value)}`;
    case "too_small":
      return `${name} must be at least ${String(issue.minimum)}, got ${describe(value)}`;
    case "too_big":
      return `${name} must be at most ${String(issue.maximum)}, got ${describe(value)}`;
    default:
      return `${name}: ${issue.message}, got ${describe(value)}`;
  }
}

function article(expected: string | undefined): string {
  if (!expected) return "valid";
  if (expected === "object") return "a JSON object";
  if (expected === "array") return "an array";
  if (expected === "int") return "an integer";
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function nameOf(path: Path, fallback: string): string {
  const last = path[path.length - 1];
  if (last === undefined) return fallback;
  return typeof last === "number" ? `item ${last}` : String(last);
}

/** Classifies one issue below a `content` value (message or result content). */
function classifyContent(
  issue: Issue,
  root: unknown,
  contentPath: Path,
  rest: Path,
  era: Era,
  contentRule: RuleId,
): { rule: RuleId; pointer: Path; message: string } {
  const content = valueAt(root, contentPath);
  const full = [...contentPath, ...rest];
  if (rest.length === 0) {
    if (content === undefined) return { rule: contentRule, pointer: full, message: "content is required" };
    if (Array.isArray(content) && !featuresOf(era).tools) {
      return {
        rule: "content.array-before-2025-11-25",
        pointer: full,
        message: `content is an array of ${content.length} block(s); ${era} allows a single content block`,
      };
    }
    if (!isJsonObject(content)) {
      return {
        rule: contentRule,
        pointer: full,
        message: `content must be ${featuresOf(era).tools ? "a content block or an array of content blocks" : "a content block"}, got ${describe(content)}`,
      };
    }
    return blockIssue(issue, root, full, [], era, true);
  }
  // rest starts inside the content value: an array index (2025-11-25+) or a block field.
  if (Array.isArray(content) && typeof rest[0] === "number") {
    return blockIssue(issue, root, [...contentPath, rest[0]], rest.slice(1), era, true);
  }
  return blockIssue(issue, root, contentPath, rest, era, true);
}

/** Classifies an issue located at `blockPath + rest`, where blockPath is a content block. */
// Long: one table-like switch from a zod issue inside a content block to the rule it breaks.
function blockIssue(
  issue: Issue,
  root: unknown,
  blockPath: Path,
  rest: Path,
  era: Era,
  sampling: boolean,
): { rule: RuleId; pointer: Path; message: string } {
  const block = valueAt(root, blockPath);
  const full = [...blockPath, ...rest];
  const value = valueAt(root, full);
  if (!isJsonObject(block)) {
    return {
      rule: "content.block-shape",
      pointer: full,
      message: `a content block must be a JSON object, got ${describe(block)}`,
    };
  }
  const type = block.type;
  const field = rest[0];
  if (rest.length === 0 || (field === "type" && rest.length === 1)) {
    const typePtr = [...blockPath, "type"];
    if (sampling && type === "audio" && !featuresOf(era).audio) {
      return {
        rule: "content.audio-before-2025-03-26",
        pointer: typePtr,
        message: `audio content does not exist in ${era}`,
      };
    }
    if (sampling && (type === "tool_use" || type === "tool_result") && !featuresOf(era).tools) {
      return {
        rule: "content.tool-blocks-before-2025-11-25",
        pointer: typePtr,
        message: `${type} content does not exist in ${era} (it arrived in 2025-11-25)`,
      };
    }
    if (issue.note === "No matching discriminator" || field === "type") {
      const allowed = (issue.options ?? []).map((o) => JSON.stringify(o)).join(", ");
      return {
        rule: "content.block-type",
        pointer: typePtr,
        message:
          type === undefined
            ? `content block type is required${allowed ? ` (one of ${allowed})` : ""}`
            : `content block type ${describe(type)} is not allowed here${allowed ? ` (allowed: ${allowed})` : ""}`,
      };
    }
    return { rule: "content.block-shape", pointer: full, message: detail(issue, value, "content block") };
  }
  const isData =
    (field === "data" && rest.length === 1) ||
    (field === "resource" && rest[1] === "blob" && rest.length === 2);
  if (isData && typeof value === "string") {
    return {
      rule: "content.base64",
      pointer: full,
      message: `${String(rest[rest.length - 1])} of ${describe(type)} content is not RFC 4648 base64 (${value.length} characters)`,
    };
  }
  if (type === "tool_result" && field === "content") {
    if (rest.length === 1) {
      return {
        rule: "content.tool-result-content",
        pointer: full,
        message:
          value === undefined
            ? "tool_result content is required (an array of content blocks; [] when empty)"
            : `tool_result content must be an array of content blocks, got ${describe(value)}`,
      };
    }
    if (typeof rest[1] === "number")
      return blockIssue(issue, root, [...blockPath, "content", rest[1]], rest.slice(2), era, false);
  }
  return { rule: "content.block-shape", pointer: full, message: detail(issue, value, nameOf(full, "block")) };
}

const PARAM_RULES: Record<string, RuleId> = {
  maxTokens: "request.max-tokens",
  modelPreferences: "request.model-preferences",
  includeContext: "request.include-context",
  tools: "request.tools",
  toolChoice: "request.tool-choice",
};

/** Adds one finding per issue of a CreateMessageRequest params validation. */
export function reportRequestIssues(
  issues: readonly Issue[],
  params: unknown,
  era: Era,
  out: Collector,
): void {
  const flat: Issue[] = [];
  for (const i of issues) flatten(i, params, flat);
  for (const issue of flat) {
    const path = issue.path;
    const value = valueAt(params, path);
    const head = path[0];
    if (path.length === 0) {
      out.add("request.params", "", `params must be a JSON object, got ${describe(params)}`);
    } else if (head === "messages") {
      if (path.length === 1) {
        out.add(
          "request.messages",
          pointerOf(path),
          value === undefined ? "messages is required" : `messages must be an array, got ${describe(value)}`,
        );
      } else if (path.length === 2) {
        out.add(
          "request.messages",
          pointerOf(path),
          `a message must be a JSON object, got ${describe(value)}`,
        );
      } else if (path[2] === "role") {
        out.add("message.role", pointerOf(path), detail(issue, value, "role"));
      } else if (path[2] === "content") {
        const c = classifyContent(issue, params, path.slice(0, 3), path.slice(3), era, "message.content");
        out.add(c.rule, pointerOf(c.pointer), c.message);
      } else {
        out.add("request.field-type", pointerOf(path), detail(issue, value, nameOf(path, "field")));
      }
    } else {
      const rule = (typeof head === "string" && PARAM_RULES[head]) || "request.field-type";
      out.add(rule, pointerOf(path), detail(issue, value, nameOf(path, String(head))));
    }
  }
}

/** Adds one finding per issue of a CreateMessageResult validation. */
export function reportResultIssues(
  issues: readonly Issue[],
  result: unknown,
  era: Era,
  out: Collector,
): void {
  const flat: Issue[] = [];
  for (const i of issues) flatten(i, result, flat);
  for (const issue of flat) {
    const path = issue.path;
    const value = valueAt(result, path);
    const head = path[0];
    if (path.length === 0) {
      out.add("result.shape", "", `the result must be a JSON object, got ${describe(result)}`);
    } else if (head === "role") {
      out.add("result.role", pointerOf(path), detail(issue, value, "role"));
    } else if (head === "model") {
      out.add("result.model", pointerOf(path), detail(issue, value, "model"));
    } else if (head === "stopReason") {
      out.add("result.stop-reason", pointerOf(path), detail(issue, value, "stopReason"));
    } else if (head === "content") {
      const c = classifyContent(issue, result, ["content"], path.slice(1), era, "result.content");
      out.add(c.rule, pointerOf(c.pointer), c.message);
    } else {
      out.add("result.field-type", pointerOf(path), detail(issue, value, nameOf(path, String(head))));
    }
  }
}
