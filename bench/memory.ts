/**
 * Memory (issue #21): the peak resident memory of the harness process (measured alone, as a child: bench/peak-rss.ts)
 * for `run --era 2025-11-25 --fuzz N` against the reference relay, at N = 1,000 and N = 10,000 generated exchanges
 * (with the era's cases: each run is one case run), and what 1,000 more case runs cost. Before #21 a session's
 * recorder kept every frame of every exchange: 10,000 fuzz exchanges peaked at 1095 MB. Bound: 512 MB. What is left
 * of the growth is the heap reaching the 128 MB at which the run collects (src/run/memory.ts), while what is live
 * after a full collection stays at about 35 MB from the first thousand exchanges to the last (node --trace-gc).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir, removeTempDir } from "../src/harness/processes.ts";
import { measuredRun } from "./peak-rss.ts";

const ERA = "2025-11-25";
const FUZZ = [1_000, 10_000];
export const PEAK_RSS_BOUND_BYTES = 512 * 1024 * 1024;

export interface MemoryRun {
  fuzz: number;
  /** The era's case runs plus the fuzz exchanges. */
  caseRuns: number;
  peakRssBytes: number;
  wallMs: number;
}

export interface MemoryFigures {
  runs: MemoryRun[];
  /** Peak RSS the last run needed beyond the first, per 1,000 case runs more. */
  growthPer1000Bytes: number;
  boundBytes: number;
}

/** How many case results a results.json holds. */
function caseResults(out: string): number {
  const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
  return results.cells.reduce((n: number, c: { cases: unknown[] }) => n + c.cases.length, 0);
}

export async function benchMemory(): Promise<MemoryFigures> {
  const runs: MemoryRun[] = [];
  for (const fuzz of FUZZ) {
    const tmp = makeTempDir("mcpx-conform-bench-memory-");
    const out = join(tmp, "run");
    try {
      const args = ["run", "--target", "targets/reference.yaml", "--era", ERA, "--fuzz", String(fuzz)];
      const r = await measuredRun([...args, "--seed", "1", "--quiet", "--out", out]);
      if (r.code !== 0) throw new Error(`run --fuzz ${fuzz} exited ${r.code ?? r.signal}: ${r.stderr}`);
      runs.push({ fuzz, caseRuns: caseResults(out) + fuzz, peakRssBytes: r.peakRssBytes, wallMs: r.wallMs });
    } finally {
      removeTempDir(tmp);
    }
  }
  const [first, last] = [runs[0]!, runs.at(-1)!];
  const growth = ((last.peakRssBytes - first.peakRssBytes) / (last.caseRuns - first.caseRuns)) * 1000;
  if (last.peakRssBytes >= PEAK_RSS_BOUND_BYTES)
    throw new Error(`run --fuzz ${last.fuzz}: peak RSS ${mb(last.peakRssBytes)} is over the 512 MB bound`);
  return { runs, growthPer1000Bytes: growth, boundBytes: PEAK_RSS_BOUND_BYTES };
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(0)} MB`;

/** The size of every file under a folder, in bytes. */
export function folderBytes(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((n, e) => n + statSync(join(e.parentPath, e.name)).size, 0);
}

export function memoryLines(f: MemoryFigures): string[] {
  return [
    `memory — peak RSS of the harness process (VmHWM), run --era ${ERA} --fuzz N against the reference relay`,
    ...f.runs.map(
      (r) =>
        `  ${`--fuzz ${r.fuzz}: ${r.caseRuns} case runs`.padEnd(40)}${mb(r.peakRssBytes).padStart(10)}   ${(r.wallMs / 1000).toFixed(1)} s   bound ${mb(f.boundBytes)}`,
    ),
    `  ${"per 1,000 case runs more".padEnd(40)}${`${(f.growthPer1000Bytes / (1024 * 1024)).toFixed(1)} MB`.padStart(10)}   (the 10,000 run's peak over the 1,000 run's)`,
  ];
}
