/**
 * The MCP protocol revisions ("eras") that define sampling, and what each one has. Every era decision in the
 * project goes through here: a named feature (`featuresOf(era).tools`) says why, where `era >= "2025-11-25"` does not.
 */

/** The revisions, oldest first. */
export const ERAS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;
export type Era = (typeof ERAS)[number];

/** The multi-round-trip era: sampling travels as inputRequests of an input_required result, no initialize. */
export const MRTR_ERA = "2026-07-28" satisfies Era;

export function isEra(value: unknown): value is Era {
  return typeof value === "string" && (ERAS as readonly string[]).includes(value);
}

/** Eras compare as strings because they are ISO dates. */
export function eraAtLeast(era: Era, floor: Era): boolean {
  return era >= floor;
}

/** 2026-07-28 moved sampling into `input_required` results (multi-round-trip requests). */
export function isModernEra(era: Era): boolean {
  return eraAtLeast(era, MRTR_ERA);
}

/** What an era's sampling has, named. */
export interface EraFeatures {
  /** Audio content blocks (2025-03-26). */
  audio: boolean;
  /** `_meta` on content blocks (2025-06-18). */
  blockMeta: boolean;
  /** tools, toolChoice, tool_use / tool_result blocks, array content (2025-11-25). */
  tools: boolean;
  /** Task-augmented sampling requests (`task`; 2025-11-25 only). */
  task: boolean;
  /** `_meta` on the request params (legacy eras; 2026-07-28 carries per-request _meta on the wrapper). */
  paramsMeta: boolean;
  /** structuredContent may be any JSON value (2026-07-28, SEP-2106). */
  anyStructuredContent: boolean;
  /** Sampling as inputRequests of an input_required result (2026-07-28). */
  mrtr: boolean;
}

export function featuresOf(era: Era): EraFeatures {
  return {
    audio: eraAtLeast(era, "2025-03-26"),
    blockMeta: eraAtLeast(era, "2025-06-18"),
    tools: eraAtLeast(era, "2025-11-25"),
    task: era === "2025-11-25",
    paramsMeta: !isModernEra(era),
    anyStructuredContent: isModernEra(era),
    mrtr: isModernEra(era),
  };
}
