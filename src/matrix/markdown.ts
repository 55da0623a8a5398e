import { summarizeObservations } from "../model/observations.ts";
import type { Register } from "../model/register.ts";
import type { CaseResult, Cell, Results } from "../model/results.ts";
import { evidenceHref, isHttpsUrl, mdText } from "./escape.ts";
import {
  branchSummary,
  caseCount,
  cellKey,
  compareCells,
  countCases,
  countCells,
  decidingCase,
  displayTime,
  eraSpecUrl,
  fuzzProblems,
  levelLabel,
  reproduceCommand,
  rowIndex,
  runEras,
  runRowIds,
  shortSha,
  sidesOf,
  truncate,
} from "./model.ts";
import {
  ATTENTION_STATUSES,
  CELL_GLYPH,
  CELL_STATUS_ORDER,
  caseIsMiss,
  caseLabel,
  cellLabel,
} from "./status.ts";
import { renderTemplate } from "./templates.ts";

/**
 * A markdown code span that survives any backticks inside it. In a table cell (`table`), `|` is escaped as
 * `\|`, which GFM honours even inside code spans.
 */
export function mdCode(value: string, table = false): string {
  let text = value.replace(/\r\n?|\n/g, " ");
  if (table) text = text.replace(/\|/g, "\\|");
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * Writes evidence links: inline (`[label](href "title")`, matrix.md) or as reference links whose definitions are
 * listed once at the end (`[label][e1]`, the PR comment, where a transcript is linked from the summary and again
 * from its cell). `label` is markdown already; the title is plain text.
 */
export interface EvidenceLinker {
  link(label: string, path: string | undefined, title?: string): string;
}

export function inlineLinker(linkBase?: string): EvidenceLinker {
  return {
    link(label, path, title) {
      const href = path ? evidenceHref(path, linkBase) : null;
      if (!href) return label;
      return `[${label}](${href}${title ? ` "${mdTitle(title)}"` : ""})`;
    },
  };
}

/** Reference-style evidence links: each transcript's URL is written once, with the first title given for it. */
export class EvidenceRefs implements EvidenceLinker {
  private readonly refs = new Map<string, { label: string; title: string }>();
  constructor(private readonly linkBase?: string) {}
  link(label: string, path: string | undefined, title?: string): string {
    const href = path ? evidenceHref(path, this.linkBase) : null;
    if (!href) return label;
    let ref = this.refs.get(href);
    if (!ref) {
      ref = { label: `e${this.refs.size + 1}`, title: title ? mdTitle(title) : "" };
      this.refs.set(href, ref);
    }
    return `[${label}][${ref.label}]`;
  }
  list(): Array<{ label: string; url: string }> {
    return [...this.refs].map(([href, ref]) => ({
      label: ref.label,
      url: ref.title ? `${href} "${ref.title}"` : href,
    }));
  }
}

/**
 * `✅ pass [id](evidence "sha256 …")`: the case's status and id, linked to its transcript; plain text when there
 * is no usable path. `withSha` adds the transcript's short digest as the link title.
 */
export function mdCaseLink(c: CaseResult, linker: EvidenceLinker, withSha = false): string {
  const sha = withSha ? shortSha(c.evidenceSha256) : null;
  return `${caseLabel(c.status)} ${linker.link(mdText(c.id), c.evidence, sha ? `sha256 ${sha}…` : undefined)}`;
}

/**
 * A cell's verdict (`❌ fail`), linked to the transcript of the case that decides it (`decidingCase`), with the
 * case and how many cases the cell has in the link's title. Plain text when no case has evidence (n/a, not-run).
 */
export function mdVerdictLink(cell: Cell, linker: EvidenceLinker): string {
  const c = decidingCase(cell);
  if (!c) return cellLabel(cell.status);
  const of = cell.cases.length > 1 ? ` (1 of ${cell.cases.length} cases)` : "";
  return linker.link(cellLabel(cell.status), c.evidence, `${c.id}${of}`);
}

/** Text for a markdown link title in double quotes. */
function mdTitle(text: string): string {
  return mdText(text).replace(/"/g, "&quot;");
}

/** Footnotes for repeated cell notes ("no case exercises this cell"): each distinct note is written once. */
class Notes {
  private readonly ids = new Map<string, number>();
  ref(note: string): string {
    let id = this.ids.get(note);
    if (id === undefined) {
      id = this.ids.size + 1;
      this.ids.set(note, id);
    }
    return `[^n${id}]`;
  }
  list(): Array<{ id: string; text: string }> {
    return [...this.ids].map(([text, id]) => ({ id: `n${id}`, text }));
  }
}

export interface MarkdownOptions {
  /**
   * Where evidence links point: an https URL (e.g. the results folder on GitHub at a commit) or a relative
   * folder. Default: paths relative to results.json.
   */
  linkBase?: string;
}

/** One table cell's content: the verdict linked to its evidence, then each case with a link, misses with their reason. */
export function mdCellContent(
  cell: Cell,
  notes: Notes = new Notes(),
  linker: EvidenceLinker = inlineLinker(),
): string {
  const note = cell.note
    ? cell.cases.length === 0 && !ATTENTION_STATUSES.has(cell.status)
      ? ` ${notes.ref(cell.note)}`
      : `: ${mdText(cell.note)}`
    : "";
  const verdict = mdVerdictLink(cell, linker) + note;
  const only = cell.cases.length === 1 ? cell.cases[0]! : undefined;
  // A single case with the cell's own status speaks for the cell: its verdict link is the case's transcript.
  if (only && only.status === cell.status && !cell.note)
    return `${verdict} ${mdText(only.id)}${caseIsMiss(only.status) ? `: ${mdText(only.reason)}` : ""}`;
  const parts = [verdict];
  for (const c of cell.cases)
    parts.push(mdCaseLink(c, linker) + (caseIsMiss(c.status) ? `: ${mdText(c.reason)}` : ""));
  return parts.join("<br>");
}

/** The run's verdict in one line; `glyphs: false` for pages that must read without an emoji font (matrix.html). */
/**
 * Per era, the root causes that account for several failing cells (fail or warn): cells whose every failing case rests
 * on one failed row (`rootCause`, the era's round trip), so a reader sees one defect, not forty. The rows still fail:
 * a missing prerequisite is not a pass.
 */
export function rootCauses(
  results: Results,
): Array<{ era: string; row: string; cells: number; failing: number }> {
  const out: Array<{ era: string; row: string; cells: number; failing: number }> = [];
  for (const era of runEras(results)) {
    const failing = results.cells.filter(
      (c) => c.era === era && (c.status === "fail" || c.status === "warn"),
    );
    const byRoot = new Map<string, number>();
    for (const cell of failing) {
      const misses = cell.cases.filter((k) => k.status === "fail" || k.status === "warn");
      const roots = new Set(misses.map((k) => k.rootCause));
      const [root] = roots;
      if (misses.length > 0 && roots.size === 1 && root !== undefined)
        byRoot.set(root, (byRoot.get(root) ?? 0) + 1);
    }
    for (const [row, cells] of byRoot) if (cells >= 2) out.push({ era, row, cells, failing: failing.length });
  }
  return out;
}

/**
 * The run's observations (src/model/observations.ts), one per behaviour × era, for the reports: what the relay did that
 * the text neither demands nor forbids, with the text that says so. Shown beside the verdicts, never counted in them.
 */
export function observationsView(results: Results) {
  // A behaviour seen on every exchange of an era would list a hundred cases: the first few, and how many more.
  const SHOWN = 3;
  return summarizeObservations(results.cells).map((o) => ({
    ...o,
    caseList:
      o.cases.length > SHOWN
        ? `${o.cases.slice(0, SHOWN).join(", ")} and ${o.cases.length - SHOWN} more`
        : o.cases.join(", "),
  }));
}

/** rootCauses as one sentence ("" when there are none). */
export function rootCauseText(results: Results): string {
  return rootCauses(results)
    .map(
      (r) =>
        `${r.cells} of the ${r.failing} cells that fail or warn in ${r.era} follow from one root cause: ${r.row} failed there, so their cases did not run or prove nothing`,
    )
    .join("; ");
}

export function verdictLine(results: Results, glyphs = true): string {
  const roots = rootCauseText(results);
  const line = verdictWithoutRoots(results, glyphs);
  return roots ? `${line} (${roots})` : line;
}

function verdictWithoutRoots(results: Results, glyphs: boolean): string {
  const mark = (s: "pass" | "fail" | "warn") => (glyphs ? `${CELL_GLYPH[s]} ` : "");
  const failing = results.cells.filter((c) => c.status === "fail" || c.status === "error");
  const attention = results.cells.filter((c) => ATTENTION_STATUSES.has(c.status));
  const fuzz = fuzzProblems(results).length;
  const fuzzText = fuzz > 0 ? `differential fuzzing failed in ${fuzz} era(s)` : "";
  if (failing.length > 0)
    return `${mark("fail")}${failing.length} cell(s) failed or errored${fuzzText ? `; ${fuzzText}` : ""}`;
  if (fuzzText) return `${mark("fail")}${fuzzText}`;
  if (attention.length > 0) return `${mark("warn")}no failures; ${attention.length} cell(s) need attention`;
  return `${mark("pass")}every run cell passed or does not apply`;
}

/** Spec links as reference-style links: each URL is written once, at the end. */
class Links {
  private readonly urls = new Map<string, string>();
  ref(id: string, url: string | undefined): string {
    if (!url || !isHttpsUrl(url)) return mdText(id);
    let label = this.urls.get(url);
    if (label === undefined) {
      label = `s${this.urls.size + 1}`;
      this.urls.set(url, label);
    }
    return `[${mdText(id)}][${label}]`;
  }
  list(): Array<{ label: string; url: string }> {
    return [...this.urls].map(([url, label]) => ({
      label,
      url: encodeURI(url).replace(/\)/g, "%29").replace(/\s/g, "%20"),
    }));
  }
}

/** The header both markdown reports open with: target, tool, seed, eras, totals, how to reproduce, the verdict. */
function headerView(results: Results) {
  return {
    target: results.target.name,
    profile: typeof results.target.profile === "string" ? results.target.profile : "",
    toolName: results.tool.name,
    toolVersion: results.tool.version,
    seed: results.seed,
    started: displayTime(results.startedAt),
    finished: results.finishedAt ? displayTime(results.finishedAt) : "",
    eras: runEras(results),
    cellCount: results.cells.length,
    caseCount: caseCount(results),
    cellTotals: countCells(results.cells).map((s) => ({ label: cellLabel(s.status), count: s.count })),
    caseTotals: countCases(results.cells).map((s) => ({ label: caseLabel(s.status), count: s.count })),
    reproduce: mdCode(reproduceCommand(results)),
    verdict: verdictLine(results),
    legend: CELL_STATUS_ORDER.map((s) => cellLabel(s)),
  };
}

/**
 * The summary: one line per row with its level and, per era, each cell's verdict linked to its evidence (the row
 * links the register's spec URL), and the cell counts per era and status.
 */
function summaryView(results: Results, register: Register, links: Links, linker: EvidenceLinker) {
  const rows = rowIndex(register);
  const eras = runEras(results);
  const grid = runRowIds(results, register).map((id) => {
    const reg = rows.get(id);
    const mine = results.cells.filter((c) => c.row === id).sort(compareCells);
    return {
      rowRef: links.ref(id, reg?.url),
      title: reg?.title ?? "",
      level: levelLabel(reg?.level),
      entries: eras.map((era) => {
        const here = mine.filter((c) => c.era === era);
        if (here.length === 0) return "—";
        if (here.length === 1) return mdVerdictLink(here[0]!, linker);
        return here.map((c) => `${mdText(c.side)} ${mdVerdictLink(c, linker)}`).join("<br>");
      }),
    };
  });
  const present = new Set(results.cells.map((c) => c.status));
  const statusColumns = CELL_STATUS_ORDER.filter((s) => present.has(s));
  const eraTotals = eras.map((era) => {
    const cells = results.cells.filter((c) => c.era === era);
    return {
      era,
      counts: statusColumns.map((s) => cells.filter((c) => c.status === s).length),
      total: cells.length,
    };
  });
  return { grid, statusColumns: statusColumns.map((s) => ({ label: cellLabel(s) })), eraTotals };
}

/** Cells that need attention, worst first, then in register and era order. */
function attentionCells(results: Results, register: Register): Cell[] {
  const rowIds = runRowIds(results, register);
  return results.cells
    .filter((c) => ATTENTION_STATUSES.has(c.status))
    .sort(
      (a, b) =>
        CELL_STATUS_ORDER.indexOf(a.status) - CELL_STATUS_ORDER.indexOf(b.status) ||
        rowIds.indexOf(a.row) - rowIds.indexOf(b.row) ||
        compareCells(a, b),
    );
}

function fuzzView(results: Results, linker: EvidenceLinker) {
  return (results.fuzz ?? []).map((f) => ({
    era: f.era,
    runs: f.runs,
    label: caseLabel(f.status),
    reason: f.reason,
    branches: branchSummary(f.branches),
    evidence: f.evidence ? linker.link("transcript", f.evidence) : "",
    caseFile: f.caseFile ? mdCode(f.caseFile, true) : "",
    seconds: f.durationMs === undefined ? "" : (f.durationMs / 1000).toFixed(1),
  }));
}

/**
 * matrix.md, the full matrix (GitHub-flavoured markdown, relay text neutralised): every cell's verdict links its
 * evidence and every case is linked, passing ones too. Rows that do not apply in an era are listed once instead
 * of filling the era tables; repeated notes become footnotes. It has no size bound: the pull-request comment is
 * `renderPrComment`.
 */
// Long: one template context for matrix.md; every section's rows are built here from the same cells.
export function renderMarkdown(results: Results, register: Register, options: MarkdownOptions = {}): string {
  const { linkBase } = options;
  const rows = rowIndex(register);
  const eras = runEras(results);
  const rowIds = runRowIds(results, register);
  const byKey = new Map(results.cells.map((c) => [cellKey(c), c]));
  const cellsOfRow = (id: string) => results.cells.filter((c) => c.row === id).sort(compareCells);
  const links = new Links();
  const notes = new Notes();
  const linker = inlineLinker(linkBase);
  const summary = summaryView(results, register, links, linker);

  const attention = attentionCells(results, register).map((c) => ({
    verdict: mdVerdictLink(c, linker),
    row: c.row,
    era: c.era,
    side: c.side,
    note: c.note ?? "",
    cases: c.cases
      .filter((k) => k.status !== "pass")
      .map((k) => ({
        caseLink: mdCaseLink(k, linker, true),
        showReason: caseIsMiss(k.status),
        reason: k.reason,
      })),
  }));

  const eraSections = eras.map((era) => {
    const cells = results.cells.filter((c) => c.era === era);
    const sides = sidesOf(cells);
    const inEra = rowIds.filter((id) => cells.some((c) => c.row === id));
    const allNa = (id: string) => cells.filter((c) => c.row === id).every((c) => c.status === "n/a");
    return {
      era,
      sides,
      rows: inEra
        .filter((id) => !allNa(id))
        .map((id) => {
          const reg = rows.get(id);
          return {
            // Each era's table links that era's spec page.
            rowRef: links.ref(id, reg ? eraSpecUrl(reg, era) : undefined),
            level: levelLabel(reg?.level),
            cells: sides.map((side) => {
              const cell = byKey.get(cellKey({ row: id, era, side }));
              return cell ? mdCellContent(cell, notes, linker) : "—";
            }),
          };
        }),
      naCount: inEra.filter(allNa).length,
    };
  });

  // Rows that do not apply (in some era), each once with its reason.
  const notApplicable = rowIds.flatMap((id) => {
    const na = cellsOfRow(id).filter((c) => c.status === "n/a");
    if (na.length === 0) return [];
    const reasons = [...new Set(na.map((c) => c.note ?? rows.get(id)?.na ?? ""))].filter(Boolean);
    const naEras = [...new Set(na.map((c) => c.era))];
    return [
      {
        rowRef: links.ref(id, rows.get(id)?.url),
        eras: naEras.length === eras.length ? "all run eras" : naEras.join(", "),
        reason: reasons.join("; "),
      },
    ];
  });

  const body = {
    ...headerView(results),
    ...summary,
    attention,
    notRun: results.cells.filter((c) => c.status === "not-run").length,
    notRunLabel: cellLabel("not-run"),
    naLabel: cellLabel("n/a"),
    eraSections,
    notApplicable,
    fuzz: fuzzView(results, linker),
    observations: observationsView(results),
    linkBase: linkBase ?? "",
  };
  // Footnotes and link definitions are collected while the tables are built, so they are read last.
  return renderTemplate("matrix.md", { ...body, notes: notes.list(), links: links.list() });
}

/** GitHub refuses a comment longer than this many characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;

export interface PrCommentOptions extends MarkdownOptions {
  /** Longest output (UTF-16 code units, which never undercount GitHub's characters). Default 60,000. */
  maxChars?: number;
}

