import { describe, expect, it } from "vitest";
import { type SseEvent, sseParser, tapFetch } from "../../src/harness/wire-tap.ts";

/** Parses a whole text/event-stream fed in the given pieces. */
function parse(pieces: string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = sseParser((e) => events.push(e));
  for (const p of pieces) parser.feed(p);
  parser.end();
  return events;
}

const STREAM =
  ": a comment\r\nevent: endpoint\r\ndata: /messages?x=1\r\n\r\n" +
  "data: first line\ndata:second line\n\n" +
  "event: message\rdata:  two spaces\r\r" +
  "id: 7\nretry: 10\ndata\n\n" + // no data: no event
  "data: not json {\n\n";

const EXPECTED: SseEvent[] = [
  { event: "endpoint", data: "/messages?x=1" },
  { event: "", data: "first line\nsecond line" },
  { event: "message", data: " two spaces" },
  { event: "", data: "not json {" },
];

describe("sseParser: the WHATWG event-stream rules, in any chunking", () => {
  it("parses CRLF, LF and CR line ends, multi-line data, comments and event names", () => {
    expect(parse([STREAM])).toEqual(EXPECTED);
  });

  it("gives the same events fed one character at a time (a CRLF split between chunks ends one line)", () => {
    expect(parse([...STREAM])).toEqual(EXPECTED);
  });

  it("keeps an event the stream ended in the middle of (evidence, not delivery)", () => {
    expect(parse(["data: cut off"])).toEqual([{ event: "", data: "cut off" }]);
  });

  it("parses a 10 MB event in 64 KiB pieces in linear time", () => {
    const big = "x".repeat(10 * 1024 * 1024);
    const text = `data: ${big}\n\n`;
    const pieces: string[] = [];
    for (let i = 0; i < text.length; i += 65536) pieces.push(text.slice(i, i + 65536));
    const t0 = performance.now();
    const events = parse(pieces);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toHaveLength(big.length);
  });
});

/** A fetch that answers every call with the given response. */
const answering =
  (body: string, init: ResponseInit): typeof fetch =>
  async () =>
    new Response(body, init);

describe("tapFetch: every frame of a response, as text, while the SDK still reads the whole body", () => {
  it("reports each SSE event's data (not the legacy endpoint event) and leaves the body whole", async () => {
    const frames: string[] = [];
    const stream = "event: endpoint\ndata: /m\n\ndata: garbage <html>\n\ndata: {}\n\n";
    const f = tapFetch(
      "streamable-http",
      { frame: (r) => frames.push(r) },
      answering(stream, { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8" } }),
    );
    const response = await f("http://127.0.0.1:1/mcp", { method: "POST" });
    expect(await response.text()).toBe(stream);
    await new Promise((r) => setTimeout(r, 10));
    expect(frames).toEqual(["garbage <html>", "{}"]);
  });

  it("reports a Streamable HTTP POST's whole non-SSE body as one frame, whatever its type", async () => {
    for (const type of ["application/json", "text/html"]) {
      const frames: string[] = [];
      const f = tapFetch(
        "streamable-http",
        { frame: (r) => frames.push(r) },
        answering("<h1>oops</h1>", { status: 200, headers: { "content-type": type } }),
      );
      await (await f("http://127.0.0.1:1/mcp", { method: "POST" })).text();
      await new Promise((r) => setTimeout(r, 10));
      expect(frames, type).toEqual(["<h1>oops</h1>"]);
    }
  });

  it("reports nothing for a legacy SSE POST's reply, an HTTP error or a 202", async () => {
    const frames: string[] = [];
    const cases: Array<[Parameters<typeof tapFetch>[0], ResponseInit]> = [
      ["sse", { status: 200, headers: { "content-type": "text/plain" } }],
      ["streamable-http", { status: 500, headers: { "content-type": "application/json" } }],
      ["streamable-http", { status: 202, headers: { "content-type": "application/json" } }],
    ];
    for (const [transport, init] of cases) {
      const f = tapFetch(transport, { frame: (r) => frames.push(r) }, answering("Accepted", init));
      await (await f("http://127.0.0.1:1/x", { method: "POST" })).text();
    }
    await new Promise((r) => setTimeout(r, 10));
    expect(frames).toEqual([]);
  });

  it("says when the legacy SSE event stream (GET) ends, and only that stream", async () => {
    const ended: string[] = [];
    const sse = { status: 200, headers: { "content-type": "text/event-stream" } };
    for (const [transport, method] of [
      ["sse", "GET"],
      ["sse", "POST"],
      ["streamable-http", "GET"],
    ] as const) {
      const f = tapFetch(
        transport,
        { frame: () => undefined, eventStreamEnded: (how) => ended.push(`${transport} ${method} ${how}`) },
        answering("data: x\n\n", sse),
      );
      await (await f("http://127.0.0.1:1/sse", { method })).text();
    }
    await new Promise((r) => setTimeout(r, 10));
    expect(ended).toEqual(["sse GET ended"]);
  });
});
