import { type CellSide, type Register, rowCellSides } from "../model/register.ts";
import type { Cell, CellStatus, Results } from "../model/results.ts";
import { ERAS, type Era } from "../protocol/eras.ts";
import { evidenceHref, mdText } from "./escape.ts";
import { decidingCase, rowIndex, SIDE_ORDER } from "./model.ts";
import { renderTemplate } from "./templates.ts";

/**
 * The `mcpx` reporter: dezren39/darwin-nix#256's rows written the way mcpx keeps them, so a maintainer pastes them
 * instead of retyping. Two files:
 * - mcpx.md: status cells for mcpx's sampling register (developing-today/code, pkgs/mcpx,
 *   docs/compare/register/sampling.md: one table row per `SMP-<n>`, its status column `✓`, `partial — how`,
 *   `✗ — what`, `n/a`), one per register row and one per conformance row × side, each era's with its evidence file and
 *   sha256;
 * - mcpx-gaps.go.txt: a `Gap` literal per conformance row × side recorded partial or failing, as mcpx's conformance
 *   package reads them (pkgs/mcpx/internal/conformance/coverage.go: `type Gap struct { ID, Side string; Revs []string;
 *   Issue, Why, Test string }`, registered in coverage_*.go with `registerGaps(Gap{ID: …, Side: Client, …})`).
 * Pure: results and the register in, text out.
 */

/** Where mcpx keeps what this reporter writes (developing-today/code at a03494f). */
export const MCPX_REGISTER_SOURCE = {
  repo: "developing-today/code",
  commit: "a03494f",
  register: "pkgs/mcpx/docs/compare/register/sampling.md",
  gaps: "pkgs/mcpx/internal/conformance/coverage_clientfeatures.go",
  issue: "#256",
} as const;

/** The rows of mcpx's sampling register #256's conformance rows fall under. */
export const MCPX_SMP_ROWS: Record<string, string> = {
  "SMP-01": "`sampling/createMessage` request, result and baseline fields",
  "SMP-10": "Upstream sampling answered by an agent through the broker",
};

/**
 * #256's conformance rows (matrix/tracking/dezren39-darwin-nix-256.yaml), each with the SMP row of mcpx's register it
 * belongs under (per side where the two sides differ) and whether mcpx's own catalogue has it (its `Evaluate` refuses
 * a Gap naming a requirement it does not have: mcpx-conform's relay rows are written as comments).
 * - SMP-10 is the broker path (an upstream's request becomes a broker question; a decline an error; an accept a
 *   result with `role`/`model` filled in): who may deny, what the question shows, the codes and the deadline, and the
 *   result's validation.
 * - SMP-01 is the request's fields: whether they are validated before the question opens.
 */
export const MCPX_ROWS: ReadonlyArray<{
  row: string;
  smp: string | Partial<Record<CellSide, string>>;
  catalogue: boolean;
}> = [
  { row: "sampling-human-in-loop-can-deny", smp: "SMP-10", catalogue: true },
  { row: "sampling-app-review-ui", smp: "SMP-10", catalogue: true },
  { row: "sampling-app-view-edit-prompts", smp: "SMP-10", catalogue: true },
  { row: "sampling-app-review-responses", smp: "SMP-10", catalogue: true },
  { row: "sampling-client-user-approval-controls", smp: "SMP-10", catalogue: true },
  {
    row: "sampling-both-validate-message-content",
    smp: { client: "SMP-01", server: "SMP-10" },
    catalogue: true,
  },
  { row: "sampling-client-errors-user-rejected-and-tool-shape", smp: "SMP-10", catalogue: true },
  { row: "sampling-relay-expiry-reported", smp: "SMP-10", catalogue: false },
];

/** The register's legend, reduced from a cell's status. warn is a SHOULD not met: broken, as mcpx's `✗` says. */
export type McpxMark = "✓" | "partial" | "✗" | "n/a" | "not judged";

export function mcpxMark(status: CellStatus): McpxMark {
  switch (status) {
    case "pass":
      return "✓";
    case "partial":
    case "gap":
      return "partial";
    case "fail":
    case "warn":
      return "✗";
    case "n/a":
      return "n/a";
    default:
      return "not judged";
  }
}

