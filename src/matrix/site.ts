import type { Register, RegisterRow } from "../model/register.ts";
import type { Cell, CellStatus, Results } from "../model/results.ts";
import { type Package, packageUrl } from "../model/target.ts";
import { ERAS, type Era } from "../protocol/eras.ts";
import { statusClass } from "./html.ts";
import { observationsView, rootCauseText } from "./markdown.ts";
import {
  cellKey,
  compareCells,
  decidingCase,
  reproduceCommand,
  rowIndex,
  runRowIds,
  shortSha,
} from "./model.ts";
import { CELL_STATUS_ORDER } from "./status.ts";
import { renderTemplate, templateAsset } from "./templates.ts";

/**
 * The report site (`mcpx-conform site`): every committed relay's results side by side, one page per relay with every
 * cell's evidence, what changed since the previous refresh, and a shields.io badge per relay. Pure: results in,
 * pages out; reading results, git history and copying evidence are the command's (src/cli/site.ts).
 */

/** A register level reduced to the word the site filters on. */
export type LevelClass = "MUST" | "SHOULD" | "MAY" | "schema";

export function levelClass(level: string | undefined): LevelClass | undefined {
  switch (level) {
    case "MUST":
    case "MUST NOT":
      return "MUST";
    case "SHOULD":
    case "SHOULD NOT":
    case "should":
      return "SHOULD";
    case "MAY":
      return "MAY";
    case "schema":
      return "schema";
    default:
      return undefined;
  }
}

// ------------------------------------------------------------------ the badge

/** Cell statuses that are a verdict on the relay; the others (n/a, not-run, error) are not counted either way. */
const JUDGED: ReadonlySet<CellStatus> = new Set<CellStatus>(["pass", "fail", "warn", "partial", "gap"]);

/** The counting rule, as the site states it beside every badge. */
export const BADGE_RULE =
  "The badge counts the relay's cells (row × era × side) of register rows whose level is MUST or MUST NOT. A cell " +
  "counts when it holds a verdict on the relay: pass, fail, warn, partial or gap. Cells that are n/a (the rule does not " +
  "apply to this relay or this transport), not-run (no case ran) or error (the harness could not drive the relay) are " +
  "left out and listed as not judged. The message is passed/counted; only pass counts as passed (partial does not).";

/** Colour by the share of counted MUST cells that passed (shields.io named colours). */
export const BADGE_COLOURS: ReadonlyArray<{ atLeast: number; color: string }> = [
  { atLeast: 1, color: "brightgreen" },
  { atLeast: 0.9, color: "green" },
  { atLeast: 0.75, color: "yellowgreen" },
  { atLeast: 0.5, color: "yellow" },
  { atLeast: 0.25, color: "orange" },
  { atLeast: 0, color: "red" },
];

export interface MustCount {
  passed: number;
  counted: number;
  /** MUST cells left out: n/a, not-run, error. */
  notJudged: number;
}

/** The relay's MUST cells: how many hold a verdict, and how many of those passed (see BADGE_RULE). */
export function mustCount(results: Results, register: Register | undefined): MustCount {
  const rows = rowIndex(register);
  const must = results.cells.filter((c) => levelClass(rows.get(c.row)?.level) === "MUST");
  const judged = must.filter((c) => JUDGED.has(c.status));
  return {
    passed: judged.filter((c) => c.status === "pass").length,
    counted: judged.length,
    notJudged: must.length - judged.length,
  };
}

export function badgeColour(passed: number, counted: number): string {
  if (counted === 0) return "lightgrey";
  const share = passed / counted;
  return BADGE_COLOURS.find((b) => share >= b.atLeast)!.color;
}

/** A shields.io endpoint document (https://shields.io/badges/endpoint-badge). */
export interface Badge {
  schemaVersion: 1;
  label: string;
  message: string;
  color: string;
}

export function mustBadge(count: MustCount): Badge {
  return {
    schemaVersion: 1,
    label: "sampling MUST",
    message: count.counted === 0 ? "none judged" : `${count.passed}/${count.counted}`,
    color: badgeColour(count.passed, count.counted),
  };
}

// ------------------------------------------------------------------ what changed

