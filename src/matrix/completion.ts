import type { CellSide, Register } from "../model/register.ts";
import { rowCellSides } from "../model/register.ts";
import type { CaseResult, Cell, CellStatus, Results } from "../model/results.ts";
import type { Era } from "../protocol/eras.ts";
import { evidenceHref, isHttpsUrl, mdText } from "./escape.ts";
import { displayTime, rowIndex, runEras, shortSha } from "./model.ts";
import { CELL_GLYPH, caseLabel, cellLabel } from "./status.ts";
import { renderTemplate } from "./templates.ts";
import { type Bullet, caseMatches, type RowRef, type TrackingIssue } from "./tracking.ts";

export type BulletStatus = "met" | "not met" | "not run";

export interface EvidenceItem {
  row: string;
  era: Era;
  side: CellSide;
  label: string;
  status: string;
  caseId?: string;
  path?: string;
  sha256?: string;
  reason?: string;
}

export interface RefJudgement {
  ref: RowRef;
  status: BulletStatus;
  /** One sentence: why this status. */
  detail: string;
  items: EvidenceItem[];
}

export interface BulletJudgement {
  bullet: Bullet;
  status: BulletStatus;
  refs: RefJudgement[];
  /** Why the bullet as a whole has its status, when its refs alone do not say (a bullet resting on checks). */
  detail?: string;
}

export interface Completion {
  issue: TrackingIssue;
  bullets: BulletJudgement[];
  /** true only when every bullet is met. */
  mayClose: boolean;
}

const worst = (statuses: BulletStatus[]): BulletStatus =>
  statuses.includes("not met") ? "not met" : statuses.includes("not run") ? "not run" : "met";

function describeRef(ref: RowRef): string {
  const parts = [ref.row];
  if (ref.eras) parts.push(`@ ${ref.eras.join(", ")}`);
  if (ref.sides) parts.push(`(${ref.sides.join(", ")})`);
  if (ref.cases) parts.push(`cases ${ref.cases.join(", ")}`);
  return parts.join(" ");
}

/** The cells a ref names (each era and side it needs, by default the register row's), and those missing. */
function refScope(
  results: Results,
  register: Register,
  ref: RowRef,
): { eras: Era[]; sides: CellSide[]; cells: Cell[]; missing: string[] } {
  const reg = rowIndex(register).get(ref.row);
  const present = results.cells.filter((c) => c.row === ref.row);
  const runScope = new Set<Era>(runEras(results));
  let eras: Era[] = ref.eras ?? reg?.eras ?? [...new Set(present.map((c) => c.era))];
  // A results file that records its eras only judges those (a run may be narrowed with --era), unless the
  // ref names eras explicitly: then each must have been run.
  if (!ref.eras && results.eras) eras = eras.filter((e) => runScope.has(e));
  const sides: CellSide[] = ref.sides ?? (reg ? rowCellSides(reg) : [...new Set(present.map((c) => c.side))]);
  const missing: string[] = [];
  const cells: Cell[] = [];
  for (const era of eras)
    for (const side of sides) {
      const cell = present.find((c) => c.era === era && c.side === side);
      if (!cell) missing.push(`${era} (${side})`);
      else cells.push(cell);
    }
  return { eras, sides, cells, missing };
}

const caseItem = (cell: Cell, c: CaseResult): EvidenceItem => ({
  row: cell.row,
  era: cell.era,
  side: cell.side,
  label: caseLabel(c.status),
  status: c.status,
  caseId: c.id,
  ...(c.evidence ? { path: c.evidence } : {}),
  ...(c.evidenceSha256 ? { sha256: c.evidenceSha256 } : {}),
  ...(c.status !== "pass" ? { reason: c.reason } : {}),
});

/**
 * Judges one row reference. The cells it needs are every (era, side) of the ref, defaulting to the register
 * row's eras (those the run selected when it recorded its eras) and sides; a missing or not-run cell makes
 * the ref "not run". With `cases`, only matching cases decide: all must pass, and at least one must exist.
 */
