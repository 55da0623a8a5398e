import { describe, expect, it } from "vitest";
import type { Results } from "../../src/model/results.ts";
import { resolveRunConfig } from "../../src/run/config.ts";
import { runPipeline } from "../../src/run/pipeline.ts";
import { tempDir } from "../helpers/cli.ts";

/** Every cell and every case verdict of a run, one line each, with its reason (a --stable run has no time in them). */
function verdictLines(results: Results): string {
  const lines: string[] = [];
  for (const c of results.cells) {
    lines.push(`${c.row}@${c.era}/${c.side}: ${c.status}`);
    for (const k of c.cases) lines.push(`  ${k.id}: ${k.status}: ${k.reason}`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The README's main job, `npx mcpx-conform run` (the default target, every era, every case), against the embedded
 * reference relay: every cell that ran passes. A correct relay that the default run failed would be a false red in
 * the first thing a user sees (and the bench runs exactly this). Run with --stable, its every cell and case verdict,
 * reason included, is held against a committed file: a change to the execution layer (scheduling, sessions, relay
 * hosts, the upstream pipe) that changes any verdict shows here (`vitest -u` writes the file anew when a change of
 * verdict is meant).
 */
describe("the default run against the embedded reference relay", () => {
  it("passes every cell it exercises, in every era, with nothing partial, warned or in error", async () => {
    const outcome = await runPipeline(
      resolveRunConfig({ seed: "1", out: tempDir(), quiet: true, stable: true }),
    );
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
    await expect(verdictLines(outcome.results)).toMatchFileSnapshot("./__golden__/default-run-verdicts.txt");
  }, 180_000);
});
