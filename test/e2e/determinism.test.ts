import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, tempDir } from "../helpers/cli.ts";

/**
 * Determinism: the same target, seed, era and rows give the same results.json and the same evidence, byte for byte
 * once wall-clock facts are taken out. Two runs of the reference relay (one era, the round trip, the expiry case and
 * the result-schema cases) are compared file by file.
 *
 * What is wall-clock, and removed before comparing (nothing else is):
 * - results.json: `startedAt`, `finishedAt`, each case's `durationMs`, and each case's `evidenceSha256` (a hash of an
 *   evidence file, which holds times; the evidence itself is compared below);
 * - evidence: `startedAt`, `durationMs`, each frame's `t` (ms since the case began);
 * - the interleaving of the two ends' frames (the upstream's and the downstream's frames are merged in arrival order,
 *   a race between two sockets): frames are compared end by end, each end's own sequence in its own order;
 * - the measured delay in the `expiry-in-time` check ("expiry was reported 1502 ms after the request"): the figure
 *   becomes N; the verdict on it, and the declared deadline, stay.
 */
const ARGS = [
  "run",
  "--target",
  "targets/reference.yaml",
  "--era",
  "2025-11-25",
  "--rows",
  "sampling-relay-roundtrip,sampling-relay-expiry-reported,sampling-result-schema",
  "--seed",
  "11",
  "--quiet",
];

const WALL_CLOCK_KEYS = new Set(["startedAt", "finishedAt", "durationMs", "evidenceSha256", "t"]);
const MEASURED_DELAY = /reported \d+(\.\d+)? ms after the request/g;

function normalise(value: unknown): unknown {
  if (typeof value === "string") return value.replace(MEASURED_DELAY, "reported N ms after the request");
  if (Array.isArray(value)) return value.map(normalise);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !WALL_CLOCK_KEYS.has(k))
        .map(([k, v]) => [k, k === "frames" ? byEnd(v as Array<{ end: string }>) : normalise(v)]),
    );
  return value;
}

/** Each end's frames in their own order; the two ends' interleaving is arrival order. */
function byEnd(frames: Array<{ end: string }>): Record<string, unknown[]> {
  const ends: Record<string, unknown[]> = {};
  for (const frame of frames) ends[frame.end] = [...(ends[frame.end] ?? []), normalise(frame)];
  return ends;
}

function files(dir: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const f of readdirSync(dir, { recursive: true }).map(String).sort())
    if (f === "results.json" || (f.startsWith("evidence") && f.endsWith(".json")))
      out.set(f, normalise(JSON.parse(readFileSync(join(dir, f), "utf8"))));
  return out;
}

describe("determinism", () => {
  it("the same seed and target give identical results.json and evidence, timing aside", async () => {
    const a = tempDir();
    const b = tempDir();
    for (const out of [a, b]) {
      const r = await cli([...ARGS, "--out", out], { timeoutMs: 50_000 });
      expect(r.code, r.stderr).toBe(0);
    }
    const first = files(a);
    const second = files(b);
    expect([...second.keys()]).toEqual([...first.keys()]);
    expect(first.size).toBeGreaterThanOrEqual(1 + 8);
    expect([...first.keys()].some((f) => f.includes("no-answer-expires"))).toBe(true);
    for (const [file, content] of first) expect(second.get(file), file).toEqual(content);
  }, 120_000);
});
