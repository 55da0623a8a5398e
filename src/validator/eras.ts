/** The MCP protocol revisions ("eras") that define sampling, oldest first. */
export const ERAS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;
export type Era = (typeof ERAS)[number];

export function isEra(value: unknown): value is Era {
  return typeof value === "string" && (ERAS as readonly string[]).includes(value);
}

/** Eras compare as strings because they are ISO dates. */
export function eraAtLeast(era: Era, floor: Era): boolean {
  return era >= floor;
}

/** 2026-07-28 moved sampling into `input_required` results (multi-round-trip requests). */
export function isModernEra(era: Era): boolean {
  return era >= "2026-07-28";
}
