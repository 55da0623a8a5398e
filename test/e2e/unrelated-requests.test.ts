import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { resolveRunConfig } from "../../src/run/config.ts";
import { runPipeline } from "../../src/run/pipeline.ts";
import { ROOT, tempDir } from "../helpers/cli.ts";

const ROW = "sampling-relay-unrelated-requests";

/** Runs the row in 2025-11-25 against a target, in process; returns the row's cell. */
async function cellOf(target: string): Promise<Results["cells"][number]> {
  const out = tempDir("mcpx-conform-unrelated-");
  await runPipeline(
    resolveRunConfig({ target: join(ROOT, target), era: "2025-11-25", rows: ROW, seed: "3", out }),
  );
  const results = ResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
  return results.cells.find((c) => c.row === ROW)!;
}

/**
 * Sampling off the request path (#15): over a Streamable HTTP upstream the harness sends the request on the probe
 * call's own response stream (related) or on the standalone GET stream (unrelated). The reference relay receives
 * both; a relay that never opens the GET stream loses the unrelated one; on a stdio upstream the cell is n/a.
 */
describe(`${ROW}: requests related and unrelated to the call`, () => {
  const cells: Record<string, Results["cells"][number]> = {};

  beforeAll(async () => {
    for (const target of [
      "targets/reference-http-upstream.yaml",
      "targets/broken/no-standalone-stream.yaml",
      "targets/reference.yaml",
    ])
      cells[target] = await cellOf(target);
  }, 120_000);

  const statuses = (target: string) =>
    Object.fromEntries(cells[target]!.cases.map((c) => [c.id, `${c.status}: ${c.reason}`]));

  it("the reference relay over an HTTP upstream passes both forms", () => {
    const cell = cells["targets/reference-http-upstream.yaml"]!;
    expect(cell.status, JSON.stringify(statuses("targets/reference-http-upstream.yaml"))).toBe("pass");
    expect(cell.cases.map((c) => c.id).sort()).toEqual(["related-stream", "standalone-stream"]);
  });

  it("a relay that never opens the standalone GET stream fails the unrelated form only", () => {
    const cell = cells["targets/broken/no-standalone-stream.yaml"]!;
    expect(cell.status).toBe("fail");
    const byId = Object.fromEntries(cell.cases.map((c) => [c.id, c.status]));
    expect(byId).toEqual({ "related-stream": "pass", "standalone-stream": "fail" });
  });

  it("is n/a on a stdio upstream, with the reason", () => {
    const cell = cells["targets/reference.yaml"]!;
    expect(cell.status).toBe("n/a");
    expect(cell.note).toMatch(/n\/a on a stdio upstream.*standalone GET stream/);
  });
});
