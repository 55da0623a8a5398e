import type { Frame } from "../model/evidence.ts";

type End = Frame["end"];
type Dir = Frame["dir"];

/**
 * The most characters of one frame the evidence keeps (64 Ki). A longer frame is stored cut to this length as
 * `raw`, with `size` (its true length in UTF-8 bytes) and `truncated: true`, and is not parsed for the evidence;
 * the harness's own peers still receive and parse it whole, so the verdict is unaffected.
 */
export const MAX_FRAME_CHARS = 64 * 1024;

/**
 * Records every frame seen at either end of the relay. One recorder serves a whole relay session; each case reads
 * the frames seen while it ran, with `t` in ms since the case's own mark (cases of a 2026-07-28 session may overlap:
 * one still settling while the next runs, so every frame keeps its absolute time and each slice is timed from its
 * own mark).
 */
export class FrameRecorder {
  private readonly frames: Frame[] = [];
  /** performance.now() of each frame, by index. */
  private readonly times: number[] = [];
  /** The moment of each mark, by the frame index it returned. */
  private readonly marks = new Map<number, number>();

  record(end: End, dir: Dir, raw: string, session?: string, httpStatus?: number): void {
    const frame: Frame = { t: 0, end, dir };
    if (raw.length > MAX_FRAME_CHARS) {
      frame.raw = raw.slice(0, MAX_FRAME_CHARS);
      frame.size = Buffer.byteLength(raw, "utf8");
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

  /** Starts a slice: returns the index of the next frame; frames read from it are timed from this moment. */
  mark(): number {
    this.marks.set(this.frames.length, performance.now());
    return this.frames.length;
  }

  /** The index the next frame will get (a slice's end). */
  get length(): number {
    return this.frames.length;
  }

  /** Frames from `index` (a mark) up to `end` (exclusive; default: all so far), timed from the mark. */
  since(index: number, end = this.frames.length, keep: (frame: Frame) => boolean = () => true): Frame[] {
    const epoch = this.marks.get(index) ?? this.times[index] ?? performance.now();
    const out: Frame[] = [];
    for (let i = index; i < end; i++) {
      const frame = this.frames[i]!;
      if (keep(frame)) out.push({ ...frame, t: Math.round((this.times[i]! - epoch) * 10) / 10 });
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
