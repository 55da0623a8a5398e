import { createHash } from "node:crypto";

/**
 * Compact copies of what a relay sent, for evidence: a string longer than the cap is kept as its head, its true size
 * and the sha256 of the whole string, so a transcript's size does not grow with what the relay sends while equal
 * strings stay equal (and strings that differ only past their heads do not). Verdicts are never judged from a compact
 * copy: the judge reads the full values first (a cut base64 string would turn validator findings around).
 */

/** How many characters of a long string a compact copy keeps. */
export const COMPACT_HEAD_CHARS = 1024;

/** The text that follows the head of a compacted string: `…[mcpx-conform: 10485760 bytes, sha256 <hex>]`. */
export function compactMarker(bytes: number, sha256: string): string {
  return `…[mcpx-conform: ${bytes} bytes, sha256 ${sha256}]`;
}

const COMPACTED = /…\[mcpx-conform: (\d+) bytes, sha256 ([0-9a-f]{64})\]$/;

/** The true size and sha256 a compacted string names, or undefined for any other string. */
export function compactedOf(value: string): { bytes: number; sha256: string } | undefined {
  const m = COMPACTED.exec(value);
  return m ? { bytes: Number(m[1]), sha256: m[2]! } : undefined;
}

/** The longest prefix of `text` that is at most `maxBytes` in UTF-8 (never part of a character). */
export function utf8Head(text: string, maxBytes: number): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: a text this short fits whatever it holds.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text.slice(0, maxBytes), "utf8");
  if (bytes.length <= maxBytes) return bytes.toString("utf8");
  // Back off to the start of the character the cap falls in (continuation bytes are 10xxxxxx).
  let cut = maxBytes;
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return bytes.subarray(0, cut).toString("utf8");
}

/** How many UTF-16 units of a long text are hashed at a time (see sha256Hex). */
const HASH_CHUNK = 64 * 1024;

/**
 * sha256 (hex) of a text's UTF-8 bytes. A long text is fed in slices (never between the two halves of a surrogate
 * pair, so the bytes are those of the whole): Node encodes what it hashes into a native buffer of three bytes per
 * unit, and 30 MiB buffers for every 10 MiB frame would leave the process's native heap fragmented and large.
 */
export function sha256Hex(text: string): string {
  const hash = createHash("sha256");
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + HASH_CHUNK);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    hash.update(text.slice(start, end), "utf8");
    start = end;
  }
  return hash.digest("hex");
}

/** Whether a string is over `maxBytes` in UTF-8 (counting its bytes only when its length cannot tell). */
export function overBytes(text: string, maxBytes: number): number | undefined {
  if (text.length * 3 <= maxBytes) return undefined;
  const bytes = Buffer.byteLength(text, "utf8");
  return bytes > maxBytes ? bytes : undefined;
}

/**
 * A copy of a JSON value in which every string over `maxBytes` (UTF-8) is its head (at most COMPACT_HEAD_CHARS
 * characters, and at most `maxBytes` bytes) followed by compactMarker (true size, sha256 of the whole string). Member
 * names are kept; what needs no change is shared, not copied; a string already compacted is left as it is. Counts
 * each string it compacts in `stats`.
 */
export function compactValue(value: unknown, maxBytes: number, stats?: { strings: number }): unknown {
  if (typeof value === "string") {
    const bytes = overBytes(value, maxBytes);
    if (bytes === undefined || compactedOf(value)) return value;
    if (stats) stats.strings++;
    const head = utf8Head(value.slice(0, COMPACT_HEAD_CHARS), maxBytes);
    return `${head}${compactMarker(bytes, sha256Hex(value))}`;
  }
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const items = value.map((v) => compactValue(v, maxBytes, stats));
    return items.some((c, i) => c !== value[i]) ? items : value;
  }
  const entries = Object.entries(value);
  const members = entries.map(([k, v]) => [k, compactValue(v, maxBytes, stats)] as const);
  return members.some(([, c], i) => c !== entries[i]![1]) ? Object.fromEntries(members) : value;
}
