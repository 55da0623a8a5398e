import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A run's output with its wall-clock facts taken out, for tests that compare two runs (determinism, concurrency).
 * What is wall-clock, and removed (nothing else is):
 * - results.json: `startedAt`, `finishedAt`, each case's `durationMs`, and each case's `evidenceSha256` (a hash of an
 *   evidence file, which holds times; the evidence itself is compared);
 * - evidence: `startedAt`, `durationMs`, each frame's `t` (ms since the case began), a timeout's measured `afterMs`,
 *   and a check's `measuredMs` (the expiry delay behind `expiry-in-time`, whose detail names only the declared figures);
 * - what the machine's load decides: the harness's timed actions (`harnessActions`), the attempts it was late for
 *   (`lateAttempts`) and the re-runs they cost (`lateReruns`, in results.json and on a case), src/harness/lateness.ts;
 * - the interleaving of the two ends' frames (merged in arrival order, a race between two sockets): frames are
 *   compared end by end, each end's own sequence in its own order;
 * (`run --stable` writes none of them and keeps the arrival order; test/e2e/stable.test.ts compares its bytes.)
 */
const WALL_CLOCK_KEYS = new Set([
  "startedAt",
  "finishedAt",
  "durationMs",
  "evidenceSha256",
  "t",
  "afterMs",
  "measuredMs",
  "harnessActions",
  "lateAttempts",
  "lateReruns",
]);

export function withoutWallClock(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutWallClock);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !WALL_CLOCK_KEYS.has(k))
        .map(([k, v]) => [k, k === "frames" ? byEnd(v as Array<{ end: string }>) : withoutWallClock(v)]),
    );
  return value;
}

/** Each end's frames in their own order; the two ends' interleaving is arrival order. */
function byEnd(frames: Array<{ end: string }>): Record<string, unknown[]> {
  const ends: Record<string, unknown[]> = {};
  for (const frame of frames) ends[frame.end] = [...(ends[frame.end] ?? []), withoutWallClock(frame)];
  return ends;
}

/** results.json and every evidence file of an output folder, wall-clock facts removed, by relative path. */
export function runFiles(dir: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const f of readdirSync(dir, { recursive: true }).map(String).sort())
    if (f === "results.json" || (f.startsWith("evidence") && f.endsWith(".json")))
      out.set(f, withoutWallClock(JSON.parse(readFileSync(join(dir, f), "utf8"))));
  return out;
}
