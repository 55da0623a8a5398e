import type { CaseStatus, CellStatus } from "../model/results.ts";

/**
 * Glyphs and words for every status. Every rendering shows both: a glyph alone is unreadable to screen
 * readers and in plain-text logs, a word alone is hard to scan in a 40-row table.
 */
export const CELL_GLYPH: Record<CellStatus, string> = {
  pass: "✅",
  fail: "❌",
  warn: "⚠️",
  partial: "🟡",
  gap: "🚧",
  error: "💥",
  "n/a": "➖",
  "not-run": "⏸️",
};

export const CASE_GLYPH: Record<CaseStatus, string> = {
  pass: "✅",
  fail: "❌",
  warn: "⚠️",
  error: "💥",
  skip: "⏭️",
};

/** Display order: worst first, so a summary reads from what needs attention to what does not. */
export const CELL_STATUS_ORDER: readonly CellStatus[] = [
  "fail",
  "error",
  "partial",
  "gap",
  "warn",
  "not-run",
  "pass",
  "n/a",
];

export const CASE_STATUS_ORDER: readonly CaseStatus[] = ["fail", "error", "warn", "skip", "pass"];

/** Cell statuses that need a reader's attention (listed first in reports, annotated in CI). */
export const ATTENTION_STATUSES: ReadonlySet<CellStatus> = new Set<CellStatus>([
  "fail",
  "error",
  "partial",
  "gap",
  "warn",
]);

export function cellLabel(status: CellStatus): string {
  return `${CELL_GLYPH[status]} ${status}`;
}

export function caseLabel(status: CaseStatus): string {
  return `${CASE_GLYPH[status]} ${status}`;
}

/** Statuses of a case that count as a miss (shown with the case's reason). */
export function caseIsMiss(status: CaseStatus): boolean {
  return status === "fail" || status === "error" || status === "warn";
}
