import { z } from "zod";
import { CellSideSchema, EraSchema } from "./register.ts";
import type { CaseStatus, Cell, Results } from "./results.ts";

/**
 * The kill matrix (matrix/kill-matrix.yaml): for each deliberately broken relay under targets/broken/, which
 * cells its defect must fail and which it must still pass. test/kill-matrix.test.ts runs the harness against
 * every relay listed here and the reference relay, and checks the outcome with `checkRelay`,
 * `checkReference` and `caseKills` below. It proves the harness can fail what it claims to check: a broken
 * relay that survives its row, or a corpus case no relay can fail, means a check is missing.
 */

/** Cells of one run: a register row ("*": every exercised cell), narrowed by era, side and case ids. */
export const CellSelectorSchema = z
  .object({
    row: z.string().regex(/^(\*|sampling-[a-z0-9-]+)$/, "a register row id or *"),
    era: EraSchema.optional(),
    side: CellSideSchema.optional(),
    /** Case ids (of `row`) that must themselves have the expected status, not just their cell. */
    cases: z.array(z.string().min(1)).min(1).optional(),
  })
  .strict();
export type CellSelector = z.infer<typeof CellSelectorSchema>;

export const BrokenRelaySchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "a kebab-case name"),
    /** Target profile, relative to the project root. */
    target: z.string().min(1),
    /** The one defect, in a sentence. */
    defect: z.string().min(1),
    /** Where the defect was seen (a real relay, mcpx's notes, an SDK). */
    seenIn: z.string().min(1).optional(),
    /** Eras to run this relay in; default the matrix's `eras`. */
    eras: z.array(EraSchema).min(1).optional(),
    /** Every exercised cell matched must fail (fail or warn; with `cases`, those cases must fail too). */
    mustFail: z.array(CellSelectorSchema).default([]),
    /**
     * Every exercised cell matched must be anything but pass or partial (fail, warn, error…; with `cases`, those cases
     * must have run and not passed): for a relay the harness cannot drive at all (it never starts, never listens),
     * whose cells are the harness's `error`, which `mustFail` would count as surviving.
     */
    mustNotPass: z.array(CellSelectorSchema).default([]),
    /** Every exercised cell matched must pass: the defect stays in its lane (a failure here is a false red). */
    mustPass: z.array(CellSelectorSchema).default([]),
  })
  .strict();
export type BrokenRelay = z.infer<typeof BrokenRelaySchema>;

/** A corpus case ("row/case-id") with the reason it is listed. */
const CaseWithReason = z
  .object({
    case: z.string().regex(/^sampling-[a-z0-9-]+\/[a-z0-9][a-z0-9-]*$/, "row/case-id"),
    why: z.string().min(1),
  })
  .strict();

export const KillMatrixSchema = z
  .object({
    /** Default eras for every relay (kept few: the test runs every relay). */
    eras: z.array(EraSchema).min(1),
    /** The known-good relays (e.g. with and without a review surface): every exercised cell must pass. */
    references: z
      .array(
        z
          .object({
            target: z.string().min(1),
            eras: z.array(EraSchema).min(1).optional(),
            /** Run every row in every era listed (a known-good relay held to the whole corpus), not only the rows the broken relays need. */
            allRows: z.boolean().optional(),
            /**
             * Corpus cases this known-good relay does not implement yet ("row/case-id"), each with the reason: they
             * may fail here without failing the reference check, and must fail (a gap that passes is stale).
             */
            gaps: z.array(CaseWithReason).default([]),
          })
          .strict(),
      )
      .min(1),
    relays: z.array(BrokenRelaySchema).min(1),
    /**
     * The hostile zoo (targets/hostile/): relays that misbehave as processes (never start, crash, hang, garbage,
     * wrong ids, HTTP that never listens or drops its stream) or that work but behave badly around the protocol
     * (stderr floods, ignoring SIGTERM, a 10 MB frame, a byte-by-byte drip, a response to an id never used). Held
     * to the same selectors; their kills do not count for the corpus.
     */
    hostile: z.array(BrokenRelaySchema).default([]),
    /** Corpus cases no broken relay can fail, each with the reason (reported by the test, never silent). */
    unkillable: z.array(CaseWithReason).default([]),
  })
  .strict()
  .superRefine((m, ctx) => {
    const seen = new Set<string>();
    for (const list of ["relays", "hostile"] as const)
      m[list].forEach((r, i) => {
        if (seen.has(r.name))
          ctx.addIssue({ code: "custom", path: [list, i, "name"], message: `duplicate relay '${r.name}'` });
        seen.add(r.name);
        if (list === "relays" && r.mustFail.length + r.mustNotPass.length === 0)
          ctx.addIssue({
            code: "custom",
            path: [list, i, "mustFail"],
            message: "expected at least one mustFail or mustNotPass selector (what the defect must fail)",
          });
        if (list === "hostile" && r.mustFail.length + r.mustNotPass.length + r.mustPass.length === 0)
          ctx.addIssue({
            code: "custom",
            path: [list, i, "mustNotPass"],
            message: "expected at least one mustFail, mustNotPass or mustPass selector",
          });
      });
  });
