import { describe, expect, it } from "vitest";
import {
  caseLine,
  colorSupported,
  initialProgress,
  type ProgressOptions,
  type ProgressState,
  progressStep,
  type RunEvent,
} from "../../src/run/progress.ts";

const ESC = String.fromCharCode(27);
/** Carriage returns or escape sequences: what a non-TTY stream must never get. */
const NOT_PLAIN = new RegExp(`\r|${ESC}`);

const pass: RunEvent = {
  kind: "case",
  row: "sampling-relay-roundtrip",
  id: "text-roundtrip",
  era: "2025-11-25",
  status: "pass",
  reason: "Delivered",
  evidence: "out/evidence/sampling-relay-roundtrip/text-roundtrip@2025-11-25.json",
  failsCell: false,
};
const fail: RunEvent = {
  ...pass,
  row: "sampling-relay-expiry-reported",
  id: "no-answer-expires",
  status: "fail",
  reason: "No expiry reported",
  evidence: "out/evidence/sampling-relay-expiry-reported/no-answer-expires@2025-11-25.json",
  failsCell: true,
};

/** Feeds events through the reducer at the given times; returns everything written. */
function play(
  opts: ProgressOptions,
  events: Array<[RunEvent, number]>,
): { text: string; state: ProgressState } {
  let state = initialProgress(0);
  let text = "";
  for (const [event, now] of events) {
    const step = progressStep(state, event, opts, now);
    state = step.state;
    text += step.text;
  }
  return { text, state };
}

const start: RunEvent = { kind: "start", total: 3, target: "reference", eras: ["2025-11-25"] };

describe("live progress (pure reducer)", () => {
  it("not on a TTY: a plain line per judged case as it is judged, failures with their evidence path", () => {
    const { text, state } = play({ mode: "lines", color: false }, [
      [{ kind: "log", line: "mcpx-conform: 3 case runs" }, 0],
      [start, 0],
      [pass, 100],
      [fail, 1700],
      [{ kind: "end" }, 1800],
    ]);
    expect(text).toBe(
      [
        "mcpx-conform: 3 case runs",
        "✓ sampling-relay-roundtrip/text-roundtrip @2025-11-25",
        "✗ sampling-relay-expiry-reported/no-answer-expires @2025-11-25: No expiry reported (evidence: out/evidence/sampling-relay-expiry-reported/no-answer-expires@2025-11-25.json)",
        "",
      ].join("\n"),
    );
    expect(state.done).toBe(2);
    expect(state.counts).toMatchObject({ pass: 1, fail: 1 });
    expect(text).not.toMatch(NOT_PLAIN);
  });

  it("on a TTY: one status line redrawn in place, failures printed above it, cleared at the end", () => {
    const opts = { mode: "tty", color: false, columns: 200 } as const;
    const { text } = play(opts, [
      [start, 0],
      [pass, 100],
      [{ kind: "tick" }, 1100],
      [fail, 2500],
      [{ kind: "end" }, 2600],
    ]);
    const frames = text.split("\r\x1b[K");
    expect(frames[0]).toBe("mcpx-conform [0/3] 0 ✓ 0 ✗ 0.0 s");
    expect(frames[1]).toBe("mcpx-conform [1/3] 1 ✓ 0 ✗ 0.1 s @2025-11-25 sampling-relay-roundtrip");
    expect(frames[2]).toBe("mcpx-conform [1/3] 1 ✓ 0 ✗ 1.1 s @2025-11-25 sampling-relay-roundtrip");
    expect(frames[3]).toBe(
      `${caseLine(fail as Extract<RunEvent, { kind: "case" }>, false)}\nmcpx-conform [2/3] 1 ✓ 1 ✗ 2.5 s @2025-11-25 sampling-relay-expiry-reported`,
    );
    // The end clears the line; nothing is drawn after it.
    expect(frames[4]).toBe("");
    expect(text.endsWith("\r\x1b[K")).toBe(true);
    // The passing case never gets a line of its own on a TTY.
    expect(text).not.toContain("✓ sampling-relay-roundtrip/");
  });

  it("on a TTY: a log line after the end is plain, and the status line never wraps", () => {
    const { text } = play({ mode: "tty", color: false, columns: 30 }, [
      [start, 0],
      [pass, 10],
      [{ kind: "end" }, 20],
      [{ kind: "log", line: "wrote results.json" }, 30],
    ]);
    const lines = text.split("\r\x1b[K");
    for (const l of lines) expect([...l.split("\n").at(-1)!].length).toBeLessThan(30);
    expect(text.endsWith("wrote results.json\n")).toBe(true);
  });

  it("--quiet prints nothing", () => {
    const { text } = play({ mode: "quiet", color: false }, [
      [start, 0],
      [pass, 1],
      [fail, 2],
      [{ kind: "log", line: "x" }, 3],
      [{ kind: "end" }, 4],
    ]);
    expect(text).toBe("");
  });

  it("colours only where supported (NO_COLOR honoured, never off a TTY)", () => {
    expect(colorSupported({}, true)).toBe(true);
    expect(colorSupported({}, false)).toBe(false);
    expect(colorSupported({}, undefined)).toBe(false);
    expect(colorSupported({ NO_COLOR: "1" }, true)).toBe(false);
    expect(colorSupported({ NO_COLOR: "" }, true)).toBe(true);
    expect(colorSupported({ TERM: "dumb" }, true)).toBe(false);
    expect(caseLine(fail as Extract<RunEvent, { kind: "case" }>, true)).toMatch(
      new RegExp(`^${ESC}\\[31m✗${ESC}\\[0m `),
    );
    expect(caseLine(fail as Extract<RunEvent, { kind: "case" }>, false)).toMatch(/^✗ /);
  });
});
