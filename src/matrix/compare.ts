import type { Register } from "../model/register.ts";
import type { CellStatus, Results } from "../model/results.ts";
import { ERAS, type Era } from "../protocol/eras.ts";
import { statusClass } from "./html.ts";
import { cellKey, rowIndex, runRowIds } from "./model.ts";
import { CELL_STATUS_ORDER, cellLabel } from "./status.ts";
import { renderTemplate, templateAsset } from "./templates.ts";

/**
 * `mcpx-conform compare`: several targets side by side, rows × targets per era, the way Bowtie compares JSON Schema
 * implementations. Pure: results in, text out. Each cell links the target's own matrix.html at that cell.
 */
export interface CompareTarget {
  /** The target's name as the page shows it (its results' target name, made unique). */
  name: string;
  results: Results;
  /** Where the target's matrix.html is, relative to the page (no link when unset). */
  matrixHref?: string;
}

interface CompareCell {
  status: CellStatus;
  label: string;
  css: string;
  href?: string;
  /** The sides folded into this cell, when the row is judged on more than one. */
  sides: string;
}

export interface CompareView {
  title: string;
  targets: Array<{ name: string; pass: number; fail: number; cells: number; matrixHref?: string }>;
  /** Per era, the rows any target has a cell for in it, one cell per target (a dash where a target has none). */
  eras: Array<{
    era: Era;
    targets: string[];
    rows: Array<{ id: string; title: string; level: string; cells: CompareCell[] }>;
  }>;
}

const worst = (statuses: CellStatus[]): CellStatus =>
  CELL_STATUS_ORDER.find((s) => statuses.includes(s)) ?? "not-run";

/** The comparison of these targets: every row any of them has, every era any of them ran, one cell per target. */
export function compareView(
  targets: CompareTarget[],
  register: Register | undefined,
  title: string,
): CompareView {
  const eras = ERAS.filter((e) => targets.some((t) => t.results.cells.some((c) => c.era === e)));
  const rowIds = [...new Set(targets.flatMap((t) => runRowIds(t.results, register)))];
  const rows = rowIndex(register);
  const order = new Map((register?.rows ?? []).map((r, i) => [r.id, i]));
  rowIds.sort(
    (a, b) => (order.get(a) ?? Number.MAX_SAFE_INTEGER) - (order.get(b) ?? Number.MAX_SAFE_INTEGER),
  );
  return {
    title,
    targets: targets.map((t) => ({
      name: t.name,
      pass: t.results.cells.filter((c) => c.status === "pass").length,
      fail: t.results.cells.filter((c) => c.status === "fail").length,
      cells: t.results.cells.length,
      ...(t.matrixHref ? { matrixHref: t.matrixHref } : {}),
    })),
    eras: eras.map((era) => ({
      era,
      targets: targets.map((t) => t.name),
      rows: rowIds
        .filter((id) => targets.some((t) => t.results.cells.some((c) => c.row === id && c.era === era)))
        .map((id) => ({
          id,
          title: rows.get(id)?.title ?? id,
          level: (rows.get(id)?.level ?? "").toUpperCase(),
          cells: targets.map((t) => cellOf(t, id, era)),
        })),
    })),
  };
}

function cellOf(target: CompareTarget, row: string, era: Era): CompareCell {
  const cells = target.results.cells.filter((c) => c.row === row && c.era === era);
  const status = cells.length ? worst(cells.map((c) => c.status)) : "not-run";
  const first = cells.find((c) => c.status === status);
  // matrix.html selects a cell from its fragment (linked per cell); a matrix.md is linked from the target's name only.
  const href =
    first && target.matrixHref?.endsWith(".html")
      ? `${target.matrixHref}#${encodeURIComponent(cellKey(first))}`
      : undefined;
  return {
    status,
    label: cells.length ? cellLabel(status) : "—",
    css: statusClass(cells.length ? status : "not-run"),
    sides: cells.length > 1 ? cells.map((c) => `${c.side} ${c.status}`).join(", ") : "",
    ...(href ? { href } : {}),
  };
}

/** compare.md: one table per era, rows × targets (GitHub renders it; status words beside the glyphs). */
export function renderCompareMarkdown(view: CompareView): string {
  return renderTemplate("compare.md", view);
}

/** compare.html: one self-contained page, status by colour and word (no emoji needed), each cell linked. */
export function renderCompareHtml(view: CompareView): string {
  const css = templateAsset("matrix.css");
  if (/<\/style/i.test(css)) throw new Error("matrix.css must not contain '</style'");
  return renderTemplate("compare.html", { ...view, css });
}
