import type { Register, RegisterRow } from "../model/register.ts";
import { rowSeverity } from "../model/register.ts";
import type { Cell, Results } from "../model/results.ts";
import { ERAS } from "../protocol/eras.ts";
import { isHttpsUrl, mdText } from "./escape.ts";
import { compareCells, displayTime } from "./model.ts";
import { CELL_GLYPH, cellLabel } from "./status.ts";
import { renderTemplate } from "./templates.ts";

/** "2024-11-05 – 2026-07-28" for a contiguous run of eras, else the list. */
export function eraRange(eras: readonly string[]): string {
  const idx = eras.map((e) => (ERAS as readonly string[]).indexOf(e)).sort((a, b) => a - b);
  if (idx.length === 0) return "";
  if (idx.length === 1) return ERAS[idx[0]!] ?? eras[0]!;
  const contiguous = idx.every((v, i) => i === 0 || v === idx[i - 1]! + 1) && idx[0]! >= 0;
  return contiguous ? `${ERAS[idx[0]!]} – ${ERAS[idx[idx.length - 1]!]}` : eras.join(", ");
}

function statusOf(cells: Cell[], compact: boolean): string {
  if (cells.length === 0) return "—";
  const sorted = [...cells].sort(compareCells);
  if (sorted.length === 1) return compact ? CELL_GLYPH[sorted[0]!.status] : cellLabel(sorted[0]!.status);
  return sorted
    .map((c) => `${mdText(c.side)} ${compact ? CELL_GLYPH[c.status] : cellLabel(c.status)}`)
    .join(compact ? " " : "<br>");
}

function rowRef(row: RegisterRow): string {
  return isHttpsUrl(row.url)
    ? `[${mdText(row.id)}](${encodeURI(row.url).replace(/\)/g, "%29")})`
    : mdText(row.id);
}

/** A register quote: escaped like any text, but its `**KEYWORD**` bold marks are kept. */
export function mdQuote(quote: string): string {
  return mdText(quote).replace(/&#42;&#42;(\S(?:.*?\S)?)&#42;&#42;/g, "**$1**");
}

/** `owner/repo#N` links to its GitHub issue; anything else is shown as text. */
export function trackingLink(ref: string): string {
  const m = /^([A-Za-z0-9][\w.-]*\/[\w.-]+)#(\d+)$/.exec(ref);
  return m ? `[${mdText(ref)}](https://github.com/${m[1]}/issues/${m[2]})` : mdText(ref);
}

/**
 * register.md: every register row with its quote, level, side and eras, and its status in each results
 * file given (one column per target; "—" where that run has no cell for it).
 */
// Long: one template context: each row with its quote, level, eras and one status column per results file.
export function renderRegister(register: Register, results: Results[]): string {
  const names = new Map<string, number>();
  const targets = results.map((r) => {
    const n = (names.get(r.target.name) ?? 0) + 1;
    names.set(r.target.name, n);
    return {
      name: n > 1 ? `${r.target.name} (${n})` : r.target.name,
      started: displayTime(r.startedAt),
      tool: `${r.tool.name} ${r.tool.version}`,
    };
  });
  const rows = register.rows.map((row) => {
    const cellsPer = results.map((r) => r.cells.filter((c) => c.row === row.id));
    const severity = rowSeverity(row);
    const defaultSeverity = rowSeverity({ ...row, severity: undefined });
    return {
      id: row.id,
      ref: rowRef(row),
      title: row.title,
      level: row.level,
      severity: severity !== defaultSeverity ? severity : "",
      severityWhy: row.severityWhy ?? "",
      side: row.side,
      eraRange: eraRange(row.eras),
      quote: mdQuote(row.quote),
      source: row.source ?? "",
      na: row.na ?? "",
      tracking: (row.tracking ?? []).map(trackingLink).join(", "),
      note: row.note ?? "",
      overview: cellsPer.map((cells) =>
        cells.length === 0
          ? row.na
            ? cellLabel("n/a")
            : "—"
          : row.eras
              .filter((era) => cells.some((c) => c.era === era))
              .map(
                (era) =>
                  `${era.slice(2, 7)} ${statusOf(
                    cells.filter((c) => c.era === era),
                    true,
                  )}`,
              )
              .join("<br>"),
      ),
      perEra: row.eras.map((era) => ({
        era,
        statuses: cellsPer.map((cells) =>
          statusOf(
            cells.filter((c) => c.era === era),
            false,
          ),
        ),
      })),
    };
  });
  return renderTemplate("register.md", {
    rowCount: register.rows.length,
    applyCount: register.rows.filter((r) => !r.na).length,
    naCount: register.rows.filter((r) => r.na).length,
    targets,
    rows,
  });
}
