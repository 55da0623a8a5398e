import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_REGISTER, loadRegister } from "../../src/model/load.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { resolveRunConfig } from "../../src/run/config.ts";
import { mergeShards } from "../../src/run/merge.ts";
import { runPipeline } from "../../src/run/pipeline.ts";
import { cliInProcess, ROOT, tempDir } from "../helpers/cli.ts";

/**
 * Four shards merged are one run: the same seed, target and rows, run whole and as 4 shards + merge, give the same
 * cells and the same case verdicts, with evidence behind every case. The rows include an expiry case (the longest
 * to run, so the balancing gives it a shard nearly to itself), the round trip (run by every shard with work in the
 * era, reported by one), the #256 validation row (credited only on the coverage of all its cases together, which
 * no single shard has) and review cases the plain reference cannot run (recorded by shard 1 alone).
 */
const ROWS = [
  "sampling-relay-roundtrip",
  "sampling-relay-expiry-reported",
  "sampling-client-errors-user-rejected-and-tool-shape",
  "sampling-both-validate-message-content",
  "sampling-app-review-ui",
].join(",");
const OPTIONS = {
  target: join(ROOT, "targets/reference.yaml"),
  era: "2025-11-25",
  rows: ROWS,
  seed: "11",
  reporter: "md",
};

function read(dir: string): Results {
  return ResultsSchema.parse(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")));
}

const cellsOf = (r: Results) => r.cells.map((c) => `${c.row} ${c.era} ${c.side} ${c.status}`).sort();
const verdictsOf = (r: Results) =>
  r.cells.flatMap((c) => c.cases.map((x) => `${c.row} ${c.era} ${c.side} ${x.id} ${x.status}`)).sort();

describe("run --shard i/n + merge", () => {
  let whole: Results;
  const shardDirs: string[] = [];
  let merged: Results;
  let mergedDir: string;

  beforeAll(async () => {
    const out = tempDir("mcpx-conform-whole-");
    await runPipeline(resolveRunConfig({ ...OPTIONS, out }));
    whole = read(out);
    for (let i = 1; i <= 4; i++) {
      const dir = tempDir(`mcpx-conform-shard-${i}-`);
      await runPipeline(resolveRunConfig({ ...OPTIONS, out: dir, shard: `${i}/4` }));
      shardDirs.push(dir);
    }
    mergedDir = tempDir("mcpx-conform-merged-");
    const outcome = mergeShards({
      inputs: [...shardDirs].reverse(),
      out: mergedDir,
      register: loadRegister(DEFAULT_REGISTER),
      reporters: ["md", "html", "junit"],
      baseline: undefined,
    });
    expect(outcome.code).toBe(0);
    merged = read(mergedDir);
  }, 240_000);

  it("splits the work: every shard says which it is, each case is reported by one shard", () => {
    const shards = shardDirs.map(read);
    expect(shards.map((s) => s.shard)).toEqual([1, 2, 3, 4].map((index) => ({ index, count: 4 })));
    const reported = shards.flatMap(verdictsOf);
    expect(new Set(reported).size).toBe(reported.length);
    expect(reported.sort()).toEqual(verdictsOf(whole));
    // The round trip ran wherever the era had work, but exactly one shard reports it.
    const roundtrips = shards.flatMap((s) => s.cells.filter((c) => c.row === "sampling-relay-roundtrip"));
    expect(roundtrips.flatMap((c) => c.cases)).toHaveLength(1);
  });

  it("gives the same cells and case verdicts as one unsharded run", () => {
    expect(merged.shard).toBeUndefined();
    expect(cellsOf(merged)).toEqual(cellsOf(whole));
    expect(verdictsOf(merged)).toEqual(verdictsOf(whole));
    expect(merged.summary).toEqual(whole.summary);
    // The validation row needs the coverage of all its cases: no shard alone has it, the merge does.
    const validate = (r: Results) =>
      r.cells.filter((c) => c.row === "sampling-both-validate-message-content");
    expect(validate(merged).map((c) => c.status)).toEqual(validate(whole).map((c) => c.status));
    expect(merged.cells.some((c) => c.cases.some((x) => x.status === "skip"))).toBe(true);
    expect(merged.cells.some((c) => c.row === "sampling-relay-expiry-reported" && c.status === "pass")).toBe(
      true,
    );
  });

  it("has the evidence of every case of the merged results, and the reports", () => {
    const cases = merged.cells.flatMap((c) => c.cases).filter((x) => x.status !== "skip");
    expect(cases.length).toBeGreaterThan(20);
    for (const c of cases) {
      expect(c.evidence, c.id).toBeDefined();
      expect(existsSync(join(mergedDir, c.evidence!)), c.evidence).toBe(true);
    }
    for (const f of ["matrix.md", "matrix.html", "junit.xml"])
      expect(existsSync(join(mergedDir, f))).toBe(true);
  });

  it("refuses shards that do not make one run: missing, duplicated, another seed (exit 2, one line)", async () => {
    const missing = await cliInProcess([
      "merge",
      shardDirs[0]!,
      shardDirs[1]!,
      shardDirs[3]!,
      "--out",
      tempDir(),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toMatch(/^mcpx-conform: missing shard 3\/4$/);
    const twice = await cliInProcess(["merge", ...shardDirs, shardDirs[1]!, "--out", tempDir()]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/shard 2\/4 given twice/);
    const other = tempDir("mcpx-conform-other-");
    await runPipeline(
      resolveRunConfig({
        ...OPTIONS,
        rows: "sampling-relay-expiry-reported",
        seed: "12",
        out: other,
        shard: "3/4",
      }),
    );
    const mixed = await cliInProcess([
      "merge",
      shardDirs[0]!,
      shardDirs[1]!,
      other,
      shardDirs[3]!,
      "--out",
      tempDir(),
    ]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/is not from the same run .*seed 12.*seed 11/);
  });

  it("refuses a bad --shard, or one without --seed, in one line naming the flag (exit 2)", async () => {
    for (const bad of ["0/4", "5/4", "abc"]) {
      const r = await cliInProcess([
        "run",
        "--target",
        "targets/reference.yaml",
        "--seed",
        "1",
        "--shard",
        bad,
      ]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr.trim().split("\n"), bad).toHaveLength(1);
      expect(r.stderr).toMatch(/^mcpx-conform: --shard: /);
    }
    // Shards combine only when they share a seed: a shard without --seed is refused.
    const noSeed = await cliInProcess(["run", "--target", "targets/reference.yaml", "--shard", "2/4"]);
    expect(noSeed.code).toBe(2);
    expect(noSeed.stderr).toMatch(/^mcpx-conform: --seed: --shard needs a seed/);
  });
});
