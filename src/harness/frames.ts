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
 * Records every frame seen at either end of the relay, with the time since the recorder's epoch.
 * One recorder serves a whole relay session; each case reads the slice of frames seen while it ran.
 */
export class FrameRecorder {
  private readonly frames: Frame[] = [];
  private epoch = performance.now();

  record(end: End, dir: Dir, raw: string, session?: string): void {
    const frame: Frame = { t: Math.round((performance.now() - this.epoch) * 10) / 10, end, dir };
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
    this.frames.push(frame);
  }

  /** Starts a new slice; frames recorded from now on have t relative to this moment. */
  mark(): number {
    this.epoch = performance.now();
    return this.frames.length;
  }

  since(index: number): Frame[] {
    return this.frames.slice(index);
  }
}