export interface CellChange {
  row: string;
  era: Era;
  side: Cell["side"];
  /** null: the cell was not there. */
  before: CellStatus | null;
  after: CellStatus | null;
}

/**
 * The cells whose status differs between two runs of one relay (row × era × side), a cell present in only one of them
 * included, in register order (rows the register lacks after, alphabetically), then era, then side.
 */
export function changedCells(
  previous: Results,
  current: Results,
  register?: Register | undefined,
): CellChange[] {
  const before = new Map(previous.cells.map((c) => [cellKey(c), c]));
  const after = new Map(current.cells.map((c) => [cellKey(c), c]));
  const changes: Array<CellChange & { cell: Cell }> = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(key);
    const a = after.get(key);
    if (b && a && b.status === a.status) continue;
    const cell = (a ?? b)!;
    changes.push({
      row: cell.row,
      era: cell.era,
      side: cell.side,
      before: b?.status ?? null,
      after: a?.status ?? null,
      cell,
    });
  }
  const rowIds = runRowIds({ ...current, cells: changes.map((c) => c.cell) }, register);
  const order = new Map(rowIds.map((id, i) => [id, i]));
  changes.sort((x, y) => order.get(x.row)! - order.get(y.row)! || compareCells(x.cell, y.cell));
  return changes.map(({ cell: _cell, ...change }) => change);
}

/** Where a relay's previous results came from, or why there are none. */
export type Previous = { results: Results; label: string } | { note: string };

// ------------------------------------------------------------------ the pages

export interface SiteRelay {
  /** The relay's name on the site (its results folder's name, made unique). */
  name: string;
  /** File-name-safe form of the name: relays/<slug>.html, badges/<slug>.json, relays/<slug>/evidence/… */
  slug: string;
  results: Results;
  previous: Previous;
  /** Evidence paths (as results.json writes them) that were copied into the site; the others are not linked. */
  copied: ReadonlySet<string>;
  /** Whether the relay's matrix.md was copied beside its evidence (relays/<slug>/matrix.md). */
  matrixMd?: boolean;
}

export interface SitePages {
  index: string;
  /** slug → the relay's page. */
  relays: Record<string, string>;
  /** slug → its badge (shields.io endpoint JSON, without the trailing newline). */
  badges: Record<string, Badge>;
  /** The changes of every relay, for the refresh workflow: changes.json and changes.md. */
  changes: { json: SiteChanges; markdown: string };
}

export interface SiteChanges {
  /** Changed cells over all relays. */
  changed: number;
  relays: Array<{ name: string; previous: string | null; note?: string; changes: CellChange[] }>;
}

const worst = (statuses: CellStatus[]): CellStatus =>
  CELL_STATUS_ORDER.find((s) => statuses.includes(s)) ?? "not-run";

const changeText = (c: CellChange) => `${c.before ?? "absent"} → ${c.after ?? "absent"}`;

function changesOf(relay: SiteRelay, register: Register | undefined): CellChange[] | undefined {
  return "results" in relay.previous
    ? changedCells(relay.previous.results, relay.results, register)
    : undefined;
}

/** How the site shows a relay's published package: registry, name@version linking to its page, language. */
export interface PackageView {
  registry: string;
  name: string;
  version: string;
  language: string;
  url: string;
}

/** The relay's package as the site shows it; undefined (nothing shown) for a relay that names none. */
export function packageView(results: Results): PackageView | undefined {
  const p: Package | undefined = results.target.package;
  return p
    ? { registry: p.registry, name: p.name, version: p.version, language: p.language, url: packageUrl(p) }
    : undefined;
}

/** The languages the site's filter offers: those of the relays' packages, once each, in alphabetical order. */
export function siteLanguages(relays: SiteRelay[]): string[] {
  const languages = relays.map((r) => packageView(r.results)?.language).filter((l) => l !== undefined);
  return [...new Set(languages)].sort();
}

interface IndexCell {
  status: string;
  /** The relay's package language ("" without a package): the language filter hides the other relays' columns. */
  language: string;
  css: string;
  href: string;
  sides: string;
}