/** Worst first: what a row's cell over several eras (or a register row's over several rows) says. */
const MARK_ORDER: readonly McpxMark[] = ["✗", "partial", "✓", "n/a", "not judged"];
const GAP_MARKS: ReadonlySet<McpxMark> = new Set<McpxMark>(["✗", "partial"]);

/** Eras as mcpx writes revisions: `a..b` when they are contiguous in the revision list, else a comma list. */
export function revsText(eras: readonly Era[]): string {
  const sorted = ERAS.filter((e) => eras.includes(e));
  if (sorted.length === 0) return "";
  if (sorted.length === 1) return sorted[0]!;
  const first = ERAS.indexOf(sorted[0]!);
  const contiguous = sorted.every((e, i) => ERAS.indexOf(e) === first + i);
  return contiguous ? `${sorted[0]}..${sorted.at(-1)}` : sorted.join(", ");
}

const WHY_CHARS = 200;

/** One line of plain text: control characters and line breaks become spaces (a Go comment ends at a line break). */
function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029\s]+/g, " ").trim();
}

function cut(text: string, max = WHY_CHARS): string {
  const flat = oneLine(text);
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** What a cell says, in a sentence: the deciding case's reason for a miss, the cell's note otherwise. */
function cellReason(cell: Cell): string {
  const deciding = decidingCase(cell);
  if ((cell.status === "fail" || cell.status === "warn" || cell.status === "error") && deciding)
    return `${deciding.id}: ${deciding.reason}`;
  return cell.note ?? (deciding ? `${deciding.id}: ${deciding.reason}` : cell.status);
}

/** A Go interpreted string literal (JSON's escapes are Go's, once lone surrogates are replaced). */
export function goString(text: string): string {
  return JSON.stringify(
    text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd"),
  );
}

interface EraLine {
  era: Era;
  status: CellStatus;
  mark: McpxMark;
  reason: string;
  evidence: string;
  evidenceHref: string;
  sha256: string;
}

interface RowSide {
  row: string;
  side: CellSide;
  smp: string;
  catalogue: boolean;
  mark: McpxMark;
  /** The register cell: `✓`, `partial — how`, `✗ — what`, `n/a — why`, `not judged — why`. */
  cell: string;
  eras: string;
  lines: EraLine[];
}

function markCell(mark: McpxMark, what: string): string {
  return mark === "✓"
    ? "✓"
    : `${mark} — ${what}${GAP_MARKS.has(mark) ? ` (${MCPX_REGISTER_SOURCE.issue})` : ""}`;
}

/** Each #256 conformance row × side of the results: its cell over the eras (markdown), and each era's line. */
function rowSides(results: Results, register: Register | undefined, linkBase: string | undefined): RowSide[] {
  const rows = rowIndex(register);
  const out: RowSide[] = [];
  for (const entry of MCPX_ROWS) {
    const cells = results.cells.filter((c) => c.row === entry.row);
    const row = rows.get(entry.row);
    // The sides the results have, else the register's (a row these results did not run is still reported).
    const sides = cells.length
      ? SIDE_ORDER.filter((s) => cells.some((c) => c.side === s))
      : row
        ? rowCellSides(row)
        : (["client"] as CellSide[]);
    for (const side of sides) {
      const mine = cells
        .filter((c) => c.side === side)
        .sort((a, b) => ERAS.indexOf(a.era) - ERAS.indexOf(b.era));
      const lines = mine.map((cell): EraLine => {
        const deciding = decidingCase(cell);
        return {
          era: cell.era,
          status: cell.status,
          mark: mcpxMark(cell.status),
          reason: cut(cellReason(cell)),
          evidence: deciding?.evidence ?? "",
          evidenceHref: deciding?.evidence ? (evidenceHref(deciding.evidence, linkBase) ?? "") : "",
          sha256: deciding?.evidenceSha256 ?? "",
        };
      });
      const mark = MARK_ORDER.find((m) => lines.some((l) => l.mark === m)) ?? "not judged";
      const worst = lines.filter((l) => l.mark === mark);
      const what =
        lines.length === 0
          ? "not in these results"
          : `${revsText(worst.map((l) => l.era))}: ${mdText(worst[0]!.reason)}`;
      const smp =
        typeof entry.smp === "string" ? entry.smp : (entry.smp[side] ?? Object.values(entry.smp)[0]!);
      out.push({
        row: entry.row,
        side,
        smp,
        catalogue: entry.catalogue,
        mark,
        cell: markCell(mark, what),
        eras: revsText(lines.map((l) => l.era)),
        lines,
      });
    }
  }
  return out;
}

/** The register row's own cell: its worst conformance row × side, up to three of them named. */
function smpCell(parts: RowSide[]): McpxMark | string {
  const mark = MARK_ORDER.find((m) => parts.some((p) => p.mark === m)) ?? "not judged";
  if (mark === "✓") return "✓";
  const worst = parts.filter((p) => p.mark === mark);
  const named = worst
    .slice(0, 3)
    .map(
      (p) =>
        `${p.row} (${p.side}, ${revsText(p.lines.filter((l) => l.mark === mark).map((l) => l.era)) || "no era"})`,
    );
  const more = worst.length > 3 ? `, and ${worst.length - 3} more` : "";
  return markCell(mark, `${named.join("; ")}${more}`);
}

export interface McpxReport {
  /** mcpx.md */
  register: string;
  /** mcpx-gaps.go.txt */
  gaps: string;
}

/** The `mcpx` reporter's two files for one run. Markdown cells are escaped here; the templates insert them raw. */
export function renderMcpx(
  results: Results,
  register: Register | undefined,
  options: { linkBase?: string } = {},
): McpxReport {
  const parts = rowSides(results, register, options.linkBase);
  const smps = Object.keys(MCPX_SMP_ROWS)
    .filter((id) => parts.some((p) => p.smp === id))
    .map((id) => {
      const mine = parts.filter((p) => p.smp === id);
      return {
        id,
        title: MCPX_SMP_ROWS[id]!,
        cell: smpCell(mine),
        rows: mine.map((p) => ({
          ...p,
          lines: p.lines.map((l) => ({
            ...l,
            cell: markCell(l.mark, mdText(l.reason)),
            evidenceText: mdText(l.evidence),
          })),
        })),
      };
    });
  const gaps = parts
    .filter((p) => GAP_MARKS.has(p.mark) || p.lines.some((l) => GAP_MARKS.has(l.mark)))
    .flatMap((p) => {
      const gapLines = p.lines.filter((l) => GAP_MARKS.has(l.mark));
      const worst = gapLines.find((l) => l.mark === "✗") ?? gapLines[0]!;
      const why = `${worst.mark === "partial" ? "partial: " : ""}${worst.reason}`;
      // mcpx's sides are server and client; a relay (intermediary) row binds it in both.
      const sides =
        p.side === "intermediary"
          ? (["Client", "Server"] as const)
          : ([p.side === "client" ? "Client" : "Server"] as const);
      return sides.map((side) => ({
        literal: `Gap{ID: ${goString(p.row)}, Side: ${side}, Revs: []string{${gapLines.map((l) => goString(l.era)).join(", ")}}, Issue: ${goString(MCPX_REGISTER_SOURCE.issue)}, Why: ${goString(why)}},`,
        comment: oneLine(
          `${revsText(gapLines.map((l) => l.era))} ${gapLines.some((l) => l.mark === "✗") ? "✗" : "partial"}; ${worst.evidence || "no evidence"}`,
        ),
        catalogue: p.catalogue,
      }));
    });
  const view = {
    source: MCPX_REGISTER_SOURCE,
    target: oneLine(results.target.name),
    tool: results.tool,
    seed: results.seed,
    smps,
    gaps,
    gapCount: gaps.filter((g) => g.catalogue).length,
    uncatalogued: gaps.filter((g) => !g.catalogue).length,
  };
  return { register: renderTemplate("mcpx.md", view), gaps: renderTemplate("mcpx-gaps.go.txt", view) };
}
