import { describe, expect, it } from "vitest";
import { lineSplitter } from "../../src/harness/lines.ts";

describe("lineSplitter: the stdio framing the harness reads relays with", () => {
  it("keeps a character whole when the relay writes it one byte at a time", () => {
    const lines: string[] = [];
    const split = lineSplitter((l) => lines.push(l));
    const frame = '{"text":"Cnry-ÄΩ-€-😀"}\r\n{"b":2}\n';
    for (const byte of Buffer.from(frame, "utf8")) split(Buffer.from([byte]));
    expect(lines).toEqual(['{"text":"Cnry-ÄΩ-€-😀"}', '{"b":2}']);
  });

  it("splits several lines in one chunk, skips empty ones and keeps the rest for the next chunk", () => {
    const lines: string[] = [];
    const split = lineSplitter((l) => lines.push(l));
    split("a\n\nb\nc");
    expect(lines).toEqual(["a", "b"]);
    split(Buffer.from("d\n"));
    expect(lines).toEqual(["a", "b", "cd"]);
  });

  it("reads a 10 MB line in 64 KiB chunks in linear time", () => {
    const lines: string[] = [];
    const split = lineSplitter((l) => lines.push(l));
    const big = Buffer.from(`${"x".repeat(10 * 1024 * 1024)}\n`);
    const t0 = performance.now();
    for (let i = 0; i < big.length; i += 65_536) split(big.subarray(i, i + 65_536));
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toHaveLength(10 * 1024 * 1024);
  });
});