/** Long: one pass over rows × eras × relays builds the index's whole table; split, its pieces share every map. */
function indexView(relays: SiteRelay[], register: Register | undefined, title: string, changes: SiteChanges) {
  const rows = rowIndex(register);
  const eras = ERAS.filter((e) => relays.some((r) => r.results.cells.some((c) => c.era === e)));
  const order = new Map((register?.rows ?? []).map((r, i) => [r.id, i]));
  const rowIds = [...new Set(relays.flatMap((r) => runRowIds(r.results, register)))].sort(
    (a, b) => (order.get(a) ?? Number.MAX_SAFE_INTEGER) - (order.get(b) ?? Number.MAX_SAFE_INTEGER),
  );
  const lines: Array<{
    id: string;
    title: string;
    level: string;
    levelClass: string;
    era: Era;
    statuses: string;
    cells: IndexCell[];
  }> = [];
  for (const era of eras)
    for (const id of rowIds) {
      if (!relays.some((r) => r.results.cells.some((c) => c.row === id && c.era === era))) continue;
      const row: RegisterRow | undefined = rows.get(id);
      const cells = relays.map((relay): IndexCell => {
        const mine = relay.results.cells.filter((c) => c.row === id && c.era === era);
        const language = packageView(relay.results)?.language ?? "";
        if (mine.length === 0) return { status: "absent", language, css: "", href: "", sides: "" };
        const status = worst(mine.map((c) => c.status));
        return {
          status,
          language,
          css: statusClass(status),
          href: `relays/${encodeURIComponent(relay.slug)}.html#${encodeURIComponent(cellKey(mine.find((c) => c.status === status)!))}`,
          sides: mine.length > 1 ? mine.map((c) => `${c.side} ${c.status}`).join(", ") : "",
        };
      });
      lines.push({
        id,
        title: row?.title ?? id,
        level: (row?.level ?? "").toUpperCase(),
        levelClass: levelClass(row?.level) ?? "other",
        era,
        statuses: [...new Set(cells.map((c) => c.status).filter((s) => s !== "absent"))].join(" "),
        cells,
      });
    }
  const classes = ["MUST", "SHOULD", "MAY", "schema", "other"].filter((l) =>
    lines.some((x) => x.levelClass === l),
  );
  const statuses = CELL_STATUS_ORDER.filter((s) => lines.some((x) => x.statuses.split(" ").includes(s)));
  return {
    title,
    relays: relays.map((relay) => {
      const count = mustCount(relay.results, register);
      const badge = mustBadge(count);
      const mine = changes.relays.find((c) => c.name === relay.name);
      const pkg = packageView(relay.results);
      return {
        name: relay.name,
        package: pkg,
        language: pkg?.language ?? "",
        href: `relays/${encodeURIComponent(relay.slug)}.html`,
        badgeHref: `badges/${encodeURIComponent(relay.slug)}.json`,
        badge,
        badgeCss: `badge-${badge.color}`,
        notJudged: count.notJudged,
        cells: relay.results.cells.length,
        changed: mine?.note ? null : (mine?.changes.length ?? 0),
        changeNote: mine?.note ?? "",
      };
    }),
    relayColumns: relays.map((r) => ({ name: r.name, language: packageView(r.results)?.language ?? "" })),
    languages: siteLanguages(relays),
    eras,
    levels: classes,
    statuses,
    lines,
    total: lines.length,
    changed: changes.changed,
    rule: BADGE_RULE,
    colours: BADGE_COLOURS.map((b) => ({ ...b, percent: Math.round(b.atLeast * 100) })),
  };
}

function caseView(relay: SiteRelay, c: Cell["cases"][number]) {
  const linked = c.evidence && relay.copied.has(c.evidence);
  return {
    id: c.id,
    // The word on its colour, no emoji: the site reads without an emoji font, as matrix.html does.
    label: c.status,
    css: statusClass(c.status),
    reason: c.reason,
    href: linked ? `${encodeURIComponent(relay.slug)}/${encodeURI(c.evidence!)}` : "",
    evidence: c.evidence ?? "",
    sha: shortSha(c.evidenceSha256) ?? "",
  };
}

