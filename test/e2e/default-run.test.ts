import { describe, expect, it } from "vitest";
import { resolveRunConfig } from "../../src/run/config.ts";
import { runPipeline } from "../../src/run/pipeline.ts";
import { tempDir } from "../helpers/cli.ts";

/**
 * The README's main job, `npx mcpx-conform run` (the default target, every era, every case), against the embedded
 * reference relay: every cell that ran passes. A correct relay that the default run failed would be a false red in
 * the first thing a user sees (and the bench runs exactly this).
 */
describe("the default run against the embedded reference relay", () => {
  it("passes every cell it exercises, in every era, with nothing partial, warned or in error", async () => {
    const outcome = await runPipeline(resolveRunConfig({ seed: "1", out: tempDir(), quiet: true }));
    const bad = outcome.results.cells
      .filter((c) => !["pass", "n/a", "not-run"].includes(c.status))
      .map(
        (c) =>
          `${c.row}@${c.era}/${c.side} ${c.status}: ${c.cases.map((k) => `${k.id} ${k.reason}`).join("; ")}`,
      );
    expect(bad).toEqual([]);
    expect(outcome.code).toBe(0);
    expect(outcome.results.summary.pass).toBeGreaterThan(120);
    // every not-run cell says why (a row with no case for the era, or the one pending row)
    for (const c of outcome.results.cells.filter((x) => x.status === "not-run")) expect(c.note).toBeTruthy();
  }, 180_000);
});
