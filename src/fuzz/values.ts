/**
 * Leaf values for the sampling arbitraries: strings, JSON values, `_meta` objects and unknown fields.
 *
 * Why they look like this: a relay may compare, normalise or re-encode what it forwards. Model names, tool ids,
 * tool names and text therefore mix letter case, carry non-ASCII (accents, decomposed accents, non-Latin
 * scripts, emoji, ligatures) and leading/trailing whitespace, so that a relay that lower-cases, trims,
 * NFC/NFKC-normalises or matches ids case-insensitively changes a value the differential check compares.
 * JSON values nest objects and arrays and hold null, so that a relay that drops null entries or flattens
 * `_meta` is caught too. Everything is plain JSON: no undefined, no -0, no non-finite numbers, no lone
 * surrogates, no `__proto__` keys, ordinary prototypes; every value survives JSON.stringify/parse unchanged.
 * Everything shrinks towards short lower-case ASCII.
 */
import fc from "fast-check";

export type Json = Record<string, unknown>;

/** `fc.record` with ordinary prototypes only (fast-check may otherwise build null-prototype objects). */
export function record<T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }): fc.Arbitrary<T> {
  return fc.record(model, { noNullPrototype: true }) as fc.Arbitrary<T>;
}

/** `fc.option` with null as the "absent" value (see `compact`). */
export const opt = <T>(arb: fc.Arbitrary<T>, freq = 3) => fc.option(arb, { freq });

/** Builds an object leaving out the keys whose value is null (the "absent" option). */
export function compact(obj: Record<string, unknown>): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) if (v !== null) out[k] = v;
  return out;
}

// ---------------------------------------------------------------------------------------------- strings

/** Whitespace a relay's trim() removes (ASCII, no-break, em and ideographic spaces, BOM). */
export const WHITESPACE = [" ", "  ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "\ufeff"] as const;

/**
 * Non-ASCII pieces chosen for what they break: case mappings that change length (ß, İ, ı, ǅ), a decomposed
 * accent (NFC changes it), a ligature (NFKC changes it), non-Latin scripts, right-to-left text, emoji with
 * ZWJ sequences and flags (several UTF-16 code units each).
 */
export const UNICODE = [
  "é",
  "E\u0301",
  "Ä",
  "ß",
  "İ",
  "ı",
  "ǅ",
  "ﬁ",
  "Ω",
  "ж",
  "Д",
  "中文",
  "日本語",
  "עברית",
  "😀",
  "👩‍💻",
  "🇫🇷",
] as const;

const ASCII = "abcdefghijklmnopqrstuvwxyz0123456789_-.";
const asciiWord = (maxLength: number) =>
  fc.mixedCase(fc.string({ unit: fc.constantFrom(...ASCII), minLength: 1, maxLength }));

/** One piece of a fancy string: mixed-case ASCII mostly, else a chosen non-ASCII piece or any grapheme. */
const piece = fc.oneof(
  { weight: 4, arbitrary: asciiWord(8) },
  { weight: 2, arbitrary: fc.constantFrom(...UNICODE) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 3 }) },
);

/** Whitespace now and then (one value in five), else nothing; shrinks to nothing. */
const edge = fc.oneof(
  { weight: 4, arbitrary: fc.constant("") },
  { weight: 1, arbitrary: fc.constantFrom(...WHITESPACE) },
);

/**
 * A non-empty string mixing case, non-ASCII and (now and then) leading/trailing whitespace. Shrinks towards
 * "a".
 */
export const fancy: fc.Arbitrary<string> = fc
  .tuple(edge, fc.array(piece, { minLength: 1, maxLength: 3 }), edge)
  .map(([lead, core, trail]) => `${lead}${core.join("")}${trail}`);

/** Short printable words (ASCII, any case); enough variety to find escaping bugs without bloating payloads. */
export const word = fc.string({ minLength: 1, maxLength: 12 });

/** Message and block text: prose, fancy strings, arbitrary graphemes. */
export const text = fc.oneof(
  { weight: 3, arbitrary: fc.lorem({ maxCount: 6 }) },
  { weight: 2, arbitrary: fancy },
  { weight: 1, arbitrary: fc.string({ maxLength: 20, unit: "grapheme" }) },
);