function relayView(relay: SiteRelay, register: Register | undefined, changes: CellChange[] | undefined) {
  const rows = rowIndex(register);
  const count = mustCount(relay.results, register);
  const badge = mustBadge(count);
  const rowIds = runRowIds(relay.results, register);
  const order = new Map(rowIds.map((id, i) => [id, i]));
  const eras = ERAS.filter((e) => relay.results.cells.some((c) => c.era === e));
  return {
    name: relay.name,
    results: relay.results,
    package: packageView(relay.results),
    rootCauses: rootCauseText(relay.results),
    observations: observationsView(relay.results),
    reproduce: reproduceCommand(relay.results),
    badge,
    badgeCss: `badge-${badge.color}`,
    count,
    slug: relay.slug,
    badgeHref: `../badges/${encodeURIComponent(relay.slug)}.json`,
    matrixHref: relay.matrixMd ? `${encodeURIComponent(relay.slug)}/matrix.md` : "",
    rule: BADGE_RULE,
    previous: "results" in relay.previous ? relay.previous.label : "",
    previousNote: "note" in relay.previous ? relay.previous.note : "",
    changes: (changes ?? []).map((c) => ({
      ...c,
      text: changeText(c),
      anchor: c.after ? encodeURIComponent(cellKey(c)) : "",
      css: statusClass(c.after ?? "not-run"),
    })),
    eras: eras.map((era) => ({
      era,
      cells: relay.results.cells
        .filter((c) => c.era === era)
        .sort((a, b) => order.get(a.row)! - order.get(b.row)! || compareCells(a, b))
        .map((cell) => {
          const deciding = decidingCase(cell);
          return {
            key: cellKey(cell),
            row: cell.row,
            title: rows.get(cell.row)?.title ?? cell.row,
            level: (rows.get(cell.row)?.level ?? "").toUpperCase(),
            side: cell.side,
            status: cell.status,
            css: statusClass(cell.status),
            note: cell.note ?? "",
            verdictHref:
              deciding?.evidence && relay.copied.has(deciding.evidence)
                ? `${encodeURIComponent(relay.slug)}/${encodeURI(deciding.evidence)}`
                : "",
            cases: cell.cases.map((c) => caseView(relay, c)),
          };
        }),
    })),
  };
}

/** changes.md: the refresh's pull-request body, one list per relay whose cells changed. */
function changesMarkdown(changes: SiteChanges): string {
  return renderTemplate("site-changes.md", changes);
}

function siteCss(): string {
  const css = `${templateAsset("matrix.css")}\n${templateAsset("site.css")}`;
  if (/<\/style/i.test(css)) throw new Error("the site's CSS must not contain '</style'");
  return css;
}

function siteJs(): string {
  const js = templateAsset("site.js");
  if (/<\/script/i.test(js)) throw new Error("site.js must not contain '</script'");
  return js;
}

/** Every page of the site, from the relays' results (and their previous results, where there are some). */
export function renderSite(relays: SiteRelay[], register: Register | undefined, title: string): SitePages {
  const perRelay = relays.map((relay) => ({ relay, changes: changesOf(relay, register) }));
  const changes: SiteChanges = {
    changed: perRelay.reduce((n, r) => n + (r.changes?.length ?? 0), 0),
    relays: perRelay.map(({ relay, changes }) => ({
      name: relay.name,
      previous: "results" in relay.previous ? relay.previous.label : null,
      ...("note" in relay.previous ? { note: relay.previous.note } : {}),
      changes: changes ?? [],
    })),
  };
  const css = siteCss();
  const js = siteJs();
  const pages: SitePages = {
    index: renderTemplate("site-index.html", { ...indexView(relays, register, title, changes), css, js }),
    relays: {},
    badges: {},
    changes: { json: changes, markdown: changesMarkdown(changes) },
  };
  for (const { relay, changes } of perRelay) {
    pages.relays[relay.slug] = renderTemplate("site-relay.html", {
      ...relayView(relay, register, changes),
      title,
      css,
    });
    pages.badges[relay.slug] = mustBadge(mustCount(relay.results, register));
  }
  return pages;
}

/** A file-name-safe slug for a relay name, unique among `taken` (which it joins). */
export function relaySlug(name: string, taken: Set<string>): string {
  const base = name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[.-]+/, "") || "relay";
  let slug = base;
  for (let n = 2; taken.has(slug.toLowerCase()); n++) slug = `${base}-${n}`;
  taken.add(slug.toLowerCase());
  return slug;
}
