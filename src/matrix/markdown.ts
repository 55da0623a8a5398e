import type { Register } from "../model/register.ts";
import type { CaseResult, Cell, Results } from "../model/results.ts";
import { isHttpsUrl, mdHref, mdText } from "./escape.ts";
import {
  branchSummary,
  caseCount,
  cellKey,
  compareCells,
  countCases,
  countCells,
  displayTime,
  fuzzProblems,
  reproduceCommand,
  rowIndex,
  runEras,
  runRowIds,
  shortSha,
  sidesOf,
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
 * `[id](evidence "sha256 …")` with the glyph of its status; plain text when there is no usable path.
 * `withSha` adds the transcript's short digest as the link title.
 */
export function mdCaseLink(c: CaseResult, withSha = true): string {
  const href = c.evidence ? mdHref(c.evidence) : null;
  const sha = withSha ? shortSha(c.evidenceSha256) : null;
  const label = `${caseLabel(c.status)} ${mdText(c.id)}`;
  if (!href) return label;
  return `${caseLabel(c.status)} [${mdText(c.id)}](${href}${sha ? ` "sha256 ${sha}…"` : ""})`;
}

/** A plain link to a relative path, or the path as text when it is not one. */
function mdCaseLinkTo(label: string, path: string): string {
  const href = mdHref(path);
  return href ? `[${mdText(label)}](${href})` : mdText(path);
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
   * Longest output before passing cases lose their individual links (GitHub refuses comments over 65,536
   * characters). Default 65,000; 0 never compacts.
   */
  maxChars?: number;
}

interface CellStyle {
  /** Link every passing case (else only a count). */
  passLinks: boolean;
  notes: Notes;
}

/** One table cell's content: status, then each case with a link, failing cases with their reason. */
export function mdCellContent(
  cell: Cell,
  style: CellStyle = { passLinks: true, notes: new Notes() },
): string {
  const note = cell.note
    ? cell.cases.length === 0 && !ATTENTION_STATUSES.has(cell.status)
      ? ` ${style.notes.ref(cell.note)}`
      : `: ${mdText(cell.note)}`
    : "";
  const only = cell.cases.length === 1 ? cell.cases[0]! : undefined;
  // A single case with the cell's own status speaks for the cell.
  if (only && only.status === cell.status && !cell.note && (style.passLinks || only.status !== "pass"))
    return mdCaseLink(only, false) + (caseIsMiss(only.status) ? `: ${mdText(only.reason)}` : "");
  const parts = [cellLabel(cell.status) + note];
  const passing = cell.cases.filter((c) => c.status === "pass");
  for (const c of cell.cases) {
    if (c.status === "pass" && !style.passLinks) continue;
    parts.push(mdCaseLink(c, false) + (caseIsMiss(c.status) ? `: ${mdText(c.reason)}` : ""));
  }
  if (!style.passLinks && passing.length > 0) parts.push(`${caseLabel("pass")} ${passing.length} case(s)`);
  return parts.join("<br>");
}

export function verdictLine(results: Results): string {
  const failing = results.cells.filter((c) => c.status === "fail" || c.status === "error");
  const attention = results.cells.filter((c) => ATTENTION_STATUSES.has(c.status));
  const fuzz = fuzzProblems(results).length;
  const fuzzText = fuzz > 0 ? `differential fuzzing failed in ${fuzz} era(s)` : "";
  if (failing.length > 0)
    return `${CELL_GLYPH.fail} ${failing.length} cell(s) failed or errored${fuzzText ? `; ${fuzzText}` : ""}`;
  if (fuzzText) return `${CELL_GLYPH.fail} ${fuzzText}`;
  if (attention.length > 0)
    return `${CELL_GLYPH.warn} no failures; ${attention.length} cell(s) need attention`;
  return `${CELL_GLYPH.pass} every run cell passed or does not apply`;
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

/**
 * matrix.md: usable as a pull-request comment (GitHub-flavoured markdown, relay text neutralised). Rows
 * that do not apply in an era are listed once instead of filling the era tables; repeated notes become
 * footnotes; when the page would exceed `maxChars`, passing cases are counted instead of linked.
 */
export function renderMarkdown(results: Results, register: Register, options: MarkdownOptions = {}): string {
  const max = options.maxChars ?? 65_000;
  const full = renderMarkdownWith(results, register, true);
  if (max <= 0 || full.length <= max) return full;
  return renderMarkdownWith(results, register, false);
}

// Long: one template context for matrix.md; every section's rows are built here from the same cells.
function renderMarkdownWith(results: Results, register: Register, passLinks: boolean): string {
  const rows = rowIndex(register);
  const eras = runEras(results);
  const rowIds = runRowIds(results, register);
  const byKey = new Map(results.cells.map((c) => [cellKey(c), c]));
  const cellsOfRow = (id: string) => results.cells.filter((c) => c.row === id).sort(compareCells);
  const links = new Links();
  const style: CellStyle = { passLinks, notes: new Notes() };

  const grid = rowIds.map((id) => {
    const reg = rows.get(id);
    const mine = cellsOfRow(id);
    return {
      rowRef: links.ref(id, reg?.url),
      title: reg?.title ?? "",
      level: reg?.level ?? "",
      entries: eras.map((era) => {
        const here = mine.filter((c) => c.era === era);
        if (here.length === 0) return "—";
        if (here.length === 1) return cellLabel(here[0]!.status);
        return here.map((c) => `${mdText(c.side)} ${cellLabel(c.status)}`).join("<br>");
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

  const attention = results.cells
    .filter((c) => ATTENTION_STATUSES.has(c.status))
    .sort(
      (a, b) =>
        CELL_STATUS_ORDER.indexOf(a.status) - CELL_STATUS_ORDER.indexOf(b.status) ||
        rowIds.indexOf(a.row) - rowIds.indexOf(b.row) ||
        compareCells(a, b),
    )
    .map((c) => ({
      label: cellLabel(c.status),
      row: c.row,
      era: c.era,
      side: c.side,
      note: c.note ?? "",
      cases: c.cases
        .filter((k) => k.status !== "pass")
        .map((k) => ({ caseLink: mdCaseLink(k), showReason: caseIsMiss(k.status), reason: k.reason })),
    }));
  const notRun = results.cells.filter((c) => c.status === "not-run").length;

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
        .map((id) => ({
          rowRef: links.ref(id, rows.get(id)?.url),
          level: rows.get(id)?.level ?? "",
          cells: sides.map((side) => {
            const cell = byKey.get(cellKey({ row: id, era, side }));
            return cell ? mdCellContent(cell, style) : "—";
          }),
        })),
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
    target: results.target.name,
    profile: typeof results.target.profile === "string" ? results.target.profile : "",
    toolName: results.tool.name,
    toolVersion: results.tool.version,
    seed: results.seed,
    started: displayTime(results.startedAt),
    finished: results.finishedAt ? displayTime(results.finishedAt) : "",
    eras,
    cellCount: results.cells.length,
    caseCount: caseCount(results),
    cellTotals: countCells(results.cells).map((s) => ({ label: cellLabel(s.status), count: s.count })),
    caseTotals: countCases(results.cells).map((s) => ({ label: caseLabel(s.status), count: s.count })),
    reproduce: mdCode(reproduceCommand(results)),
    verdict: verdictLine(results),
    grid,
    statusColumns: statusColumns.map((s) => ({ label: cellLabel(s) })),
    eraTotals,
    attention,
    notRun,
    notRunLabel: cellLabel("not-run"),
    naLabel: cellLabel("n/a"),
    eraSections,
    notApplicable,
    fuzz: (results.fuzz ?? []).map((f) => ({
      era: f.era,
      runs: f.runs,
      label: caseLabel(f.status),
      reason: f.reason,
      branches: branchSummary(f.branches),
      evidence: f.evidence ? mdCaseLinkTo("transcript", f.evidence) : "",
      caseFile: f.caseFile ? mdCode(f.caseFile, true) : "",
      seconds: (f.durationMs / 1000).toFixed(1),
    })),
    compacted: !passLinks,
    legend: CELL_STATUS_ORDER.map((s) => cellLabel(s)),
  };
  // Footnotes and link definitions are collected while the tables are built, so they are read last.
  return renderTemplate("matrix.md", { ...body, notes: style.notes.list(), links: links.list() });
}
