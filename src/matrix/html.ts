import { createHash } from "node:crypto";
import { CHECK_CATALOGUE } from "../judge/checks/index.ts";
import type { Evidence } from "../model/evidence.ts";
import { HTML_MAX_BYTES } from "../model/evidence-budget.ts";
import type { Register } from "../model/register.ts";
import type { Cell, CellStatus, Results } from "../model/results.ts";
import { isHttpsUrl, isRelativePath, jsonForScript } from "./escape.ts";
import { observationsView, verdictLine } from "./markdown.ts";
import {
  branchSummary,
  caseCount,
  cellKey,
  countCases,
  countCells,
  displayTime,
  eraSpecUrl,
  levelLabel,
  reproduceCommand,
  rowIndex,
  runEras,
  runRowIds,
  SIDE_ORDER,
  sidesOf,
} from "./model.ts";
import { CELL_STATUS_ORDER } from "./status.ts";
import { renderTemplate, templateAsset } from "./templates.ts";

/** What a cell's count says, labelled: "2 of 3 cases passed"; empty for a cell without cases. */
export function casesPassed(cell: Cell): string {
  const n = cell.cases.length;
  if (n === 0) return "";
  return `${cell.cases.filter((k) => k.status === "pass").length} of ${n} case${n === 1 ? "" : "s"} passed`;
}

/**
 * Where the reports find a case's evidence: transcripts in memory by path (as results.json names them), or a reader
 * that loads one when it is needed (a run reads them back from its folder: none is kept in memory meanwhile).
 */
export type EvidenceSource = Record<string, Evidence> | ((path: string) => Evidence | undefined);

export const evidenceReader = (source: EvidenceSource) =>
  typeof source === "function"
    ? source
    : (path: string): Evidence | undefined => (Object.hasOwn(source, path) ? source[path] : undefined);

/** CSS class for a status ("n/a" → "s-na"). */
export function statusClass(status: string): string {
  return `s-${status.replace(/[^a-z-]/g, "")}`;
}

