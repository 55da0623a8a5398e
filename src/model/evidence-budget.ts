import { compactValue, overBytes, sha256Hex, utf8Head } from "./compact.ts";
import type { Evidence, Frame } from "./evidence.ts";
import type { LoadedCase } from "./load.ts";

/**
 * The size budget of a run's report folder, whatever the relay sends. Every evidence file is at most
 * EVIDENCE_FILE_MAX_BYTES; the case transcripts of one run (all its shards together) share CASE_EVIDENCE_BYTES, each
 * case in proportion to the sampling requests it makes (a burst of 48 or a tool loop of 16 rounds holds that many
 * exchanges), never less than EVIDENCE_FILE_MIN_BYTES; what is left of REPORT_FOLDER_MAX_BYTES holds matrix.html
 * (HTML_MAX_BYTES), results.json, the other reports and the fuzzing counterexamples (at most one per era, each within
 * the file bound). A well-behaved relay's transcripts are far within their budgets (about 12 KB each, 0.8 MB for the
 * longest tool loop): only what a relay sends in excess is cut.
 */
export const REPORT_FOLDER_MAX_BYTES = 100 * 1024 * 1024;
export const EVIDENCE_FILE_MAX_BYTES = 2 * 1024 * 1024;
export const CASE_EVIDENCE_BYTES = 80 * 1024 * 1024;
export const EVIDENCE_FILE_MIN_BYTES = 32 * 1024;
export const HTML_MAX_BYTES = 5 * 1024 * 1024;
/** The smallest frame cap a budget lowers a transcript's frames to before it leaves frames out. */
export const MIN_BUDGET_FRAME_BYTES = 512;

/** How many sampling requests a case makes: its share of the evidence budget. */
export function exchangesOf(kase: Pick<LoadedCase, "sequence" | "mrtr" | "sessions">): number {
  const q = kase.sequence;
  const n = kase.mrtr?.keys?.length ?? q?.loop ?? q?.burst ?? (q?.after ? q.after.length + 1 : 1);
  return Math.max(1, n) * (kase.sessions === 2 ? 2 : 1);
}

/**
 * The evidence budget of each case of a plan, in bytes (see above). Computed from the whole plan (every shard's work),
 * so a shard writes each transcript as the unsharded run would.
 */
export function evidenceBudgets(work: ReadonlyArray<{ kase: LoadedCase }>): (kase: LoadedCase) => number {
  const total = work.reduce((n, w) => n + exchangesOf(w.kase), 0);
  const share = CASE_EVIDENCE_BYTES / Math.max(1, total);
  return (kase) =>
    Math.min(
      EVIDENCE_FILE_MAX_BYTES,
      Math.max(EVIDENCE_FILE_MIN_BYTES, Math.floor(share * exchangesOf(kase))),
    );
}

/** An evidence file's text as written (what its sha256 in results.json covers). */
export const evidenceText = (evidence: unknown): string => `${JSON.stringify(evidence, null, 2)}\n`;

/** A frame whose stored text is over `cap` bytes, cut to its head (a parsed frame is cut from its JSON text). */
export function recutFrame(frame: Omit<Frame, "t"> & { t?: number }, cap: number): typeof frame {
  if (frame.truncated) {
    const raw = utf8Head(frame.raw ?? "", cap);
    return raw === frame.raw ? frame : { ...frame, raw };
  }
  const text = frame.message !== undefined ? JSON.stringify(frame.message) : (frame.raw ?? "");
  const size = overBytes(text, cap);
  if (size === undefined) return frame;
  const { message: _message, ...rest } = frame;
  return { ...rest, raw: utf8Head(text, cap), size, sha256: sha256Hex(text), truncated: true };
}

/** The evidence with every frame and string within `cap` bytes (frames cut to their heads, strings compacted). */
function withCap(evidence: Evidence, cap: number): Evidence {
  return {
    ...evidence,
    frames: evidence.frames.map((f) => recutFrame(f, cap)),
    observation: compactValue(evidence.observation, cap) as Evidence["observation"],
  };
}

/** The evidence without frames [from, from + count), its official-schema findings renumbered to match. */
function withoutFrames(evidence: Evidence, from: number, count: number): Evidence {
  const frames = [...evidence.frames.slice(0, from), ...evidence.frames.slice(from + count)];
  const o = evidence.officialSchema;
  const findings = o?.findings
    .filter((f) => f.frame < from || f.frame >= from + count)
    .map((f) => (f.frame >= from + count ? { ...f, frame: f.frame - count } : f));
  return { ...evidence, frames, ...(o && findings ? { officialSchema: { ...o, findings } } : {}) };
}

