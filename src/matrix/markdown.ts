import type { Register } from "../model/register.ts";
import type { CaseResult, Cell, Results } from "../model/results.ts";
import { isHttpsUrl, mdHref, mdText } from "./escape.ts";
import {
  caseCount,
  cellKey,
  compareCells,
  countCases,
  countCells,
  displayTime,
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

/** `[id](evidence "sha256 …")` with the glyph of its status; plain text when there is no usable path. */
export function mdCaseLink(c: CaseResult): string {
  const href = c.evidence ? mdHref(c.evidence) : null;
  const sha = shortSha(c.evidenceSha256);
  const label = `${caseLabel(c.status)} ${mdText(c.id)}`;
  if (!href) return label;
  return `${caseLabel(c.status)} [${mdText(c.id)}](${href}${sha ? ` "sha256 ${sha}…"` : ""})`;
}

/** One table cell's content: status, then each case with a link, failing cases with their reason. */
export function mdCellContent(cell: Cell): string {
  const parts = [cellLabel(cell.status) + (cell.note ? `: ${mdText(cell.note)}` : "")];
  for (const c of cell.cases) {
    parts.push(mdCaseLink(c) + (caseIsMiss(c.status) ? `: ${mdText(c.reason)}` : ""));
  }
  return parts.join("<br>");
}

function rowRef(id: string, url: string | undefined): string {
  return url && isHttpsUrl(url) ? `[${mdText(id)}](${encodeURI(url).replace(/\)/g, "%29")})` : mdText(id);
}

export function verdictLine(results: Results): string {
  const failing = results.cells.filter((c) => c.status === "fail" || c.status === "error");
  const attention = results.cells.filter((c) => ATTENTION_STATUSES.has(c.status));
  if (failing.length > 0) return `${CELL_GLYPH.fail} ${failing.length} cell(s) failed or errored`;
  if (attention.length > 0)
    return `${CELL_GLYPH.warn} no failures; ${attention.length} cell(s) need attention`;
  return `${CELL_GLYPH.pass} every run cell passed or does not apply`;
}

/** matrix.md: usable as a pull-request comment (GitHub-flavoured markdown, relay text neutralised). */
export function renderMarkdown(results: Results, register: Register): string {
  const rows = rowIndex(register);
  const eras = runEras(results);
  const rowIds = runRowIds(results, register);
  const byKey = new Map(results.cells.map((c) => [cellKey(c), c]));
  const cellsOfRow = (id: string) => results.cells.filter((c) => c.row === id).sort(compareCells);

  const grid = rowIds.map((id) => {
    const reg = rows.get(id);
    const mine = cellsOfRow(id);
    return {
      rowRef: rowRef(id, reg?.url),
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
    return {
      era,
      sides,
      rows: rowIds
        .filter((id) => cells.some((c) => c.row === id))
        .map((id) => ({
          rowRef: rowRef(id, rows.get(id)?.url),
          level: rows.get(id)?.level ?? "",
          cells: sides.map((side) => {
            const cell = byKey.get(cellKey({ row: id, era, side }));
            return cell ? mdCellContent(cell) : "—";
          }),
        })),
    };
  });

  return renderTemplate("matrix.md", {
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
    eraSections,
    legend: CELL_STATUS_ORDER.map((s) => cellLabel(s)),
  });
}
