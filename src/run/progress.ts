import { relative } from "node:path";
import type { CaseStatus, Results } from "../model/results.ts";

/** What the pipeline reports while a run goes on. */
export type RunEvent =
  | { kind: "start"; total: number; target: string; eras: string[] }
  /** A case was judged (as soon as it ended and its era's round trip had). */
  | {
      kind: "case";
      row: string;
      id: string;
      era: string;
      status: CaseStatus;
      reason: string;
      /** Where its transcript is (relative to the working directory); written at once for a failing case. */
      evidence: string;
      /** The verdict (or a finding counted toward another row) fails a cell. */
      failsCell: boolean;
    }
  /** A line the pipeline has to say (its plan, fuzzing, --bail). */
  | { kind: "log"; line: string }
  /** The clock moved (a TTY's line shows the elapsed time even while a case waits for a deadline). */
  | { kind: "tick" }
  | { kind: "end" };

/** tty: one line redrawn in place; lines: a plain line per judged case; quiet: nothing. */
export type ProgressMode = "tty" | "lines" | "quiet";

export interface ProgressOptions {
  mode: ProgressMode;
  color: boolean;
  /** Terminal width (tty): the status line is cut to fit, or redrawing it would wrap. */
  columns?: number;
}

export interface ProgressState {
  total: number;
  done: number;
  counts: Record<CaseStatus, number>;
  startedMs: number | undefined;
  nowMs: number;
  /** Era and row of the case judged last. */
  current: string;
  /** Whether the status line is on screen (tty), to be cleared before anything else is written. */
  drawn: boolean;
  /** After the end no status line is drawn again (later lines are plain). */
  ended: boolean;
}

export const initialProgress = (nowMs = 0): ProgressState => ({
  total: 0,
  done: 0,
  counts: { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 },
  startedMs: undefined,
  nowMs,
  current: "",
  drawn: false,
  ended: false,
});

/** Whether stderr may carry colour: a TTY, no NO_COLOR (any non-empty value: https://no-color.org), not TERM=dumb. */
export function colorSupported(env: Record<string, string | undefined>, isTTY: boolean | undefined): boolean {
  if (!isTTY) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR === "0") return false;
  return env.TERM !== "dumb";
}

const MARKS: Record<CaseStatus, string> = { pass: "✓", fail: "✗", warn: "!", error: "E", skip: "-" };
const COLORS: Record<CaseStatus, number> = { pass: 32, fail: 31, warn: 33, error: 35, skip: 90 };
const ESC = String.fromCharCode(27);
const CLEAR = `\r${ESC}[K`;
/** A colour code (SGR sequence): it takes no room on screen. */
const SGR = new RegExp(`(${ESC}\\[[0-9;]*m)`);

const paint = (on: boolean, code: number, text: string) => (on ? `${ESC}[${code}m${text}${ESC}[0m` : text);

/** The line a judged case prints: failures (and warnings, errors, skips) with their reason, failures with evidence. */
export function caseLine(e: Extract<RunEvent, { kind: "case" }>, color: boolean): string {
  const mark = paint(color, COLORS[e.status], MARKS[e.status]);
  const tail = e.status === "pass" ? "" : `: ${e.reason}`;
  const evidence = e.status === "fail" || e.failsCell ? ` (evidence: ${e.evidence})` : "";
  return `${mark} ${e.row}/${e.id} @${e.era}${tail}${evidence}`;
}

