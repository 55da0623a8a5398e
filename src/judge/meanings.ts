/**
 * Message wording is normative only where a rule is about the message itself. These are the two such rules,
 * judged by meaning rather than by one phrasing, so that a relay wording its own errors is not failed for it.
 */

/** What counts as naming expiry ("expired", "timed out", "timeout", "deadline", "no answer in time", …). */
export const EXPIRY_MEANINGS: readonly RegExp[] = [
  /expir/i,
  /\btime[sd]?[\s_-]?out\b/i,
  /\btimed[\s_-]out\b/i,
  /deadline/i,
  /\bno (answer|reply|response)\b.*\bin time\b/i,
  /\btime (ran|has run) out\b/i,
];

export const MEANINGS = { expiry: EXPIRY_MEANINGS } as const;
export type Meaning = keyof typeof MEANINGS;

export function hasMeaning(message: unknown, meaning: Meaning): boolean {
  return typeof message === "string" && MEANINGS[meaning].some((re) => re.test(message));
}

/** An error-code prefix inside the text ("MCP error -1:", "Error -32603:"): one is a wrapper, two are stacked. */
const CODE_PREFIX = /\b(?:mcp\s+)?error\s*[-−]?\d+\s*:/gi;

/** A message is stacked when it carries more than one code prefix (a wrapper around a wrapper). */
export function stackedPrefixes(message: unknown): number {
  if (typeof message !== "string") return 0;
  return message.match(CODE_PREFIX)?.length ?? 0;
}
