/** Deep JSON equality that reports where two values first differ (key order does not matter). */
export function firstDifference(a: unknown, b: unknown, pointer = ""): string | null {
  if (a === b) return null;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") {
    return pointer || "/";
  }
  if (Array.isArray(a) !== Array.isArray(b)) return pointer || "/";
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return pointer || "/";
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${pointer}/${i}`);
      if (d) return d;
    }
    return null;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const key of keys) {
    const escaped = key.replaceAll("~", "~0").replaceAll("/", "~1");
    if (!(key in ao) || !(key in bo)) return `${pointer}/${escaped}`;
    const d = firstDifference(ao[key], bo[key], `${pointer}/${escaped}`);
    if (d) return d;
  }
  return null;
}

/** Every string value in a JSON value (member names excluded), depth first. */
export function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out);
  else if (value !== null && typeof value === "object")
    for (const v of Object.values(value)) stringsIn(v, out);
  return out;
}

/** Whether an RFC 6901 JSON pointer resolves to a present value (null counts as present). */
export function hasPointer(value: unknown, pointer: string): boolean {
  if (pointer === "") return value !== undefined;
  let current: unknown = value;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (current === null || typeof current !== "object") return false;
    if (Array.isArray(current)) {
      const index = Number(key);
      if (!Number.isInteger(index) || index < 0 || index >= current.length) return false;
      current = current[index];
    } else {
      if (!Object.hasOwn(current, key)) return false;
      current = (current as Record<string, unknown>)[key];
    }
  }
  return true;
}

/** The value an RFC 6901 JSON pointer resolves to, or undefined. */
export function valueAt(value: unknown, pointer: string): unknown {
  if (pointer === "" || pointer === "/") return value;
  let current: unknown = value;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (current === null || typeof current !== "object") return undefined;
    current = Array.isArray(current) ? current[Number(key)] : (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A copy of `value` without the members the pointers name (object members only; the rest is shared, not copied). */
export function withoutPointers(value: unknown, pointers: readonly string[]): unknown {
  let out = value;
  for (const pointer of pointers) out = without(out, pointer.slice(1).split("/"));
  return out;
}

function without(value: unknown, keys: string[]): unknown {
  const [raw, ...rest] = keys;
  if (raw === undefined || value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
  if (!Object.hasOwn(value, key)) return value;
  const copy = { ...(value as Record<string, unknown>) };
  if (rest.length === 0) delete copy[key];
  else copy[key] = without(copy[key], rest);
  return copy;
}

/**
 * One place where two JSON documents differ: the JSON pointer (RFC 6901, "/" for the root) and the value on each
 * side (`undefined` where the member is absent).
 */
export interface Difference {
  pointer: string;
  sent: unknown;
  received: unknown;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** A content block (or any object that names its kind in a string `type`). */
const blockType = (v: unknown): string | undefined =>
  isPlainObject(v) && typeof v.type === "string" ? v.type : undefined;

/**
 * Every difference between what was sent and what was received, depth first, in the sent document's member order
 * (then the members only the received one has), so the list is the same from one run to the next. An object whose
 * `type` changed (an image block that became a text block) is one difference, not one per member.
 */
export function differences(sent: unknown, received: unknown, pointer = ""): Difference[] {
  if (sent === received) return [];
  const here = () => [{ pointer: pointer || "/", sent, received }];
  if (Array.isArray(sent) && Array.isArray(received)) {
    const out: Difference[] = [];
    for (let i = 0; i < Math.max(sent.length, received.length); i++)
      out.push(...differences(sent[i], received[i], `${pointer}/${i}`));
    return out;
  }
  if (!isPlainObject(sent) || !isPlainObject(received)) return here();
  const st = blockType(sent);
  const rt = blockType(received);
  if (st !== undefined && rt !== undefined && st !== rt) return here();
  const out: Difference[] = [];
  const keys = [...Object.keys(sent), ...Object.keys(received).filter((k) => !Object.hasOwn(sent, k))];
  for (const key of keys) {
    const at = `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    if (!Object.hasOwn(received, key)) out.push({ pointer: at, sent: sent[key], received: undefined });
    else if (!Object.hasOwn(sent, key)) out.push({ pointer: at, sent: undefined, received: received[key] });
    else out.push(...differences(sent[key], received[key], at));
  }
  return out;
}

/**
 * The differences inside the pointers a case names, each under /request or /result ("/" or the document's own
 * pointer: the whole document), with pointers relative to the document.
 */
export function scopedDifferences(
  scope: readonly string[],
  doc: "request" | "result",
  sent: unknown,
  received: unknown,
): Difference[] {
  const out: Difference[] = [];
  for (const pointer of scope) {
    if (pointer === "/" || pointer === `/${doc}`) out.push(...differences(sent, received));
    else if (pointer.startsWith(`/${doc}/`)) {
      const inner = pointer.slice(doc.length + 1);
      out.push(...differences(valueAt(sent, inner), valueAt(received, inner), inner));
    }
  }
  // Overlapping pointers ("/" and "/result/model") name one difference once.
  return out.filter((d, i) => out.findIndex((e) => e.pointer === d.pointer) === i);
}

