import { z } from "zod";
import { CellSideSchema, EraSchema } from "../model/register.ts";
import type { Cell, CellStatus, Results } from "../model/results.ts";

/**
 * Baselines: expected failures, each with a reason, a tracking issue and an expiry date, so a known gap
 * can be accepted for a while without hiding regressions or outliving its fix.
 */

const IsoDate = z.preprocess(
  (v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? v.toISOString().slice(0, 10) : v),
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "a date YYYY-MM-DD")
    .refine((s) => {
      const d = new Date(`${s}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
    }, "a real calendar date YYYY-MM-DD"),
);

export const BaselineEntrySchema = z
  .object({
    row: z.string().min(1),
    /** Unset: every era of the row. */
    era: EraSchema.optional(),
    /** Unset: every side of the row. */
    side: CellSideSchema.optional(),
    reason: z.string().min(1),
    issue: z.string().min(1),
    /** Last day the entry is honoured (inclusive). */
    expires: IsoDate,
  })
  .strict();
export type BaselineEntry = z.infer<typeof BaselineEntrySchema>;

export const BaselineSchema = z.object({ expectedFailures: z.array(BaselineEntrySchema) }).strict();
export type Baseline = z.infer<typeof BaselineSchema>;

/**
 * Statuses that make `run` exit non-zero unless baselined: fail and gap are the relay's (exit 1), error is the
 * harness's (exit 3 when nothing failed). `warn` and `partial` are reported but do not fail a run; `gate` decides
 * whether a partial cell is enough for a required row.
 */
export const RUN_FAILING: ReadonlySet<CellStatus> = new Set<CellStatus>(["fail", "error", "gap"]);

/** Statuses that are not a failure of the relay: a baseline entry whose cells all have one is stale. */
export const NOT_FAILING: ReadonlySet<CellStatus> = new Set<CellStatus>(["pass", "n/a"]);

/** Today's date (UTC) as YYYY-MM-DD. */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export function entryMatches(entry: BaselineEntry, cell: Pick<Cell, "row" | "era" | "side">): boolean {
  return (
    entry.row === cell.row &&
    (entry.era === undefined || entry.era === cell.era) &&
    (entry.side === undefined || entry.side === cell.side)
  );
}

export function isExpired(entry: BaselineEntry, today: string): boolean {
  return entry.expires < today;
}

export function describeEntry(entry: BaselineEntry, index: number): string {
  const scope = `${entry.row}${entry.era ? `@${entry.era}` : ""}${entry.side ? ` (${entry.side})` : ""}`;
  return `expectedFailures[${index}] ${scope}, ${entry.issue}`;
}

export interface IndexedEntry {
  entry: BaselineEntry;
  index: number;
}

/** The entry that covers a cell: an unexpired one if any (most specific first), else an expired one. */
export function coveringEntry(
  baseline: Baseline | undefined,
  cell: Cell,
  today: string,
): IndexedEntry | undefined {
  const matches = (baseline?.expectedFailures ?? [])
    .map((entry, index) => ({ entry, index }))
    .filter(({ entry }) => entryMatches(entry, cell));
  const specificity = (e: BaselineEntry) => (e.era ? 2 : 0) + (e.side ? 1 : 0);
  matches.sort(
    (a, b) =>
      Number(isExpired(a.entry, today)) - Number(isExpired(b.entry, today)) ||
      specificity(b.entry) - specificity(a.entry) ||
      a.index - b.index,
  );
  return matches[0];
}

export interface BaselineHygiene {
  /** Entries whose cells in these results all pass (or are n/a): the failure is fixed, remove the entry. */
  stale: IndexedEntry[];
  /** Entries past their expiry date. */
  expired: IndexedEntry[];
  /** Entries that match no cell of these results (a narrower run); reported, not an error. */
  unmatched: IndexedEntry[];
}

export function baselineHygiene(
  results: Results,
  baseline: Baseline | undefined,
  today: string,
): BaselineHygiene {
  const out: BaselineHygiene = { stale: [], expired: [], unmatched: [] };
  (baseline?.expectedFailures ?? []).forEach((entry, index) => {
    const cells = results.cells.filter((c) => entryMatches(entry, c));
    if (isExpired(entry, today)) out.expired.push({ entry, index });
    if (cells.length === 0) out.unmatched.push({ entry, index });
    else if (cells.every((c) => NOT_FAILING.has(c.status))) out.stale.push({ entry, index });
  });
  return out;
}

export type RunCellOutcome = "pass" | "n/a" | "not-run" | "warning" | "expected-failure" | "failure";

export interface RunBaselineResult {
  /**
   * 0 when every failing cell is baselined by an unexpired entry and no entry is stale or expired; 1 when a cell
   * failed (the relay's) or an entry is stale or expired; 3 when only harness errors remain (cells not driven).
   */
  exitCode: 0 | 1 | 3;
  cells: Array<{ cell: Cell; outcome: RunCellOutcome; entry?: IndexedEntry }>;
  /** Failing cells no unexpired entry covers. */
  failures: Cell[];
  expectedFailures: Array<{ cell: Cell; entry: IndexedEntry }>;
  hygiene: BaselineHygiene;
  /** One line per reason the exit code is 1, then one per expected failure (prefixed "expected"). */
  lines: string[];
}

function cellName(cell: Pick<Cell, "row" | "era" | "side">): string {
  return `${cell.row} @ ${cell.era} (${cell.side})`;
}

/** The first failing case's reason, else the cell's note, else its status. */
export function cellReason(cell: Cell): string {
  const failing = cell.cases.find((c) => c.status !== "pass" && c.status !== "skip");
  return failing ? `${failing.id}: ${failing.reason}` : (cell.note ?? `cell is ${cell.status}`);
}

/**
 * The exit code of `run --baseline`: failing cells (fail, error, gap) must each be covered by an
 * unexpired entry; stale and expired entries also fail, so a baseline cannot outlive its reason.
 * `today` is YYYY-MM-DD (UTC by default).
 */
export function applyBaseline(
  results: Results,
  baseline: Baseline | undefined,
  today: string = todayUtc(),
): RunBaselineResult {
  const cells: RunBaselineResult["cells"] = [];
  const failures: Cell[] = [];
  const expectedFailures: RunBaselineResult["expectedFailures"] = [];
  const lines: string[] = [];
  for (const cell of results.cells) {
    if (cell.status === "pass" || cell.status === "n/a" || cell.status === "not-run") {
      cells.push({ cell, outcome: cell.status });
      continue;
    }
    if (!RUN_FAILING.has(cell.status)) {
      cells.push({ cell, outcome: "warning" });
      continue;
    }
    const entry = coveringEntry(baseline, cell, today);
    if (entry && !isExpired(entry.entry, today)) {
      cells.push({ cell, outcome: "expected-failure", entry });
      expectedFailures.push({ cell, entry });
    } else {
      cells.push({ cell, outcome: "failure", ...(entry ? { entry } : {}) });
      failures.push(cell);
      lines.push(`FAIL ${cellName(cell)}: ${cell.status}: ${cellReason(cell)}`);
    }
  }
  const hygiene = baselineHygiene(results, baseline, today);
  for (const { entry, index } of hygiene.stale)
    lines.push(`FAIL stale baseline entry ${describeEntry(entry, index)}: its cells now pass; remove it`);
  for (const { entry, index } of hygiene.expired)
    lines.push(`FAIL expired baseline entry ${describeEntry(entry, index)}: expired ${entry.expires}`);
  for (const { cell, entry } of expectedFailures)
    lines.push(
      `expected ${cellName(cell)}: ${cell.status}, baselined by ${describeEntry(entry.entry, entry.index)} until ${entry.entry.expires}: ${entry.entry.reason}`,
    );
  const relayFailed = failures.some((c) => c.status !== "error");
  const exitCode =
    relayFailed || hygiene.stale.length > 0 || hygiene.expired.length > 0 ? 1 : failures.length > 0 ? 3 : 0;
  return { exitCode, cells, failures, expectedFailures, hygiene, lines };
}
