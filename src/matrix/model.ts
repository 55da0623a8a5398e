import type { CellSide, Register, RegisterRow } from "../model/register.ts";
import type { CaseResult, CaseStatus, Cell, CellStatus, Results } from "../model/results.ts";
import { ERAS, type Era } from "../protocol/eras.ts";
import { CASE_STATUS_ORDER, CELL_STATUS_ORDER } from "./status.ts";

/** Shared views of a results file: ordering, grouping and counting used by every renderer. */

export const SIDE_ORDER: readonly CellSide[] = ["client", "server", "intermediary"];

/** The eras of a run, oldest first: the declared ones, else those that have cells. */
export function runEras(results: Results): Era[] {
  const present = new Set<string>([...(results.eras ?? []), ...results.cells.map((c) => c.era)]);
  return ERAS.filter((e) => present.has(e));
}

/** Row ids of a run in register order; rows unknown to the register follow, alphabetically. */
export function runRowIds(results: Results, register: Register | undefined): string[] {
  const present = new Set(results.cells.map((c) => c.row));
  const ordered = (register?.rows ?? []).map((r) => r.id).filter((id) => present.has(id));
  const known = new Set(ordered);
  return [...ordered, ...[...present].filter((id) => !known.has(id)).sort()];
}

export function rowIndex(register: Register | undefined): Map<string, RegisterRow> {
  return new Map((register?.rows ?? []).map((r) => [r.id, r]));
}

export function cellKey(cell: Pick<Cell, "row" | "era" | "side">): string {
  return `${cell.row}|${cell.era}|${cell.side}`;
}

export function sidesOf(cells: readonly Cell[]): CellSide[] {
  const present = new Set(cells.map((c) => c.side));
  return SIDE_ORDER.filter((s) => present.has(s));
}

export function compareCells(a: Cell, b: Cell): number {
  return ERAS.indexOf(a.era) - ERAS.indexOf(b.era) || SIDE_ORDER.indexOf(a.side) - SIDE_ORDER.indexOf(b.side);
}

export interface StatusCount<S extends string> {
  status: S;
  count: number;
}

/** Counts per status in display order, omitting zeros. */
export function countCells(cells: readonly Cell[]): StatusCount<CellStatus>[] {
  return CELL_STATUS_ORDER.map((status) => ({
    status,
    count: cells.filter((c) => c.status === status).length,
  })).filter((s) => s.count > 0);
}

export function countCases(cells: readonly Cell[]): StatusCount<CaseStatus>[] {
  const all = cells.flatMap((c) => c.cases);
  return CASE_STATUS_ORDER.map((status) => ({
    status,
    count: all.filter((c) => c.status === status).length,
  })).filter((s) => s.count > 0);
}

export function caseCount(results: Results): number {
  return results.cells.reduce((n, c) => n + c.cases.length, 0);
}

/** A short human date-time from an ISO timestamp, kept verbatim when it does not parse; "" for none (stable output). */
export function displayTime(iso: string | undefined): string {
  if (iso === undefined) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** The shell command that reproduces a run (same target, eras and seed). */
export function reproduceCommand(results: Results): string {
  const parts = ["npx", "mcpx-conform", "run"];
  const profile = results.target.profile;
  if (typeof profile === "string" && profile) parts.push("--target", shellWord(profile));
  const eras = runEras(results);
  if (eras.length > 0 && eras.length < ERAS.length) parts.push("--era", eras.join(","));
  parts.push("--seed", String(results.seed));
  return parts.join(" ");
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** Short sha256 for display, only when it is a well-formed hex digest. */
export function shortSha(sha: string | undefined): string | null {
  return sha && /^[0-9a-f]{64}$/i.test(sha) ? sha.slice(0, 12).toLowerCase() : null;
}

export type FuzzEntry = NonNullable<Results["fuzz"]>[number];

/** Branch counts as "name n · name n", largest first. */
export function branchSummary(branches: Record<string, number>): string {
  return Object.entries(branches)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, v]) => `${k} ${v}`)
    .join(" · ");
}

/** Fuzz entries that found a disagreement or broke. */
export function fuzzProblems(results: Results): FuzzEntry[] {
  return (results.fuzz ?? []).filter((f) => f.status !== "pass");
}

/**
 * The case whose transcript a cell's verdict links: the worst case (fail, error, warn, skip, pass) that has an
 * evidence path, so a failing cell opens on a failure and a passing cell on a pass. Undefined when no case has one.
 */
export function decidingCase(cell: Cell): CaseResult | undefined {
  const withEvidence = cell.cases.filter((c) => c.evidence);
  for (const status of CASE_STATUS_ORDER) {
    const found = withEvidence.find((c) => c.status === status);
    if (found) return found;
  }
  return undefined;
}

/** One casing for every level: RFC 2119 keywords and the register's `schema` level, upper case. */
export function levelLabel(level: string | undefined): string {
  return (level ?? "").toUpperCase();
}

const SPEC_PAGE = /^https:\/\/modelcontextprotocol\.io\/specification\/(\d{4}-\d{2}-\d{2})\/([^#?]*)(#.*)?$/;

/**
 * The spec link for one era of a row. The register gives one URL (usually the newest era's page) and, in
 * `source`, each era's file (`2024-11-05 basic/messages.mdx:50`, `2025-06-18 schema.ts:1029`): the era's page
 * is built from that file, keeping the URL's anchor when the page is the same one. URLs outside the versioned
 * spec (SEPs) are the same for every era.
 */
export function eraSpecUrl(row: Pick<RegisterRow, "url" | "source">, era: Era): string {
  const m = SPEC_PAGE.exec(row.url);
  if (!m || m[1] === era) return row.url;
  const [, , page, anchor = ""] = m;
  const file = new RegExp(`(?:^|[\\s;,(])${era}\\s+([\\w./-]+?)\\.(mdx|md|ts)\\b`).exec(row.source ?? "");
  if (!file) return `https://modelcontextprotocol.io/specification/${era}/${page}${anchor}`;
  const erasPage = file[2] === "ts" ? "schema" : file[1]!.replace(/\/index$/, "");
  return `https://modelcontextprotocol.io/specification/${era}/${erasPage}${erasPage === page ? anchor : ""}`;
}

/** Text cut to `max` characters at a word boundary where one is near, with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.7 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