// Long: the ref's scope (eras, sides, cases) and its verdict are decided in one place, so no rule hides elsewhere.
export function judgeRef(
  results: Results,
  register: Register,
  ref: RowRef,
  accept: readonly CellStatus[],
): RefJudgement {
  const { eras, sides, cells, missing } = refScope(results, register, ref);
  const items: EvidenceItem[] = [];
  if (eras.length === 0 || sides.length === 0 || cells.length === 0)
    return { ref, status: "not run", detail: `no cell of ${describeRef(ref)} is in the results`, items };
  const notRunCells = cells.filter((c) => c.status === "not-run");
  if (ref.cases) {
    const patterns = ref.cases;
    const matched = cells.flatMap((cell) =>
      cell.cases.filter((c) => caseMatches(patterns, c.id)).map((c) => ({ cell, c })),
    );
    for (const { cell, c } of matched) items.push(caseItem(cell, c));
    const bad = matched.filter(({ c }) => c.status === "fail" || c.status === "error" || c.status === "warn");
    if (bad.length > 0)
      return {
        ref,
        status: "not met",
        detail: `${bad.length} of ${matched.length} matching case run(s) did not pass`,
        items,
      };
    if (matched.length === 0)
      return { ref, status: "not run", detail: `no case matching ${patterns.join(", ")} ran`, items };
    const skipped = matched.filter(({ c }) => c.status === "skip");
    if (skipped.length > 0 || missing.length > 0 || notRunCells.length > 0) {
      const why = [
        skipped.length > 0 ? `${skipped.length} matching case run(s) skipped` : "",
        missing.length > 0 ? `no cell for ${missing.join(", ")}` : "",
        notRunCells.length > 0 ? `not run: ${notRunCells.map((c) => `${c.era} (${c.side})`).join(", ")}` : "",
      ].filter(Boolean);
      return { ref, status: "not run", detail: why.join("; "), items };
    }
    return { ref, status: "met", detail: `${matched.length} matching case run(s) passed`, items };
  }

  for (const cell of cells) {
    if (cell.cases.length === 0)
      items.push({
        row: cell.row,
        era: cell.era,
        side: cell.side,
        label: cellLabel(cell.status),
        status: cell.status,
        ...(cell.note ? { reason: cell.note } : {}),
      });
    for (const c of cell.cases) items.push(caseItem(cell, c));
  }
  const judged = cells.filter((c) => c.status !== "n/a");
  const bad = judged.filter((c) => !accept.includes(c.status) && c.status !== "not-run");
  if (bad.length > 0)
    return {
      ref,
      status: "not met",
      detail: `${bad.length} of ${cells.length} cell(s) are not ${accept.join(" or ")}: ${bad.map((c) => `${c.era} (${c.side}) ${c.status}`).join(", ")}${missing.length > 0 ? `; no cell for ${missing.join(", ")}` : ""}`,
      items,
    };
  if (missing.length > 0 || notRunCells.length > 0) {
    const why = [
      missing.length > 0 ? `no cell for ${missing.join(", ")}` : "",
      notRunCells.length > 0 ? `not run: ${notRunCells.map((c) => `${c.era} (${c.side})`).join(", ")}` : "",
    ].filter(Boolean);
    return { ref, status: "not run", detail: why.join("; "), items };
  }
  if (judged.length === 0)
    return { ref, status: "not met", detail: "every cell is n/a: nothing shows the behaviour", items };
  // A partial cell is met only where the bullet accepts it: say why it is partial, once per reason.
  const partial = skipReasons(judged.filter((c) => c.status === "partial"));
  const why = partial ? ` (partial: ${partial})` : "";
  return { ref, status: "met", detail: `${judged.length} cell(s) ${accept.join(" or ")}${why}`, items };
}

/** A case result's outcome on the checks a bullet rests on: undefined when it carries none of them. */
function checksHeld(c: CaseResult, ids: readonly string[]): boolean | undefined {
  const named = ids.filter((id) => c.checks?.[id] !== undefined);
  return named.length === 0 ? undefined : named.every((id) => c.checks![id]);
}

/**
 * One ref of a bullet that rests on checks: the case results of its cells carrying them (its row's own cases and
 * other rows' counted toward it, cases of other kinds left out), met when some ran and all held.
 */