/** A result's `model`: a realistic name in mixed case, or any fancy string (leading/trailing spaces too). */
export const modelName = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.mixedCase(
      fc.constantFrom("claude-3-sonnet-20240307", "gpt-4o", "local-model", "Llama-3.1-8B-Instruct"),
    ),
  },
  { weight: 2, arbitrary: fancy },
);

/** Realistic tool names; generated ones are these in mixed case, or fancy strings. */
export const TOOL_NAMES = ["get_weather", "search", "calc", "read_file"] as const;
export const toolName = fc.oneof(
  { weight: 3, arbitrary: fc.mixedCase(fc.constantFrom(...TOOL_NAMES)) },
  { weight: 1, arbitrary: fancy },
);

/**
 * A tool_use id. The mixed-case ASCII prefix guarantees at least two cased letters, so `caseVariant` always
 * finds a spelling that differs from every other id of the message only in letter case.
 */
export const toolId = fc
  .tuple(edge, fc.mixedCase(fc.constantFrom("toolu_", "call_", "tu-")), fancy, edge)
  .map(([lead, prefix, rest, trail]) => `${lead}${prefix}${rest}${trail}`);

const flip = (c: string) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());

/** Every case-swapped spelling of `id`: all letters swapped, then one ASCII letter at a time. */
function* caseSpellings(id: string): Generator<string> {
  yield [...id].map(flip).join("");
  const chars = [...id];
  for (let i = 0; i < chars.length; i++) {
    if (!/[A-Za-z]/.test(chars[i]!)) continue;
    yield [...chars.slice(0, i), flip(chars[i]!), ...chars.slice(i + 1)].join("");
  }
}

/** A spelling of `id` that differs only in letter case and is none of `taken` (undefined if there is none). */
export function caseVariant(id: string, taken: ReadonlySet<string>): string | undefined {
  for (const v of caseSpellings(id)) if (v !== id && !taken.has(v)) return v;
  return undefined;
}

// ---------------------------------------------------------------------------------------------- numbers

export const unit = fc
  .double({ min: 0, max: 1, noNaN: true, noDefaultInfinity: true })
  .map((d) => (Object.is(d, -0) ? 0 : d));
export const finite = fc
  .double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true })
  .map((d) => (Object.is(d, -0) ? 0 : d));

export const base64 = fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b).toString("base64"));

// ---------------------------------------------------------------------------------------------- JSON

/** Object keys: plain, mixed-case (so "a" and "A" may sit side by side) or fancy. */
export const jsonKey = fc
  .oneof(
    { weight: 3, arbitrary: fc.mixedCase(fc.constantFrom("a", "b", "key", "nested", "x", "id")) },
    { weight: 1, arbitrary: fancy },
  )
  .filter((k) => k !== "__proto__");

const jsonLeaf = fc.oneof(
  { weight: 3, arbitrary: fancy },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: finite },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: fc.constant(null) },
);

/** Any JSON value up to three levels deep: objects, arrays, null, strings, numbers, booleans. */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 3 },
    { weight: 3, arbitrary: jsonLeaf },
    { weight: 1, arbitrary: fc.array(tie("value"), { maxLength: 3 }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(jsonKey, tie("value"), { maxKeys: 3, noNullPrototype: true }),
    },
  ),
})).value;

/** A small JSON object whose values may be null, nested objects or arrays (`_meta`, metadata, tool input). */
export const jsonObject: fc.Arbitrary<Json> = fc.dictionary(jsonKey, jsonValue, {
  maxKeys: 4,
  noNullPrototype: true,
});

/** Names of unknown fields: prefixed so they never collide with a field any era declares. */
export const UNKNOWN_KEYS = ["x-canary", "x_vendor", "zz-extra", "X-Vendor-Ünï"] as const;

/** Maybe adds one unknown field whose value is any JSON value (null and nested ones included). */
export function withUnknown<T extends Json>(arb: fc.Arbitrary<T>, freq = 4): fc.Arbitrary<T> {
  return fc
    .tuple(arb, fc.option(fc.tuple(fc.constantFrom(...UNKNOWN_KEYS), jsonValue), { freq }))
    .map(([obj, extra]) => (extra ? { ...obj, [extra[0]]: extra[1] } : obj));
}
