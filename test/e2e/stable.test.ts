import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runTwice } from "../helpers/cli.ts";

/**
 * `run --stable` (the mode the committed matrices are made with): two runs of the reference relay with the same seed
 * write the same bytes in every file of the output folder — results.json, every report and every evidence transcript
 * — with no time anywhere. The rows: the round trip, expiry (a deadline waited out and judged on time), the result
 * schema, and a burst of concurrent requests (answered and forwarded in whatever order the race gives).
 */
const ARGS = [
  "run",
  "--target",
  "targets/reference.yaml",
  "--era",
  "2025-11-25",
  "--rows",
  "sampling-relay-roundtrip,sampling-relay-expiry-reported,sampling-result-schema,sampling-client-rate-limit",
  "--seed",
  "7",
  "--stable",
  "--quiet",
];

function files(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const f of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (f.isFile()) {
      const path = join(f.parentPath, f.name);
      out.set(path.slice(dir.length + 1), readFileSync(path));
    }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

describe("run --stable", () => {
  it("two runs with the same seed write byte-identical output, every file, and no time", async () => {
    const [a, b] = await runTwice(ARGS);
    const first = files(a);
    const second = files(b);
    expect([...second.keys()]).toEqual([...first.keys()]);
    expect([...first.keys()]).toEqual(
      expect.arrayContaining(["results.json", "matrix.md", "matrix.html", "junit.xml", "pr-comment.md"]),
    );
    expect([...first.keys()].some((f) => f.includes("no-answer-expires"))).toBe(true);
    expect([...first.keys()].some((f) => f.includes("sampling-client-rate-limit/"))).toBe(true);
    for (const [file, bytes] of first) expect(second.get(file)?.equals(bytes), file).toBe(true);

    const results = JSON.parse(first.get("results.json")!.toString("utf8"));
    expect(results.stable).toBe(true);
    expect(results.startedAt).toBeUndefined();
    for (const [file, bytes] of first) {
      if (!file.endsWith(".json")) continue;
      const text = bytes.toString("utf8");
      // No time field anywhere, no ISO timestamp.
      expect(text, file).not.toMatch(/"(t|startedAt|finishedAt|durationMs|afterMs|measuredMs)":/);
      expect(text, file).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    }
    expect(first.get("junit.xml")!.toString("utf8")).not.toMatch(/timestamp=/);
  }, 120_000);
});
