import { InputError } from "../model/errors.ts";
import type { Cell, Results } from "../model/results.ts";
import { ERAS, type Era, isEra } from "../protocol/eras.ts";
import {
  type Baseline,
  baselineHygiene,
  cellReason,
  coveringEntry,
  describeEntry,
  isExpired,
  todayUtc,
} from "./baseline.ts";

/** One `--require` item: a row, optionally narrowed to one era. */
export interface Requirement {
  row: string;
  era?: Era;
}

/** Parses `ROW[@ERA][,ROW[@ERA]…]` (or several such strings). A bad era or an empty list is an InputError. */
export function parseRequire(spec: string | readonly string[]): Requirement[] {
  const items = (typeof spec === "string" ? [spec] : spec)
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (items.length === 0) throw new InputError("expected at least one ROW[@ERA]", undefined, "--require");
  const out: Requirement[] = [];
  for (const item of items) {
    const at = item.lastIndexOf("@");
    const row = at >= 0 ? item.slice(0, at) : item;
    const era = at >= 0 ? item.slice(at + 1) : undefined;
    if (!/^[a-z0-9][a-z0-9-]*$/.test(row))
      throw new InputError(`'${item}': expected a row id (kebab-case) before any @`, undefined, "--require");
    if (era !== undefined && !isEra(era))
      throw new InputError(
        `'${item}': unknown era '${era}' (expected one of ${ERAS.join(", ")})`,
        undefined,
        "--require",
      );
    if (!out.some((r) => r.row === row && r.era === era)) out.push(era ? { row, era } : { row });
  }
  return out;
}

export interface GateOptions {
  require: readonly Requirement[];
  baseline?: Baseline;
  /** YYYY-MM-DD; default today (UTC). Injectable for tests. */
  today?: string;
  /** Accept a requirement whose cells are all n/a (nothing judged); without it such a requirement fails. */
  allowNa?: boolean;
}

export type GateLineKind = "ok" | "n/a" | "expected" | "not-run" | "fail" | "stale" | "expired" | "note";

export interface GateLine {
  kind: GateLineKind;
  text: string;
}

export interface GateResult {
  /** true when the gate passes (exit 0). */
  ok: boolean;
  exitCode: 0 | 1;
  /** Every line, in order; the last one is the verdict. */
  lines: GateLine[];
  /** The lines that fail the gate. */
  failures: GateLine[];
}

const FAILING_KINDS: ReadonlySet<GateLineKind> = new Set<GateLineKind>([
  "not-run",
  "fail",
  "stale",
  "expired",
]);

function where(cell: Pick<Cell, "row" | "era" | "side">): string {
  return `${cell.row}@${cell.era} (${cell.side})`;
}

/**
 * The gate: every cell of every required row (optionally one era) must pass. n/a cells are reported and do
 * not fail, but a requirement whose cells are all n/a fails unless `allowNa` (nothing was judged); warn, not-run, partial, gap, fail and error do, unless an unexpired baseline entry expects it.
 * A required row (or row@era) with no cell at all fails as not run. Baseline hygiene applies to every entry:
 * one whose cells now all pass is stale, one past its expiry date is expired; both fail the gate.
 */
// Long: each requirement and each baseline entry is judged in one readable sequence of rules.
export function gate(results: Results, options: GateOptions): GateResult {
  const today = options.today ?? todayUtc();
  const lines: GateLine[] = [];
  const counts = { ok: 0, na: 0, expected: 0 };
  for (const req of options.require) {
    const label = `${req.row}${req.era ? `@${req.era}` : ""}`;
    const cells = results.cells.filter(
      (c) => c.row === req.row && (req.era === undefined || c.era === req.era),
    );
    if (cells.length === 0) {
      lines.push({ kind: "not-run", text: `FAIL ${label}: not run (no cell in results)` });
      continue;
    }
    if (!options.allowNa && cells.every((c) => c.status === "n/a")) {
      lines.push({
        kind: "fail",
        text: `FAIL ${label}: every cell is n/a, so nothing was judged (--allow-na accepts that)`,
      });
      continue;
    }
    for (const cell of cells) {
      if (cell.status === "pass") {
        counts.ok++;
        lines.push({ kind: "ok", text: `ok ${where(cell)}: pass` });
        continue;
      }
      if (cell.status === "n/a") {
        counts.na++;
        lines.push({
          kind: "n/a",
          text: `n/a ${where(cell)}: ${cell.note ?? "does not apply"} (not judged)`,
        });
        continue;
      }
      const entry = coveringEntry(options.baseline, cell, today);
      if (entry && !isExpired(entry.entry, today)) {
        counts.expected++;
        lines.push({
          kind: "expected",
          text: `expected ${where(cell)}: ${cell.status}, baselined by ${describeEntry(entry.entry, entry.index)} until ${entry.entry.expires}: ${entry.entry.reason}`,
        });
        continue;
      }
      const kind: GateLineKind = cell.status === "not-run" ? "not-run" : "fail";
      const what = cell.status === "not-run" ? "not run" : cell.status;
      const baselined = entry
        ? ` (its baseline entry ${describeEntry(entry.entry, entry.index)} expired ${entry.entry.expires})`
        : "";
      lines.push({ kind, text: `FAIL ${where(cell)}: ${what}: ${cellReason(cell)}${baselined}` });
    }
  }
  const hygiene = baselineHygiene(results, options.baseline, today);
  for (const { entry, index } of hygiene.stale)
    lines.push({
      kind: "stale",
      text: `FAIL stale baseline entry ${describeEntry(entry, index)}: its cells now pass; remove the entry`,
    });
  for (const { entry, index } of hygiene.expired)
    lines.push({
      kind: "expired",
      text: `FAIL expired baseline entry ${describeEntry(entry, index)}: expired ${entry.expires} (today ${today}); fix the failure or renew the entry`,
    });
  for (const { entry, index } of hygiene.unmatched)
    lines.push({
      kind: "note",
      text: `note baseline entry ${describeEntry(entry, index)} matches no cell in these results`,
    });

  const failures = lines.filter((l) => FAILING_KINDS.has(l.kind));
  const ok = failures.length === 0;
  const tally = `${counts.ok} pass, ${counts.na} n/a, ${counts.expected} expected failure(s)`;
  lines.push({
    kind: "note",
    text: ok ? `gate passed: ${tally}` : `gate failed: ${failures.length} reason(s); ${tally}`,
  });
  return { ok, exitCode: ok ? 0 : 1, lines, failures };
}
