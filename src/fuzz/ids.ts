import fc from "fast-check";
import type { JsonRpcId } from "../harness/jsonrpc-peer.ts";

/**
 * JSON-RPC request ids from the whole space the spec allows (JSON-RPC 2.0 §4: a String or a Number; every MCP
 * revision's schema.ts: `RequestId = string | number`, an integer from 2025-06-18's JSON Schema on): small and large
 * integers, negative ones, strings of any Unicode, strings that read as numbers ("5" is not 5), and strings shaped like
 * the ids relays mint for their own requests, which a relay that routes responses by its own prefix mistakes for its
 * own. Integers stay within ±(2^53 − 1): JSON numbers past that lose digits in most parsers, this harness's included,
 * so a verdict on them would rest on the harness. Strings are well-formed Unicode (graphemes, no lone surrogates:
 * RFC 8259 §8.2 leaves those unpredictable).
 */

/** Prefixes of ids published relays mint for requests of their own (mcp-remote, supergateway, FastMCP, ...). */
export const RELAY_ID_PREFIXES = [
  "mcp-remote-",
  "sgw:",
  "fastmcp-",
  "mcp-proxy-",
  "req-",
  "relay-",
  "_",
] as const;

export function requestIds(): fc.Arbitrary<JsonRpcId> {
  // Cross-shrinking: a counterexample's id shrinks towards the simplest kind that still fails (0 before 2^31).
  return fc.oneof(
    { withCrossShrink: true },
    { arbitrary: fc.nat({ max: 1000 }), weight: 3 },
    { arbitrary: fc.integer({ min: 2 ** 31, max: Number.MAX_SAFE_INTEGER }), weight: 1 },
    { arbitrary: fc.integer({ min: Number.MIN_SAFE_INTEGER, max: -1 }), weight: 1 },
    { arbitrary: fc.nat({ max: 1000 }).map(String), weight: 1 },
    { arbitrary: fc.string({ maxLength: 24 }), weight: 2 },
    { arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }), weight: 1 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...RELAY_ID_PREFIXES), fc.nat({ max: 99 }))
        .map(([prefix, n]) => `${prefix}${n}`),
      weight: 2,
    },
  );
}

/**
 * `id` made unique among `used` (MCP basic: a request id "MUST NOT have been previously used by the requestor within
 * the same session"), keeping its kind: an integer moves away from zero by one until free, a string takes a suffix.
 * Adds the result to `used`.
 */
export function uniqueId(id: JsonRpcId, used: Set<string>): JsonRpcId {
  const key = (v: JsonRpcId) => `${typeof v}:${v}`;
  let free = id;
  for (let n = 1; used.has(key(free)); n++)
    free =
      typeof id === "number"
        ? id < 0
          ? Math.max(Number.MIN_SAFE_INTEGER, id - n)
          : Math.min(Number.MAX_SAFE_INTEGER, id + n)
        : `${id}~${n}`;
  used.add(key(free));
  return free;
}