/** The most cases listed under one cell, and the longest reason shown, in the PR comment. */
export const PR_CASES_PER_CELL = 3;
export const PR_REASON_CHARS = 240;

/**
 * pr-comment.md: the matrix as a pull-request comment that fits GitHub's limit by design. It holds the header,
 * the summary (every cell's verdict linked to its evidence, passing cells too) and the cells that need attention,
 * worst first, each with up to `PR_CASES_PER_CELL` missed cases (reasons cut to `PR_REASON_CHARS`). Evidence
 * links are reference links, so a transcript's URL is written once. When that passes `maxChars`, cells keep one
 * case, then none (the verdict still links the worst), then the last cells (warnings before failures) are
 * counted instead of listed. The full matrix is matrix.md and matrix.html.
 */
export function renderPrComment(
  results: Results,
  register: Register,
  options: PrCommentOptions = {},
): string {
  const max = options.maxChars ?? 60_000;
  const cells = attentionCells(results, register);
  const render = (listed: number, perCell: number) =>
    renderPrCommentWith(results, register, options.linkBase, cells.slice(0, listed), perCell, cells.length);
  for (const perCell of [PR_CASES_PER_CELL, 1]) {
    const text = render(cells.length, perCell);
    if (text.length <= max) return text;
  }
  // The largest number of listed cells that fits (the text grows with each cell listed).
  let lo = 0;
  let hi = cells.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (render(mid, 0).length <= max) lo = mid;
    else hi = mid - 1;
  }
  return render(lo, 0);
}

