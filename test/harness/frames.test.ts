import { describe, expect, it } from "vitest";
import { recorded } from "../../src/harness/channels.ts";
import { callFramesOf, FrameRecorder, MAX_FRAME_CHARS } from "../../src/harness/frames.ts";
import type { LineChannel } from "../../src/harness/jsonrpc-peer.ts";
import { FrameSchema } from "../../src/model/evidence.ts";

/** A JSON-RPC result frame of exactly `length` characters (ASCII, or with `fill` as the padding). */
function frameOf(length: number, fill = "x"): string {
  const head = '{"jsonrpc":"2.0","id":1,"result":{"text":"';
  const tail = '"}}';
  const n = length - head.length - tail.length;
  return head + fill.repeat(Math.floor(n / fill.length)) + "x".repeat(n % fill.length) + tail;
}

describe("FrameRecorder caps what the evidence keeps per frame", () => {
  it("keeps a frame of MAX_FRAME_CHARS whole and parsed", () => {
    const r = new FrameRecorder();
    const line = frameOf(MAX_FRAME_CHARS);
    r.record("upstream", "from-relay", line);
    const [frame] = r.since(0);
    expect(frame!.message).toEqual(JSON.parse(line));
    expect(frame!.raw).toBeUndefined();
    expect(frame!.truncated).toBeUndefined();
    expect(frame!.size).toBeUndefined();
  });

  it("stores a longer frame cut to MAX_FRAME_CHARS as raw, with its true size in bytes", () => {
    const r = new FrameRecorder();
    const line = frameOf(10 * 1024 * 1024);
    r.record("upstream", "from-relay", line, "s1");
    const [frame] = r.since(0);
    expect(frame!.message).toBeUndefined();
    expect(frame!.raw).toBe(line.slice(0, MAX_FRAME_CHARS));
    expect(frame!.size).toBe(10 * 1024 * 1024);
    expect(frame!.truncated).toBe(true);
    expect(frame!.session).toBe("s1");
    expect(FrameSchema.parse(frame)).toEqual(frame);
  });

  it("counts the true size in UTF-8 bytes, not characters", () => {
    const r = new FrameRecorder();
    const line = frameOf(MAX_FRAME_CHARS + 10, "é");
    r.record("downstream", "from-relay", line);
    const [frame] = r.since(0);
    expect(frame!.truncated).toBe(true);
    expect(frame!.size).toBe(Buffer.byteLength(line, "utf8"));
    expect(frame!.size).toBeGreaterThan(line.length);
  });

  it("evidence written before the cap (no size, no truncated) still parses", () => {
    expect(FrameSchema.parse({ t: 1, end: "upstream", dir: "to-relay", raw: "x" })).toBeTruthy();
    expect(() => FrameSchema.parse({ t: 1, end: "upstream", dir: "to-relay", truncated: false })).toThrow();
  });

  it("the cap is for the evidence only: the harness's peer still gets the whole frame", () => {
    const handlers: Array<(line: string) => void> = [];
    const channel: LineChannel = {
      send: () => undefined,
      onLine: (h) => handlers.push(h),
      onClose: () => undefined,
    };
    const r = new FrameRecorder();
    const seen: string[] = [];
    recorded(channel, r, "upstream").onLine((line) => seen.push(line));
    const line = frameOf(3 * MAX_FRAME_CHARS);
    for (const h of handlers) h(line);
    expect(seen).toEqual([line]);
    expect(JSON.parse(seen[0]!).result.text.length).toBeGreaterThan(MAX_FRAME_CHARS);
    expect(r.since(0)[0]!.truncated).toBe(true);
  });
});

describe("callFramesOf tells one 2026-07-28 probe call's frames from another's", () => {
  const call = (id: number, caseKey: string, requestState?: string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "p", arguments: caseKey ? { caseKey } : {}, ...(requestState ? { requestState } : {}) },
    });
  const reply = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, result: { resultType: "complete" } });

  it("claims the calls naming the case or echoing its requestState, and the upstream's responses to them", () => {
    const r = new FrameRecorder();
    const start = r.mark();
    r.record("upstream", "from-relay", call(1, "a"));
    r.record("upstream", "to-relay", reply(1));
    r.record("upstream", "from-relay", call(2, "b"));
    r.record("upstream", "from-relay", call(3, "", "state-a"));
    r.record("upstream", "to-relay", reply(2));
    r.record("upstream", "to-relay", reply(3));
    r.record("downstream", "to-relay", call(1, "a"));
    const frames = r.since(start);
    const ids = (set: Set<unknown>) =>
      frames.filter((f) => set.has(f)).map((f) => `${f.dir}:${(f.message as any).id}`);
    expect(ids(callFramesOf(frames, "a", "state-a"))).toEqual([
      "from-relay:1",
      "to-relay:1",
      "from-relay:3",
      "to-relay:3",
    ]);
    expect(ids(callFramesOf(frames, "b", undefined))).toEqual(["from-relay:2", "to-relay:2"]);
  });

  it("matches a response to its call on the call's own connection (a gateway numbers each from 1)", () => {
    const r = new FrameRecorder();
    const start = r.mark();
    r.record("upstream", "from-relay", call(1, "a"), "upstream-2");
    r.record("upstream", "from-relay", call(1, "b"), "upstream-3");
    r.record("upstream", "to-relay", reply(1), "upstream-3");
    r.record("upstream", "to-relay", reply(1), "upstream-2");
    const frames = r.since(start);
    const mine = callFramesOf(frames, "a", undefined);
    expect(frames.filter((f) => mine.has(f)).map((f) => `${f.dir}@${f.session}`)).toEqual([
      "from-relay@upstream-2",
      "to-relay@upstream-2",
    ]);
  });

  it("times each slice from its own mark, whatever was recorded before", async () => {
    const r = new FrameRecorder();
    r.record("upstream", "from-relay", reply(1));
    await new Promise((res) => setTimeout(res, 30));
    const start = r.mark();
    r.record("upstream", "from-relay", reply(2));
    expect(r.since(start)[0]!.t).toBeLessThan(20);
    expect(r.since(0)[1]!.t).toBeGreaterThanOrEqual(25);
  });
});
