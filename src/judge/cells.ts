import { type CellSide, type Register, type RegisterRow, rowCellSides } from "../model/register.ts";
import type { CaseResult, Cell, CellStatus, Results } from "../model/results.ts";
import type { Era } from "../protocol/eras.ts";
import { COVERAGE_ROW, type Coverage, missingCoverage, requiredCoverage } from "./coverage.ts";

export interface JudgedCase {
  row: string;
  era: Era;
  side: CellSide;
  result: CaseResult;
  /** Where a validation case's violations sit (see coverage.ts). */
  covers?: Coverage;
}

/** The cell side a case judges: its own when the row is on both sides, else the row's. */
export function caseSide(row: RegisterRow, side: CellSide | undefined): CellSide {
  if (side) return side;
  return row.side === "both" ? "client" : (row.side as CellSide);
}

/**
 * Worst case status wins: fail > error > warn > pass. A cell passes only when every case of it ran: a case that
 * could not run against this target (skip) turns a pass into `partial`, and a cell of skips alone is `not-run`.
 */
export function cellStatus(cases: CaseResult[]): CellStatus {
  const statuses = new Set(cases.map((c) => c.status));
  if (statuses.has("fail")) return "fail";
  if (statuses.has("error")) return "error";
  if (statuses.has("warn")) return "warn";
  if (!statuses.has("pass")) return "not-run";
  return statuses.has("skip") ? "partial" : "pass";
}

/** Why a cell is partial or not-run: the distinct reasons its skipped cases give. */
function skipNote(cases: CaseResult[]): string | undefined {
  const reasons = [...new Set(cases.filter((c) => c.status === "skip").map((c) => c.reason))];
  if (reasons.length === 0) return undefined;
  const n = cases.filter((c) => c.status === "skip").length;
  return `${n} of ${cases.length} cases not run against this target: ${reasons.join("; ")}`;
}

/** The #256 validation row is credited only when its cases cover every message index and content type. */
function coverageNote(row: string, era: Era, side: CellSide, judged: JudgedCase[]): string | undefined {
  if (row !== COVERAGE_ROW) return undefined;
  return missingCoverage(
    requiredCoverage(era, side),
    judged.map((j) => j.covers ?? { indexes: [], contentTypes: [] }),
  );
}

/**
 * Builds every cell (row × era × side) for the eras that were selected: n/a rows keep their reason, testable
 * rows with no case are `not-run` (never a silent pass). Why a case could not run against this target travels as a
 * `skip` (or harness `error`) case result of its own, so the cell's note says it.
 */
export function buildCells(
  register: Register,
  judged: JudgedCase[],
  eras: Era[],
  rows?: Set<string>,
): Cell[] {
  const cells: Cell[] = [];
  for (const row of register.rows) {
    if (rows && !rows.has(row.id)) continue;
    for (const era of row.eras) {
      if (!eras.includes(era)) continue;
      for (const side of rowCellSides(row)) {
        if (row.na) {
          cells.push({ row: row.id, era, side, status: "n/a", note: row.na, cases: [] });
          continue;
        }
        const mine = judged.filter((j) => j.row === row.id && j.era === era && j.side === side);
        const cases = mine.map((j) => j.result);
        if (cases.length === 0) {
          cells.push({
            row: row.id,
            era,
            side,
            status: "not-run",
            note: row.pending ? `pending: ${row.pending}` : "no case in the corpus exercises this cell",
            cases: [],
          });
          continue;
        }
        if (cases.every((c) => c.status === "skip" && c.na)) {
          const note = [...new Set(cases.map((c) => c.reason))].join("; ");
          cells.push({ row: row.id, era, side, status: "n/a", note, cases });
          continue;
        }
        // A case that does not apply to this target (n/a) neither exercises the rule nor leaves it partly unexercised.
        let status = cellStatus(cases.filter((c) => !(c.status === "skip" && c.na)));
        let note = status === "partial" || status === "not-run" ? skipNote(cases) : undefined;
        const uncovered = status === "pass" ? coverageNote(row.id, era, side, mine) : undefined;
        if (uncovered) {
          status = "partial";
          note = uncovered;
        }
        cells.push({ row: row.id, era, side, status, ...(note ? { note } : {}), cases });
      }
    }
  }
  return cells;
}

export function summarize(cells: Cell[]): Results["summary"] {
  const summary: Record<string, number> = { pass: 0, fail: 0, warn: 0, error: 0, "not-run": 0, "n/a": 0 };
  for (const cell of cells) summary[cell.status] = (summary[cell.status] ?? 0) + 1;
  return summary;
}
