import { overBytes, sha256Hex, utf8Head } from "../model/compact.ts";
import type { Frame } from "../model/evidence.ts";

type End = Frame["end"];
type Dir = Frame["dir"];

/**
 * The most bytes of one frame the evidence keeps, by default (64 KiB; `run --max-evidence-frame-bytes N`). A longer
 * frame is stored as its head (`raw`, at most this many UTF-8 bytes), its true length in UTF-8 bytes (`size`), the
 * sha256 of the whole frame (`sha256`) and `truncated: true`, and is not parsed for the evidence; the harness's own
 * peers still receive and parse it whole, so the verdict is that of the full message.
 */
export const DEFAULT_MAX_FRAME_BYTES = 64 * 1024;

/**
 * Records every frame seen at either end of the relay. One recorder serves a whole relay session; each case reads
 * the frames seen while it ran, with `t` in ms since the case's own mark (cases of a 2026-07-28 session may overlap:
 * one still settling while the next runs, so every frame keeps its absolute time and each slice is timed from its
 * own mark). A mark holds the frames from it on until it is released: frames no held mark can read any more are
 * let go, so a session that runs 10,000 cases keeps only the frames of the cases still running.
 */
export class FrameRecorder {
  private readonly frames: Frame[] = [];
  /** performance.now() of each frame, by index less `base`. */
  private readonly times: number[] = [];
  /** The absolute index of frames[0]: frames before it were let go. */
  private base = 0;
  /** The moment of each mark, by the frame index it returned. */
  private readonly marks = new Map<number, number>();
  /** How many holders each mark has (mark() adds one, release() takes one). */
  private readonly holds = new Map<number, number>();

  constructor(readonly maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES) {}

  record(end: End, dir: Dir, raw: string, session?: string, httpStatus?: number): void {
    const frame: Frame = { t: 0, end, dir };
    const size = overBytes(raw, this.maxFrameBytes);
    if (size !== undefined) {
      frame.raw = utf8Head(raw, this.maxFrameBytes);
      frame.size = size;
      frame.sha256 = sha256Hex(raw);
      frame.truncated = true;
    } else {
      try {
        frame.message = JSON.parse(raw);
      } catch {
        frame.raw = raw;
      }
    }
    if (session !== undefined) frame.session = session;
    if (httpStatus !== undefined) frame.httpStatus = httpStatus;
    this.frames.push(frame);
    this.times.push(performance.now());
  }

  /**
   * Starts a slice: returns the index of the next frame; frames read from it are timed from this moment. The frames
   * from the mark on are kept until `release(mark)`.
   */
  mark(): number {
    const index = this.length;
    this.marks.set(index, performance.now());
    this.holds.set(index, (this.holds.get(index) ?? 0) + 1);
    return index;
  }

  /** The moment (performance.now()) a held mark was made: the time its slice is timed from. */
  epochOf(mark: number): number {
    return this.marks.get(mark) ?? this.times[mark - this.base] ?? performance.now();
  }

  /** A holder of `mark` is done reading: frames no held mark can read any more are let go. */
  release(mark: number): void {
    const held = (this.holds.get(mark) ?? 0) - 1;
    if (held > 0) {
      this.holds.set(mark, held);
      return;
    }
    this.holds.delete(mark);
    this.marks.delete(mark);
    const keepFrom = this.holds.size > 0 ? Math.min(...this.holds.keys()) : this.length;
    const drop = keepFrom - this.base;
    if (drop <= 0) return;
    this.frames.splice(0, drop);
    this.times.splice(0, drop);
    this.base = keepFrom;
  }

  /** The index the next frame will get (a slice's end). */
  get length(): number {
    return this.base + this.frames.length;
  }

  /** How many frames the recorder holds now (those a held mark can still read, and any recorded since). */
  get held(): number {
    return this.frames.length;
  }

  /** Frames from `index` (a mark) up to `end` (exclusive; default: all so far), timed from the mark. */
  since(index: number, end = this.length, keep: (frame: Frame) => boolean = () => true): Frame[] {
    if (index < this.base)
      throw new Error(`frames from ${index} were let go (the recorder holds ${this.base} on)`);
    const epoch = this.marks.get(index) ?? this.times[index - this.base] ?? performance.now();
    const out: Frame[] = [];
    for (let i = index; i < end; i++) {
      const frame = this.frames[i - this.base]!;
      if (keep(frame)) out.push({ ...frame, t: Math.round((this.times[i - this.base]! - epoch) * 10) / 10 });
    }
    return out;
  }
}

/**
 * The frames of one 2026-07-28 probe call at the upstream end, by content: `tools/call` requests whose arguments name
 * the case (`caseKey`) or that echo its requestState, and the upstream's responses to those requests. A case that
 * settles while the next one runs claims these from the frames recorded meanwhile (and the next case leaves them).
 */
export function callFramesOf(frames: Frame[], caseKey: string, requestState: string | undefined): Set<Frame> {
  const claimed = new Set<Frame>();
  // A response is the call's when it has the call's id on the call's connection (ids restart on each).
  const ids = new Set<string>();
  const key = (frame: Frame, id: unknown) => `${frame.session ?? ""} ${JSON.stringify(id)}`;
  for (const frame of frames) {
    if (frame.end !== "upstream") continue;
    const m = frame.message as Record<string, any> | undefined;
    if (!m || typeof m !== "object") continue;
    if (frame.dir === "from-relay" && m.method === "tools/call") {
      const p = m.params;
      const mine =
        p?.arguments?.caseKey === caseKey || (requestState !== undefined && p?.requestState === requestState);
      if (mine) {
        claimed.add(frame);
        if (m.id !== undefined) ids.add(key(frame, m.id));
      }
    } else if (frame.dir === "to-relay" && m.method === undefined && ids.has(key(frame, m.id))) {
      claimed.add(frame);
    }
  }
  return claimed;
}