export type KillMatrix = z.infer<typeof KillMatrixSchema>;

/** Every selector of a relay's entry. */
const selectorsOf = (r: Pick<BrokenRelay, "mustFail" | "mustNotPass" | "mustPass">): CellSelector[] => [
  ...r.mustFail,
  ...r.mustNotPass,
  ...r.mustPass,
];

/** A case status that shows the harness caught something (warn: a SHOULD row reported, not excused). */
export const isKill = (status: CaseStatus | Cell["status"]): boolean =>
  status === "fail" || status === "warn";

/** The judge's wording for a case failed only because its era's round trip failed (judge/case.ts). */
const PREREQUISITE = /^Prerequisite not met/;

export function relayEras(matrix: KillMatrix, relay: Pick<BrokenRelay, "eras">): KillMatrix["eras"] {
  return relay.eras ?? matrix.eras;
}

/** One harness run: these eras, these rows (undefined: every row). */
export interface PlannedRun {
  eras: KillMatrix["eras"];
  rows: string[] | undefined;
}

/** The rows to run in one era: those the selectors for that era name, or undefined (every row) for "*". */
function rowsFor(selectors: CellSelector[], era: string): string[] | undefined {
  const applicable = selectors.filter((s) => !s.era || s.era === era);
  if (applicable.some((s) => s.row === "*")) return undefined;
  return [...new Set(applicable.map((s) => s.row))].sort();
}

/** Groups eras that run the same rows into one run each (eras with nothing to check are left out). */
function groupRuns(
  perEra: Array<{ era: KillMatrix["eras"][number]; rows: string[] | undefined }>,
): PlannedRun[] {
  const groups = new Map<string, PlannedRun>();
  for (const { era, rows } of perEra) {
    if (rows && rows.length === 0) continue;
    const key = JSON.stringify(rows ?? "*");
    const group = groups.get(key);
    if (group) group.eras.push(era);
    else groups.set(key, { eras: [era], rows });
  }
  return [...groups.values()];
}

/**
 * The harness runs a broken relay needs: per era, only the rows its selectors for that era name (the round
 * trip always runs too), so a relay whose defect shows in one era's rows does not pay for every row everywhere.
 */
export function relayRuns(matrix: KillMatrix, relay: BrokenRelay): PlannedRun[] {
  const selectors = selectorsOf(relay);
  return groupRuns(relayEras(matrix, relay).map((era) => ({ era, rows: rowsFor(selectors, era) })));
}

/**
 * The runs a reference relay needs: every era and row the broken relays judged against it run in (`judgedBy`
 * picks them, e.g. by answerer kind), so each must-pass and must-fail is measured against a passing baseline.
 */
export function referenceRuns(
  matrix: KillMatrix,
  reference: KillMatrix["references"][number],
  judgedBy: BrokenRelay[],
): PlannedRun[] {
  const eras = reference.eras ?? matrix.eras;
  if (reference.allRows) return groupRuns(eras.map((era) => ({ era, rows: undefined })));
  const perEra = eras.map((era) => {
    const sets = judgedBy
      .filter((r) => relayEras(matrix, r).includes(era))
      .map((r) => rowsFor(selectorsOf(r), era));
    const rows = sets.some((x) => x === undefined)
      ? undefined
      : [...new Set(sets.flatMap((x) => x ?? []))].sort();
    return { era, rows };
  });
  return groupRuns(perEra);
}

