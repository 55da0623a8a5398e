import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { resolveRunConfig } from "../../src/run/config.ts";
import { runPipeline } from "../../src/run/pipeline.ts";
import { ROOT, tempDir } from "../helpers/cli.ts";
import { runFiles } from "../helpers/wall-clock.ts";

/**
 * --concurrency changes when cases run, never what they give: the same plan (the reference relay, two eras, the round
 * trip, an expiry case, the result-schema cases, a user rejection and 2026-07-28 input responses) run one group at a time and four at
 * a time gives the same cells, the same case verdicts and the same evidence — canaries included, since a canary is
 * named by its case's place in the plan, not by the order cases end in. Wall-clock facts are removed first, as in the
 * determinism test (test/helpers/wall-clock.ts: times, durations, hashes of files that hold times, the two ends'
 * interleaving, a measured delay).
 */
const OPTIONS = {
  target: join(ROOT, "targets/reference.yaml"),
  era: "2025-11-25,2026-07-28",
  rows: [
    "sampling-relay-roundtrip",
    "sampling-relay-expiry-reported",
    "sampling-result-schema",
    "sampling-client-errors-user-rejected",
    "sampling-mrtr-answer-in-input-responses",
  ].join(","),
  seed: "5",
  reporter: "md",
};

const read = (dir: string): Results =>
  ResultsSchema.parse(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")));
const verdictsOf = (r: Results) =>
  r.cells.flatMap((c) => c.cases.map((x) => `${c.row} ${c.era} ${c.side} ${x.id} ${x.status}`));

describe("run --concurrency", () => {
  const dirs: Record<string, string> = {};

  beforeAll(async () => {
    for (const concurrency of ["1", "4"]) {
      dirs[concurrency] = tempDir(`mcpx-conform-c${concurrency}-`);
      await runPipeline(resolveRunConfig({ ...OPTIONS, concurrency, out: dirs[concurrency] }));
    }
  }, 120_000);

  it("gives the same cells and case verdicts, in the same order, at 1 and at 4", () => {
    const one = read(dirs["1"]!);
    const four = read(dirs["4"]!);
    expect(verdictsOf(one).length).toBeGreaterThanOrEqual(10);
    expect(verdictsOf(one).some((v) => v.includes("no-answer-expires"))).toBe(true);
    expect(one.cells.map((c) => `${c.row} ${c.era} ${c.side} ${c.status}`)).toEqual(
      four.cells.map((c) => `${c.row} ${c.era} ${c.side} ${c.status}`),
    );
    expect(verdictsOf(four)).toEqual(verdictsOf(one));
    expect(one.summary).toEqual(four.summary);
  });

  it("gives the same evidence, canaries included", () => {
    const one = runFiles(dirs["1"]!);
    const four = runFiles(dirs["4"]!);
    expect([...four.keys()]).toEqual([...one.keys()]);
    const canaries = (m: Map<string, unknown>) =>
      [...m].filter(([f]) => f !== "results.json").map(([f, e]) => [f, (e as { canary?: string }).canary]);
    expect(canaries(one).every(([, c]) => typeof c === "string" && c.startsWith("Cnry-"))).toBe(true);
    expect(canaries(four)).toEqual(canaries(one));
    for (const [file, content] of one) expect(four.get(file), file).toEqual(content);
  });

  it("defaults to the machine's parallelism, at least 2; 1 is one group after another", () => {
    const { concurrency } = resolveRunConfig({ target: OPTIONS.target, seed: "1" });
    expect(concurrency).toBeGreaterThanOrEqual(2);
    expect(resolveRunConfig({ target: OPTIONS.target, seed: "1", concurrency: "1" }).concurrency).toBe(1);
    expect(() => resolveRunConfig({ target: OPTIONS.target, concurrency: "0" })).toThrow(
      /--concurrency|at least 1/,
    );
  });
});
