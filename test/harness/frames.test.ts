import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { callFramesOf, DEFAULT_MAX_FRAME_BYTES, FrameRecorder } from "../../src/harness/frames.ts";
import type { LineChannel } from "../../src/harness/jsonrpc-peer.ts";
import { recorded } from "../../src/harness/lines.ts";
import { FrameSchema } from "../../src/model/evidence.ts";

/** A JSON-RPC result frame of exactly `length` characters (ASCII, or with `fill` as the padding). */
function frameOf(length: number, fill = "x"): string {
  const head = '{"jsonrpc":"2.0","id":1,"result":{"text":"';
  const tail = '"}}';
  const n = length - head.length - tail.length;
  return head + fill.repeat(Math.floor(n / fill.length)) + "x".repeat(n % fill.length) + tail;
}

const CAP = DEFAULT_MAX_FRAME_BYTES;

describe("FrameRecorder caps what the evidence keeps per frame", () => {
  it("keeps a frame of exactly the cap (64 KiB) whole and parsed", () => {
    const r = new FrameRecorder();
    const line = frameOf(CAP);
    r.record("upstream", "from-relay", line);
    const [frame] = r.since(0);
    expect(frame!.message).toEqual(JSON.parse(line));
    expect(frame!.raw).toBeUndefined();
    expect(frame!.truncated).toBeUndefined();
    expect(frame!.size).toBeUndefined();
    expect(frame!.sha256).toBeUndefined();
  });

  it("stores a longer frame as its head, its true size in bytes and the sha256 of the whole frame", () => {
    const r = new FrameRecorder();
    const line = frameOf(10 * 1024 * 1024);
    r.record("upstream", "from-relay", line, "s1");
    const [frame] = r.since(0);
    expect(frame!.message).toBeUndefined();
    expect(frame!.raw).toBe(line.slice(0, CAP));
    expect(frame!.size).toBe(10 * 1024 * 1024);
    expect(frame!.sha256).toBe(createHash("sha256").update(line).digest("hex"));
    expect(frame!.truncated).toBe(true);
    expect(frame!.session).toBe("s1");
    expect(FrameSchema.parse(frame)).toEqual(frame);
  });

  it("counts bytes, not characters: the head is at most the cap in UTF-8 and never splits a character", () => {
    const r = new FrameRecorder();
    const line = frameOf(CAP / 2 + 100, "é"); // fewer characters than the cap, more bytes
    r.record("downstream", "from-relay", line);
    const [frame] = r.since(0);
    expect(frame!.truncated).toBe(true);
    expect(frame!.size).toBe(Buffer.byteLength(line, "utf8"));
    expect(frame!.size).toBeGreaterThan(CAP);
    expect(Buffer.byteLength(frame!.raw!, "utf8")).toBeLessThanOrEqual(CAP);
    expect(Buffer.byteLength(frame!.raw!, "utf8")).toBeGreaterThan(CAP - 2);
    expect(line.startsWith(frame!.raw!)).toBe(true);
    const emoji = new FrameRecorder(1024);
    const astral = `{"t":"${"😀".repeat(600)}"}`;
    emoji.record("upstream", "from-relay", astral);
    const cut = emoji.since(0)[0]!.raw!;
    expect(astral.startsWith(cut)).toBe(true);
    expect(cut.charCodeAt(cut.length - 1)).not.toBe(0xd83d); // no lone high surrogate at the end
  });

  it("takes the cap it is given (run --max-evidence-frame-bytes)", () => {
    const r = new FrameRecorder(2048);
    r.record("upstream", "to-relay", frameOf(2048));
    r.record("upstream", "from-relay", frameOf(2049));
    const [whole, cut] = r.since(0);
    expect(whole!.truncated).toBeUndefined();
    expect(cut!.truncated).toBe(true);
    expect(cut!.raw).toHaveLength(2048);
    expect(cut!.size).toBe(2049);
  });

  it("evidence written before the cap (no size, no truncated) still parses; a sha256 must be one", () => {
    expect(FrameSchema.parse({ t: 1, end: "upstream", dir: "to-relay", raw: "x" })).toBeTruthy();
    expect(() => FrameSchema.parse({ t: 1, end: "upstream", dir: "to-relay", truncated: false })).toThrow();
    expect(() => FrameSchema.parse({ t: 1, end: "upstream", dir: "to-relay", sha256: "abc" })).toThrow();
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
    const line = frameOf(3 * CAP);
    for (const h of handlers) h(line);
    expect(seen).toEqual([line]);
    expect(JSON.parse(seen[0]!).result.text.length).toBeGreaterThan(CAP);
    expect(r.since(0)[0]!.truncated).toBe(true);
  });
});

describe("FrameRecorder lets go of the frames no case reads any more", () => {
  const small = (n: number) => JSON.stringify({ jsonrpc: "2.0", method: "m", params: { n } });

  it("holds a case's frames from its mark until it is released, then keeps none", () => {
    const r = new FrameRecorder();
    r.record("upstream", "to-relay", small(0)); // before any mark: no case reads it
    const a = r.mark();
    r.record("upstream", "to-relay", small(1));
    r.record("downstream", "from-relay", small(2));
    expect(r.since(a).map((f) => (f.message as { params: { n: number } }).params.n)).toEqual([1, 2]);
    r.release(a);
    expect(r.held).toBe(0);
    expect(r.length).toBe(3);
    const b = r.mark();
    expect(b).toBe(3);
    r.record("upstream", "to-relay", small(3));
    expect(r.since(b)).toHaveLength(1);
    expect(() => r.since(a)).toThrow(/let go/);
  });

  it("keeps what a mark still held can read: an earlier case still settling keeps the frames since its own mark", () => {
    const r = new FrameRecorder();
    const settling = r.mark();
    r.record("upstream", "to-relay", small(1));
    const next = r.mark();
    r.record("upstream", "to-relay", small(2));
    r.release(next);
    expect(r.since(settling)).toHaveLength(2);
    r.release(settling);
    expect(r.held).toBe(0);
  });

  it("counts holders of one mark: the frames stay until every holder released it", () => {
    const r = new FrameRecorder();
    const a = r.mark();
    const b = r.mark(); // the controller's bound and the session's case mark the same index
    expect(b).toBe(a);
    r.record("upstream", "to-relay", small(1));
    r.release(a);
    expect(r.since(b)).toHaveLength(1);
    r.release(b);
    expect(r.held).toBe(0);
  });

  it("a session of 10,000 cases holds the frames of the running case only", () => {
    const r = new FrameRecorder();
    for (let i = 0; i < 10_000; i++) {
      const m = r.mark();
      r.record("upstream", "to-relay", small(i));
      r.record("upstream", "from-relay", small(i));
      expect(r.since(m)).toHaveLength(2);
      r.release(m);
    }
    expect(r.held).toBe(0);
    expect(r.length).toBe(20_000);
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