/** How many differences a reason lists, and how long a value may be before it is cut. */
export const DIFF_LIMITS = { items: 3, valueChars: 80 } as const;

/**
 * The JSON text of a value, or its first `max` characters when it is longer (`cut`), built without serialising the
 * rest: a relay's 10 MiB string costs its head, not a 10 MiB copy.
 */
export function jsonHead(value: unknown, max: number): { text: string; cut: boolean } {
  let text = "";
  const add = (part: string): boolean => {
    text += part;
    return text.length > max;
  };
  // Serialises depth first until the text passes `max`; true once it has (the rest is never built).
  const walk = (v: unknown): boolean => {
    if (typeof v === "string") return add(JSON.stringify(v.length > max ? v.slice(0, max + 1) : v));
    if (v === null || typeof v !== "object") return add(JSON.stringify(v) ?? "null");
    if (Array.isArray(v)) {
      if (add("[")) return true;
      for (let i = 0; i < v.length; i++)
        if ((i > 0 && add(",")) || walk(v[i] === undefined ? null : v[i])) return true;
      return add("]");
    }
    if (typeof (v as { toJSON?: unknown }).toJSON === "function") return add(JSON.stringify(v) ?? "null");
    if (add("{")) return true;
    let first = true;
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined || typeof x === "function") continue;
      if ((!first && add(",")) || add(`${JSON.stringify(k)}:`) || walk(x)) return true;
      first = false;
    }
    return add("}");
  };
  const cut = walk(value);
  return cut ? { text: text.slice(0, max), cut } : { text, cut };
}

/** How large a value is: a string's UTF-8 bytes, anything else's JSON text in UTF-8 bytes. */
export function valueBytes(value: unknown): number {
  return Buffer.byteLength(typeof value === "string" ? value : (JSON.stringify(value) ?? ""), "utf8");
}

/**
 * A JSON value as a reason quotes it, cut to about `max` characters; a cut value says how large it really is, so a
 * reason names an oversized value with its true size: `"xxxx…" (10485760 bytes)`, `{"a":"xxxx… (10485768 bytes of
 * JSON)`.
 */
export function quoteValue(value: unknown, max: number = DIFF_LIMITS.valueChars): string {
  if (value === undefined) return "nothing";
  const { text, cut } = jsonHead(value, max);
  if (!cut) return text;
  if (typeof value === "string") return `${text.slice(0, max - 2)}…" (${valueBytes(value)} bytes)`;
  return `${text.slice(0, max - 1)}… (${valueBytes(value)} bytes of JSON)`;
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);

/** What kind of JSON value this is, in words: "a string", "an image block", "null". */
function kindOf(value: unknown): string {
  const type = blockType(value);
  if (type !== undefined) return article(`${type} block`);
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return article(typeof value);
}

/** The words for the two sides of a comparison (default: what was sent and what was received). */
export interface DiffWords {
  sent: string;
  received: string;
}

/**
 * One difference in words, with both values: `/stopReason missing (sent "endTurn")`, `/_meta added (received
 * {…})`, `/model changed (sent "A", received "a")`, `/maxTokens changed from a number to a string (sent 8,
 * received "8")`.
 */
export function describeDifference(
  d: Difference,
  words: DiffWords = { sent: "sent", received: "received" },
  max: number = DIFF_LIMITS.valueChars,
): string {
  if (d.received === undefined) return `${d.pointer} missing (${words.sent} ${quoteValue(d.sent, max)})`;
  if (d.sent === undefined) return `${d.pointer} added (${words.received} ${quoteValue(d.received, max)})`;
  const from = kindOf(d.sent);
  const to = kindOf(d.received);
  const how = from === to ? "changed" : `changed from ${from} to ${to}`;
  return `${d.pointer} ${how} (${words.sent} ${quoteValue(d.sent, max)}, ${words.received} ${quoteValue(d.received, max)})`;
}

/**
 * The differences in words, at most `items` of them, then how many more: `/a missing (sent 1), /b added (received
 * 2) and 4 more differences`. Empty when there are none.
 */
export function describeDifferences(
  diffs: readonly Difference[],
  words?: DiffWords,
  limits: { items?: number; valueChars?: number } = {},
): string {
  const items = limits.items ?? DIFF_LIMITS.items;
  const listed = diffs.slice(0, items).map((d) => describeDifference(d, words, limits.valueChars));
  const more = diffs.length - listed.length;
  return more > 0
    ? `${listed.join(", ")} and ${more} more difference${more === 1 ? "" : "s"}`
    : listed.join(", ");
}