function cspHash(text: string): string {
  return `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;
}

/** The page's script, checked once: it is inlined raw, so it must not be able to close its element. */
function viewerScript(): string {
  const js = templateAsset("viewer.js");
  if (/<\/script|<!--/i.test(js)) throw new Error("viewer.js must not contain '</script' or '<!--'");
  return js;
}

function stylesheet(): string {
  const css = templateAsset("matrix.css");
  if (/<\/style/i.test(css)) throw new Error("matrix.css must not contain '</style'");
  return css;
}

/**
 * matrix.html: one self-contained page (inline CSS and JS, no network: the Content-Security-Policy allows
 * only the page's own script and style by hash). The matrix is rendered here with escaping; the evidence
 * is embedded as JSON (`<` escaped) and shown by the viewer with textContent only.
 *
 * The page is at most `maxBytes` (5 MB): what the viewer shows of each transcript (evidenceView) is embedded, the
 * worst cases first, while it fits; a case whose transcript is not embedded links its file under evidence/, and the
 * page says how many are (a run with a well-behaved relay embeds them all: about 3.5 MB for the default run).
 * `evidences` gives transcripts by the evidence path as written in results.json; transcripts no case refers to
 * are left out.
 */
// Long: one template context: each field the page shows is built once, next to its escaping.
export function renderHtml(
  results: Results,
  register: Register,
  evidences: EvidenceSource,
  maxBytes: number = HTML_MAX_BYTES,
): string {
  const evidenceAt = evidenceReader(evidences);
  const rows = rowIndex(register);
  const eras = runEras(results);
  const byKey = new Map(results.cells.map((c) => [cellKey(c), c]));
  const statuses = CELL_STATUS_ORDER.filter((s) => results.cells.some((c) => c.status === s));

  const matrixRows = runRowIds(results, register).flatMap((id) => {
    const reg = rows.get(id);
    const mine = results.cells.filter((c) => c.row === id);
    return sidesOf(mine).map((side) => ({
      id,
      side,
      title: reg?.title ?? "",
      level: levelLabel(reg?.level),
      url: reg?.url && isHttpsUrl(reg.url) ? reg.url : "",
      cells: eras.map((era) => {
        const cell = byKey.get(cellKey({ row: id, era, side }));
        if (!cell) return { present: false, era };
        return {
          present: true,
          key: cellKey(cell),
          row: id,
          era,
          side,
          status: cell.status,
          cls: statusClass(cell.status),
          count: casesPassed(cell),
        };
      }),
    }));
  });

  const matrixData = {
    target: results.target.name,
    cells: Object.fromEntries(
      results.cells.map((c) => {
        const r = rows.get(c.row);
        // Each cell's spec link is its own era's page.
        const specUrl = r ? eraSpecUrl(r, c.era) : "";
        return [
          cellKey(c),
          {
            row: c.row,
            era: c.era,
            side: c.side,
            status: c.status,
            note: c.note ?? "",
            cases: c.cases,
            specUrl: isHttpsUrl(specUrl) ? specUrl : "",
          },
        ];
      }),
    ),
    rows: Object.fromEntries(
      [...new Set(results.cells.map((c) => c.row))].flatMap((id) => {
        const r = rows.get(id);
        return r
          ? [[id, { title: r.title, level: levelLabel(r.level), quote: r.quote, url: r.url, na: r.na ?? "" }]]
          : [];
      }),
    ),
  };

  const js = viewerScript();
  const css = stylesheet();
  const page = (evidenceJson: string, embeddedNote: string) =>
    renderTemplate("matrix.html", {
      target: results.target.name,
      profile: typeof results.target.profile === "string" ? results.target.profile : "",
      toolName: results.tool.name,
      toolVersion: results.tool.version,
      seed: results.seed,
      startedAt: results.startedAt,
      finishedAt: results.finishedAt ?? "",
      started: displayTime(results.startedAt),
      finished: results.finishedAt ? displayTime(results.finishedAt) : "",
      eras,
      sides: SIDE_ORDER.filter((s) => results.cells.some((c) => c.side === s)),
      reproduce: reproduceCommand(results),
      verdict: verdictLine(results, false),
      cellCount: results.cells.length,
      caseCount: caseCount(results),
      cellTotals: countCells(results.cells).map((s) => ({
        label: s.status,
        count: s.count,
        unit: s.count === 1 ? "cell" : "cells",
        cls: statusClass(s.status),
      })),
      caseTotals: countCases(results.cells).map((s) => ({
        label: s.status,
        count: s.count,
        unit: s.count === 1 ? "case" : "cases",
        cls: statusClass(s.status),
      })),
      statuses: statuses.map((s: CellStatus) => ({ status: s, label: s, cls: statusClass(s) })),
      rows: matrixRows,
      fuzz: (results.fuzz ?? []).map((f) => ({
        era: f.era,
        runs: f.runs,
        seconds: f.durationMs === undefined ? "" : (f.durationMs / 1000).toFixed(1),
        label: f.status,
        cls: statusClass(f.status),
        reason: f.reason,
        branches: branchSummary(f.branches),
        evidence: f.evidence && isRelativePath(f.evidence) ? f.evidence : "",
        caseFile: f.caseFile ?? "",
      })),
      observations: observationsView(results),
      legend: CELL_STATUS_ORDER.map((s) => ({ status: s, cls: statusClass(s) })),
      matrixJson: jsonForScript(matrixData),
      evidenceJson,
      embeddedNote,
      checksJson: jsonForScript(CHECK_CATALOGUE),
      js,
      css,
      scriptHash: cspHash(js),
      styleHash: cspHash(css),
    });
  // The page without transcripts, with the longest note it may carry: what is left of the budget holds transcripts.
  const referenced = referencedEvidence(results);
  const bare = Buffer.byteLength(
    page("{}", embeddedNoteText(referenced.length, referenced.length, maxBytes)),
  );
  const embedded = embedWithin(referenced, evidenceAt, maxBytes - bare - PAGE_SLACK_BYTES);
  return page(embedded.json, embeddedNoteText(embedded.count, referenced.length, maxBytes));
}

/** Bytes of the page's budget kept free of transcripts (the note's figures may grow by a few digits). */
const PAGE_SLACK_BYTES = 1024;

const STATUS_RANK: Record<string, number> = { fail: 0, error: 1, warn: 2, skip: 3, pass: 4 };

/**
 * The transcripts the page's cases refer to, worst first: by the worst status of a case result that points at it (fail,
 * error, warn, skip, pass), then by path. That is the order they are embedded in while they fit.
 */
function referencedEvidence(results: Results): string[] {
  const worst = new Map<string, number>();
  for (const c of results.cells)
    for (const k of c.cases)
      if (k.evidence !== undefined)
        worst.set(k.evidence, Math.min(worst.get(k.evidence) ?? 9, STATUS_RANK[k.status] ?? 9));
  return [...worst.keys()].sort((a, b) => worst.get(a)! - worst.get(b)! || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * What the viewer shows of a transcript (src/matrix/templates/viewer.js), and nothing else: its title and why, the
 * rule, the verdict with its checks, the negotiated versions, its time, its frames, what the upstream got and how often
 * the answering side was asked. The full transcript is its file under evidence/, linked beside it.
 */
export function evidenceView(e: Evidence): Record<string, unknown> {
  const o = e.observation;
  return {
    case: { title: e.case.title, why: e.case.why },
    ...(e.rule ? { rule: e.rule } : {}),
    negotiated: e.negotiated,
    ...(e.durationMs !== undefined ? { durationMs: e.durationMs } : {}),
    verdict: e.verdict,
    frames: e.frames,
    observation: {
      upstream: o.upstream,
      asked: Array.isArray(o.asked) ? o.asked.length : 0,
      reviewed: (o.reviews ?? []).filter((r) => r.stage === "request").length,
    },
    ...(e.budget ? { budget: e.budget } : {}),
  };
}

/**
 * The evidence JSON the page embeds within `room` bytes: transcripts in `order` while each fits (a larger one is
 * skipped, smaller ones after it may still fit), as one object keyed by path in path order. Each is read when its
 * turn comes and let go once measured: the page's budget bounds what is held, not the run's evidence.
 */
function embedWithin(
  order: string[],
  evidenceAt: (path: string) => Evidence | undefined,
  room: number,
): { json: string; count: number } {
  const parts: Array<[string, string]> = [];
  let left = room - 2;
  for (const path of order) {
    const evidence = evidenceAt(path);
    if (!evidence) continue;
    const part = `${jsonForScript(path)}:${jsonForScript(evidenceView(evidence))}`;
    const bytes = Buffer.byteLength(part) + 1;
    if (bytes > left) continue;
    parts.push([path, part]);
    left -= bytes;
  }
  parts.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { json: `{${parts.map(([, p]) => p).join(",")}}`, count: parts.length };
}

/** The page's word on what it embeds: nothing when every transcript is in it. */
function embeddedNoteText(count: number, total: number, maxBytes: number): string {
  if (count >= total) return "";
  const mb = (maxBytes / (1024 * 1024)).toFixed(maxBytes % (1024 * 1024) === 0 ? 0 : 1);
  return `${count} of ${total} transcripts are embedded in this page (the worst cases first); the other ${total - count} are not, to keep matrix.html within ${mb} MB: a case without one links its file under evidence/.`;
}