function seconds(ms: number): string {
  return ms < 60_000
    ? `${(ms / 1000).toFixed(1)} s`
    : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The TTY's status line: cases done / total, verdicts so far, elapsed time, what ran last. */
export function statusLine(s: ProgressState, opts: ProgressOptions): string {
  const c = s.counts;
  const verdicts = [
    paint(opts.color, COLORS.pass, `${c.pass} ✓`),
    paint(opts.color && c.fail > 0, COLORS.fail, `${c.fail} ✗`),
    ...(c.warn ? [`${c.warn} !`] : []),
    ...(c.error ? [`${c.error} E`] : []),
  ].join(" ");
  const elapsed = seconds(s.startedMs === undefined ? 0 : s.nowMs - s.startedMs);
  const plain = `mcpx-conform [${s.done}/${s.total}] ${verdicts} ${elapsed}${s.current ? ` ${s.current}` : ""}`;
  const width = (opts.columns ?? 80) - 1;
  // Cut by visible characters (colour codes take no room), so the line never wraps and \r redraws it whole.
  let visible = 0;
  let out = "";
  for (const part of plain.split(SGR)) {
    if (part.startsWith(`${ESC}[`)) {
      out += part;
      continue;
    }
    const room = Math.max(0, width - visible);
    out += [...part].slice(0, room).join("");
    visible += Math.min(room, [...part].length);
  }
  return out;
}

/**
 * The pure core of live progress: from the state and one event to the next state and the text to write to stderr
 * (tty: lines above a status line redrawn with \r; lines: one line per case; quiet: nothing).
 */
export function progressStep(
  state: ProgressState,
  event: RunEvent,
  opts: ProgressOptions,
  nowMs: number,
): { state: ProgressState; text: string } {
  let s: ProgressState = { ...state, nowMs };
  const above: string[] = [];
  switch (event.kind) {
    case "start":
      s = { ...s, total: event.total, startedMs: nowMs };
      break;
    case "case":
      s = {
        ...s,
        done: s.done + 1,
        counts: { ...s.counts, [event.status]: s.counts[event.status] + 1 },
        current: `@${event.era} ${event.row}`,
      };
      // On a TTY only what went wrong stays on screen; elsewhere every case gets its line.
      if (opts.mode === "lines" || event.status !== "pass") above.push(caseLine(event, opts.color));
      break;
    case "log":
      above.push(event.line);
      break;
    case "tick":
    case "end":
      break;
  }
  if (opts.mode === "quiet") return { state: s, text: "" };
  if (opts.mode === "lines") return { state: s, text: above.map((l) => `${l}\n`).join("") };
  const clear = state.drawn ? CLEAR : "";
  if (event.kind === "end") return { state: { ...s, drawn: false, ended: true }, text: clear };
  if (event.kind === "tick" && !state.drawn) return { state: s, text: "" };
  const live = s.startedMs !== undefined && !s.ended;
  const text = `${clear}${above.map((l) => `${l}\n`).join("")}${live ? statusLine(s, opts) : ""}`;
  return { state: { ...s, drawn: live }, text };
}

/** Live progress on a stream: feeds events through `progressStep`, ticks once a second on a TTY. */
export function createProgress(
  opts: ProgressOptions & { write: (text: string) => void; now?: () => number },
): { onEvent: (event: RunEvent) => void; end: () => void } {
  const now = opts.now ?? (() => performance.now());
  let state = initialProgress(now());
  let timer: NodeJS.Timeout | undefined;
  const onEvent = (event: RunEvent) => {
    const step = progressStep(state, event, opts, now());
    state = step.state;
    if (step.text) opts.write(step.text);
    if (event.kind === "start" && opts.mode === "tty") {
      timer = setInterval(() => onEvent({ kind: "tick" }), 1000);
      timer.unref();
    }
  };
  return {
    onEvent,
    end: () => {
      clearInterval(timer);
      onEvent({ kind: "end" });
    },
  };
}

/** The summary line every run (and merge) prints, even with --quiet. */
export function summaryLine(
  outcome: { results: Pick<Results, "summary" | "cells" | "lateReruns">; outDir: string },
  cwd = process.cwd(),
): string {
  const s = outcome.results.summary;
  const counts = ["pass", "fail", "warn", "partial", "error", "not-run", "n/a"].map(
    (k) => `${s[k] ?? 0} ${k}`,
  );
  const where = relative(cwd, outcome.outDir) || outcome.outDir;
  return `mcpx-conform: ${outcome.results.cells.length} cells: ${counts.join(", ")}${rerunNote(outcome.results.lateReruns)} → ${where}`;
}

/** The re-runs a loaded machine cost, and why (results.json `lateReruns`). */
function rerunNote(late: Results["lateReruns"]): string {
  if (!late) return "";
  const still = late.stillLate > 0 ? `, ${late.stillLate} late every time (error)` : "";
  return ` (${late.cases} case(s) re-run ${late.reruns}× as the harness was late for them${still})`;
}