/** Several runs of one relay as one result set (their cells never overlap: each era runs once). */
export function mergeResults(parts: Results[]): Results {
  const [first, ...rest] = parts;
  if (!first) throw new Error("no results to merge");
  return { ...first, cells: [...first.cells, ...rest.flatMap((r) => r.cells)] };
}

function describe(sel: CellSelector): string {
  const parts = [sel.row === "*" ? "every exercised cell" : sel.row];
  if (sel.side) parts.push(`side ${sel.side}`);
  if (sel.era) parts.push(`@${sel.era}`);
  if (sel.cases) parts.push(`cases ${sel.cases.join(", ")}`);
  return parts.join(" ");
}

const cellName = (c: Cell) => `${c.row}/${c.side}@${c.era}`;

/** A cell with at least one case that ran against the target (skipped cases exercise nothing). */
const exercisedCell = (c: Cell) => c.cases.some((k) => k.status !== "skip");

/**
 * Whether a cell passed everything the target could run: `pass`, or `partial` only because some cases could not
 * run against this kind of target (a plain client answerer has no review surface) while every case that ran passed.
 */
export function passedWhatRan(c: Cell): boolean {
  if (c.status === "pass") return true;
  return (
    c.status === "partial" &&
    c.cases.some((k) => k.status === "skip") &&
    c.cases.every((k) => k.status === "pass" || k.status === "skip")
  );
}

/** Exercised cells (with at least one case that ran) the selector matches. */
export function selectCells(results: Results, sel: CellSelector, exclude: CellSelector[] = []): Cell[] {
  const matches = (s: CellSelector, c: Cell) =>
    (s.row === "*" || s.row === c.row) && (!s.era || s.era === c.era) && (!s.side || s.side === c.side);
  return results.cells.filter(
    (c) => exercisedCell(c) && matches(sel, c) && !exclude.some((x) => matches(x, c)),
  );
}

/** The case verdicts of a cell, one clause each (optionally only those that did not pass). */
function caseReasons(cell: Cell, onlyNotPassing = false): string {
  return cell.cases
    .filter((c) => !onlyNotPassing || c.status !== "pass")
    .map((c) => `${c.id}: ${c.status} (${c.reason})`)
    .join("; ");
}

type Exercised = (sel: CellSelector, verb: "fail" | "pass" | "not pass") => Cell[];

/** Cells a must-fail selector names that the relay survived, and listed cases that did not fail. */
function mustFailProblems(sel: CellSelector, exercised: Exercised): string[] {
  const problems: string[] = [];
  const cells = exercised(sel, "fail");
  if (cells.length === 0) return problems;
  for (const cell of cells)
    if (!isKill(cell.status))
      problems.push(`survived ${cellName(cell)}: the cell is ${cell.status} — ${caseReasons(cell)}`);
  for (const id of sel.cases ?? []) {
    const found = cells.flatMap((c) => c.cases.filter((k) => k.id === id).map((k) => ({ cell: c, k })));
    if (found.length === 0) problems.push(`must fail case ${id} in ${describe(sel)}, but it did not run`);
    for (const { cell, k } of found)
      if (!isKill(k.status))
        problems.push(`survived case ${id} in ${cellName(cell)}: ${k.status} (${k.reason})`);
  }
  return problems;
}

/** Cells a must-not-pass selector names that passed (a hostile relay the harness credited anyway). */
function mustNotPassProblems(sel: CellSelector, exercised: Exercised): string[] {
  const problems: string[] = [];
  const cells = exercised(sel, "not pass");
  for (const cell of cells)
    if (cell.status === "pass" || cell.status === "partial")
      problems.push(
        `passed ${cellName(cell)}: the cell is ${cell.status}, but this relay must never pass it`,
      );
  for (const id of sel.cases ?? []) {
    const found = cells.flatMap((c) => c.cases.filter((k) => k.id === id).map((k) => ({ cell: c, k })));
    if (cells.length > 0 && found.length === 0)
      problems.push(`must not pass case ${id} in ${describe(sel)}, but it did not run`);
    for (const { cell, k } of found)
      if (k.status === "pass" || k.status === "skip")
        problems.push(`case ${id} in ${cellName(cell)} is ${k.status}, but this relay must never pass it`);
  }
  return problems;
}