function judgeRefChecks(results: Results, register: Register, ref: RowRef, ids: readonly string[]) {
  const { cells } = refScope(results, register, ref);
  const carrying = cells.flatMap((cell) =>
    cell.cases
      .filter((c) => (!ref.cases || caseMatches(ref.cases, c.id)) && checksHeld(c, ids) !== undefined)
      .map((c) => ({ cell, c, held: checksHeld(c, ids)! })),
  );
  const items = carrying.map(({ cell, c, held }) => ({
    ...caseItem(cell, c),
    label: caseLabel(held ? "pass" : "fail"),
    status: held ? "pass" : "fail",
    ...(held ? { reason: undefined } : { reason: c.reason }),
  }));
  const failed = carrying.filter((x) => !x.held);
  const named = ids.join(", ");
  // A recorded gap says the behaviour does not exist: no check that ran elsewhere makes up for it.
  const gaps = cells.filter((c) => c.status === "gap");
  for (const cell of gaps)
    items.push({
      row: cell.row,
      era: cell.era,
      side: cell.side,
      label: cellLabel(cell.status),
      status: cell.status,
      ...(cell.note ? { reason: cell.note } : {}),
    });
  const judgement: RefJudgement =
    gaps.length > 0
      ? {
          ref,
          status: "not met",
          detail: `a recorded gap: ${gaps.map((c) => `${c.era} (${c.side})`).join(", ")}`,
          items,
        }
      : failed.length > 0
        ? {
            ref,
            status: "not met",
            detail: `${failed.length} of ${carrying.length} ${named} check(s) did not hold`,
            items,
          }
        : carrying.length > 0
          ? { ref, status: "met", detail: `${carrying.length} ${named} check(s) held`, items }
          : {
              ref,
              status: "not run",
              detail: `no case of these cells that ran carried ${named}${notRunNote(cells)}`,
              items,
            };
  return { judgement, carrying };
}

/**
 * Why cases of these cells did not run against this target, each reason once (a cell's note counts its cases, so it
 * differs from era to era); cases that do not apply (n/a) are left out: they leave nothing of the rule unexercised.
 */
function skipReasons(cells: Cell[]): string {
  const reasons = cells.flatMap((c) =>
    c.cases.filter((x) => x.status === "skip" && !x.na).map((x) => x.reason),
  );
  return [...new Set(reasons)].join("; ");
}

/** Why the cells' cases did not run against this target, as a clause ("" when they all ran). */
function notRunNote(cells: Cell[]): string {
  const reasons = skipReasons(cells);
  return reasons ? ` (not run: ${reasons})` : "";
}

/**
 * A bullet that rests on checks (`checks:`): every ref's cells are searched for case results carrying them; the
 * bullet is not met when one did not hold (or a cell is a recorded gap), not run when an era of its rows has none that
 * ran, met otherwise. A ref with none of them (its cases did not run against this target) does not fail the bullet on
 * its own: what the bullet rests on is the checks that ran, wherever in its rows they were judged.
 */
function judgeBulletChecks(results: Results, register: Register, bullet: Bullet, ids: readonly string[]) {
  const judged = bullet.rows.map((ref) => judgeRefChecks(results, register, ref, ids));
  const refs = judged.map((j) => j.judgement);
  const eras = new Set(bullet.rows.flatMap((ref) => refScope(results, register, ref).eras));
  const heldIn = new Set(judged.flatMap((j) => j.carrying.map((x) => x.cell.era)));
  const without = [...eras].filter((e) => !heldIn.has(e));
  const status: BulletStatus = refs.some((r) => r.status === "not met")
    ? "not met"
    : eras.size === 0 || without.length > 0
      ? "not run"
      : "met";
  const detail =
    status === "not run"
      ? `no ${ids.join(", ")} check ran in ${without.length > 0 ? without.join(", ") : "any era"}`
      : undefined;
  return { bullet, status, refs, ...(detail ? { detail } : {}) };
}