export interface FittedEvidence {
  /** The file's text (evidenceText of what is written). */
  text: string;
  /** Its size in bytes. */
  bytes: number;
  /** The budget cut something beyond the run's frame cap (the file says what in its `budget`). */
  cut: boolean;
}

const fitted = (evidence: unknown, cut: boolean): FittedEvidence => {
  const text = evidenceText(evidence);
  return { text, bytes: Buffer.byteLength(text, "utf8"), cut };
};

/**
 * The evidence as written within `budget` bytes. First every string of the observation over the run's frame cap
 * (`frameBytes`) is compacted as frames over it are (head, true size, sha256): that alone is what a relay's oversized
 * frames cost. A transcript still over its budget (a tool loop of 60 rounds of 64 KiB frames) has its frames and
 * strings cut further, halving the cap down to MIN_BUDGET_FRAME_BYTES, then frames left out from the middle of the
 * transcript; the file says so in `budget`. Verdicts are never judged from this copy: they were judged before.
 */
export function fitEvidence(evidence: Evidence, budget: number, frameBytes: number): FittedEvidence {
  const capped: Evidence = {
    ...evidence,
    observation: compactValue(evidence.observation, frameBytes) as Evidence["observation"],
  };
  const whole = fitted(capped, false);
  if (whole.bytes <= budget) return whole;
  // Attempts the harness was late for (not judged) give up their frames' heads first: their lateness stays.
  const lean = leanLateAttempts(capped);
  if (lean !== capped) {
    const note =
      `this transcript was over its size budget of ${budget} bytes (${whole.bytes} bytes): the frames of the ` +
      "attempts the harness was late for are left out (their lateness is kept)";
    const leaner = fitted({ ...lean, budget: { bytes: budget, frameBytes, note } }, true);
    if (leaner.bytes <= budget) return leaner;
  }
  return fitCut(lean, budget, frameBytes, whole.bytes);
}

/** The evidence with its late attempts (if any) kept without frames. */
function leanLateAttempts(evidence: Evidence): Evidence {
  if (!evidence.lateAttempts?.some((a) => a.frames.length > 0)) return evidence;
  return { ...evidence, lateAttempts: evidence.lateAttempts.map((a) => ({ ...a, frames: [] })) };
}

// Long: one ladder of ever smaller caps, then fewer frames, each tried until the transcript fits.
function fitCut(capped: Evidence, budget: number, frameBytes: number, wholeBytes: number): FittedEvidence {
  const first = { bytes: wholeBytes };
  const note = (cap: number, omitted?: { from: number; count: number }): Evidence["budget"] => ({
    bytes: budget,
    frameBytes: cap,
    ...(omitted ? { omittedFrames: omitted } : {}),
    note:
      `this transcript was over its size budget of ${budget} bytes (${first.bytes} bytes with frames of up to ` +
      `${frameBytes} bytes): frames and strings are kept up to ${cap} bytes each` +
      (omitted ? `, and ${omitted.count} frames from frame ${omitted.from} on are left out` : ""),
  });
  let cap = Math.min(frameBytes, budget);
  let cut = capped;
  while (cap > MIN_BUDGET_FRAME_BYTES) {
    cap = Math.max(MIN_BUDGET_FRAME_BYTES, Math.floor(cap / 2));
    cut = withCap(capped, cap);
    const tried = fitted({ ...cut, budget: note(cap) }, true);
    if (tried.bytes <= budget) return tried;
  }
  // Still over: keep as many frames as fit, half from the start and half from the end of the transcript.
  const n = cut.frames.length;
  const keeping = (kept: number) => {
    const from = Math.ceil(kept / 2);
    const count = n - kept;
    const omitted = count > 0 ? { from, count } : undefined;
    return fitted({ ...withoutFrames(cut, from, count), budget: note(cap, omitted) }, true);
  };
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (keeping(mid).bytes <= budget) lo = mid;
    else hi = mid - 1;
  }
  // Even without frames the rest may be over (a verdict is never cut): the file is then as small as it gets.
  return keeping(lo);
}