/** Cells a must-pass selector names that failed: false reds. "*" means every exercised cell but the defect's own. */
function mustPassProblems(
  sel: CellSelector,
  relay: BrokenRelay,
  results: Results,
  exercised: Exercised,
): string[] {
  const cells =
    sel.row === "*"
      ? selectCells(results, sel, [...relay.mustFail, ...relay.mustNotPass])
      : exercised(sel, "pass");
  const problems = cells
    .filter((cell) => !passedWhatRan(cell))
    .map(
      (cell) =>
        `false red: ${cellName(cell)} is ${cell.status}, but this defect must not fail it — ${caseReasons(cell, true)}`,
    );
  for (const id of sel.cases ?? [])
    if (cells.length > 0 && !cells.some((c) => c.cases.some((k) => k.id === id)))
      problems.push(`must pass case ${id} in ${describe(sel)}, but it did not run`);
  return problems;
}

/** Problems with one broken relay's run: survived rows it must fail, failed rows it must pass. */
export function checkRelay(relay: BrokenRelay, results: Results): string[] {
  const problems: string[] = [];
  /** The cells a selector names; none is itself a problem (a stale kill matrix, or the cases are gone). */
  const exercised: Exercised = (sel, verb) => {
    const cells = selectCells(results, sel);
    if (cells.length === 0)
      problems.push(
        `must ${verb} ${describe(sel)}, but no such cell was exercised (stale kill matrix, or the cases are gone)`,
      );
    return cells;
  };
  for (const sel of relay.mustFail) problems.push(...mustFailProblems(sel, exercised));
  for (const sel of relay.mustNotPass) problems.push(...mustNotPassProblems(sel, exercised));
  for (const sel of relay.mustPass) problems.push(...mustPassProblems(sel, relay, results, exercised));
  return problems;
}

/** Problems with a known-good relay's run: any exercised cell that did not pass everything it ran. */
export function checkReference(results: Results, gaps: readonly string[] = []): string[] {
  const gap = (c: Cell, k: Cell["cases"][number]) => gaps.includes(`${c.row}/${k.id}`);
  const missed = (c: Cell) => c.cases.filter((k) => k.status !== "pass" && k.status !== "skip");
  const problems = results.cells
    .filter((c) => exercisedCell(c) && !passedWhatRan(c))
    .filter((c) => missed(c).length === 0 || missed(c).some((k) => !gap(c, k)))
    .map(
      (c) =>
        `${cellName(c)} is ${c.status}${c.note ? ` (${c.note})` : ""}: ${missed(c)
          .map((k) => `${k.id}: ${k.reason}`)
          .join("; ")}`,
    );
  for (const g of gaps) {
    const ran = results.cells.flatMap((c) => c.cases.filter((k) => `${c.row}/${k.id}` === g));
    if (ran.length > 0 && ran.every((k) => k.status === "pass"))
      problems.push(`${g} is listed as a gap of this reference relay but passes: remove the gap`);
  }
  return problems;
}

/**
 * Which relays kill each case ("row/id"): the case itself failed (or warned) in some era. A case failed only
 * through the round-trip prerequisite does not count — otherwise a relay that never relays would "kill"
 * every case and prove nothing about the case's own check. When the prerequisite verdict hides the case's own
 * (the judge keeps the case's checks), `ownCheckFailed` looks at them, e.g. in the evidence file.
 */
export function caseKills(
  runs: Map<string, Results>,
  ownCheckFailed: (relay: string, cell: Cell, kase: Cell["cases"][number]) => boolean = () => false,
): Map<string, Set<string>> {
  const kills = new Map<string, Set<string>>();
  for (const [relay, results] of runs) {
    for (const cell of results.cells) {
      for (const k of cell.cases) {
        if (!isKill(k.status)) continue;
        if (PREREQUISITE.test(k.reason) && !ownCheckFailed(relay, cell, k)) continue;
        const key = `${cell.row}/${k.id}`;
        kills.set(key, (kills.get(key) ?? new Set()).add(relay));
      }
    }
  }
  return kills;
}

/** Cells a relay failed that its kill-matrix entry does not mention (informational: collateral kills). */
export function unlistedFailures(relay: BrokenRelay, results: Results): string[] {
  const listed = selectorsOf(relay);
  return selectCells(results, { row: "*" }, listed)
    .filter((c) => isKill(c.status))
    .map(cellName);
}