function renderPrCommentWith(
  results: Results,
  register: Register,
  linkBase: string | undefined,
  listed: readonly Cell[],
  perCell: number,
  attention: number,
): string {
  const links = new Links();
  const refs = new EvidenceRefs(linkBase);
  const summary = summaryView(results, register, links, refs);
  const item = (c: Cell) => {
    const misses = c.cases.filter((k) => caseIsMiss(k.status) || k.status === "skip");
    return {
      verdict: mdVerdictLink(c, refs),
      row: c.row,
      era: c.era,
      side: c.side,
      note: c.note ? truncate(c.note, PR_REASON_CHARS) : "",
      counted: countCases([c])
        .map((s) => `${caseLabel(s.status)} ${s.count}`)
        .join(" · "),
      cases: misses.slice(0, perCell).map((k) => ({
        caseLink: mdCaseLink(k, refs),
        reason: truncate(k.reason, PR_REASON_CHARS),
      })),
      moreCases: perCell > 0 ? Math.max(0, misses.length - perCell) : 0,
    };
  };
  const view = {
    ...headerView(results),
    ...summary,
    attention: listed.map(item),
    unlisted: attention - listed.length,
    fuzz: fuzzView(results, refs),
    linkBase: linkBase ?? "",
  };
  // Link definitions are collected while the view is built, so they are read last.
  return renderTemplate("pr-comment.md", { ...view, links: links.list(), evidenceLinks: refs.list() });
}