export function judgeBullet(results: Results, register: Register, bullet: Bullet): BulletJudgement {
  if (bullet.checks) return judgeBulletChecks(results, register, bullet, bullet.checks);
  const accept = bullet.accept ?? ["pass"];
  const refs = bullet.rows.map((ref) => judgeRef(results, register, ref, accept));
  const statuses = refs.map((r) => r.status);
  let status: BulletStatus;
  if (bullet.match === "any") status = statuses.includes("met") ? "met" : worst(statuses);
  else status = worst(statuses);
  return { bullet, status, refs };
}

/** Judges every bullet of a tracking issue against one results file. */
export function judgeCompletion(results: Results, register: Register, issue: TrackingIssue): Completion {
  const bullets = issue.bullets.map((b) => judgeBullet(results, register, b));
  return { issue, bullets, mayClose: bullets.every((b) => b.status === "met") };
}

const STATUS_TEXT: Record<BulletStatus, string> = {
  met: `${CELL_GLYPH.pass} met`,
  "not met": `${CELL_GLYPH.fail} not met`,
  "not run": `${CELL_GLYPH["not-run"]} not met (not run)`,
};

export interface CompletionOptions {
  /** Where results.json's relative evidence paths are reachable from the reader: a relative folder or an https URL. */
  linkBase?: string;
  /** How to name the results file in the header. */
  resultsLabel?: string;
}

function itemLine(item: EvidenceItem, linkBase: string | undefined): string {
  const where = `${mdText(item.era)} (${mdText(item.side)})`;
  const name = item.caseId ? mdText(item.caseId) : "cell";
  const href = item.path ? evidenceHref(item.path, linkBase) : null;
  const sha = shortSha(item.sha256);
  const link = href ? `[${name}](${href}${sha ? ` "sha256 ${sha}…"` : ""})` : name;
  return `${item.label} ${where} ${link}${item.reason ? `: ${mdText(item.reason)}` : ""}`;
}

/**
 * Completion evidence for a tracking issue, as markdown for the issue: each acceptance bullet with its
 * status (met / not met / not met (not run)) and the evidence behind it, then a final line saying whether
 * the issue may be closed (only when every bullet is met).
 */
export function renderCompletion(
  results: Results,
  register: Register,
  issue: TrackingIssue,
  options: CompletionOptions = {},
): string {
  const completion = judgeCompletion(results, register, issue);
  const notMet = completion.bullets.filter((b) => b.status !== "met");
  const notRun = completion.bullets.filter((b) => b.status === "not run");
  const total = completion.bullets.length;
  const finalLine = completion.mayClose
    ? `**This issue may be closed: all ${total} acceptance bullets are met.**`
    : `**This issue may not be closed: ${notMet.length} of ${total} acceptance bullets are not met${notRun.length > 0 ? ` (${notRun.length} not run)` : ""}.**`;
  const issueUrl = issue.url && isHttpsUrl(issue.url) ? issue.url : "";
  return renderTemplate("completion.md", {
    issue: issue.issue,
    issueUrl: issueUrl ? encodeURI(issueUrl).replace(/\)/g, "%29") : "",
    title: issue.title,
    target: results.target.name,
    toolName: results.tool.name,
    toolVersion: results.tool.version,
    seed: results.seed,
    started: displayTime(results.startedAt),
    resultsLabel: options.resultsLabel ?? "",
    eras: runEras(results).join(", "),
    bullets: completion.bullets.map((b, i) => ({
      n: i + 1,
      text: b.bullet.text,
      status: STATUS_TEXT[b.status],
      note: b.bullet.note ?? "",
      match: b.bullet.match === "any" ? "any one of these suffices" : "",
      rests: b.bullet.checks
        ? `Rests on the ${b.bullet.checks.join(", ")} check(s) wherever they ran in these rows' cells${b.detail ? `: ${b.detail}` : ""}.`
        : "",
      refs: b.refs.map((r) => ({
        ref: describeRef(r.ref),
        status: STATUS_TEXT[r.status],
        detail: r.detail,
        items: r.items.map((item) => itemLine(item, options.linkBase)),
      })),
    })),
    finalLine,
  });
}
