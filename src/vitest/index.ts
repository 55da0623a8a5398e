import { join, relative } from "node:path";
import { beforeAll, describe, it } from "vitest";
import { caseKey } from "../model/case-key.ts";
import type { CaseResult, Results } from "../model/results.ts";
import { resolveRunConfig } from "../run/config.ts";
import { runPipeline } from "../run/pipeline.ts";
import { planRun } from "../run/plan.ts";

/**
 * `mcpx-conform/vitest`: the corpus as tests of a relay author's own vitest suite, in three lines:
 *
 *   import { conformanceSuite } from "mcpx-conform/vitest";
 *   conformanceSuite({ target: "mcpx-conform.yaml" });
 *
 * One run of the harness against the target (in `beforeAll`: the relay is driven once, as by `mcpx-conform run`,
 * and the reports are written), then one vitest test per case × era, grouped under its register row: a failing case
 * fails its test with the verdict's reason and the path of its evidence; a case the target cannot run is skipped
 * with the reason; a warning passes with the warning noted.
 */
export interface ConformanceOptions {
  /** The target profile (relative to the working folder). */
  target: string;
  /** Eras to run (default: the profile's, else all). */
  eras?: string[];
  /** Register rows to run (default: all; the round trip always runs). */
  rows?: string[];
  /** Where results.json, the evidence and the reports go (default ./mcpx-conform-report/<target>/). */
  out?: string;
  /** The seed of canaries (default 1: the same tests give the same evidence). */
  seed?: number;
  /** How long the run may take, in ms (default 10 minutes). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 600_000;

/** The verdict of one case × era in the results: its own row's cell, its own id. */
function verdictOf(results: Results, row: string, era: string, id: string): CaseResult | undefined {
  for (const cell of results.cells)
    if (cell.row === row && cell.era === era) {
      const found = cell.cases.find((c) => c.id === id);
      if (found) return found;
    }
  return undefined;
}

/** Registers the conformance tests of a target with vitest (call it at the top level of a test file). */
export function conformanceSuite(options: ConformanceOptions): void {
  const cwd = process.cwd();
  const config = resolveRunConfig({
    target: options.target,
    seed: String(options.seed ?? 1),
    cwd,
    quiet: true,
    ...(options.eras ? { era: options.eras.join(",") } : {}),
    ...(options.rows ? { rows: options.rows.join(",") } : {}),
  });
  const out = options.out ?? join("mcpx-conform-report", config.profile.name);
  const plan = planRun(config);
  // The round trip runs in every era, but with `rows` it is reported (and tested) only when selected.
  const items = [
    ...plan.work.map((w) => ({ row: w.kase.row, id: w.kase.id, era: w.era })),
    ...plan.unrun.map((u) => ({ row: u.row, id: u.result.id, era: u.era })),
  ].filter((i) => !config.selectedRows || config.selectedRows.has(i.row));
  let results: Results | undefined;
  let outDir = "";
  beforeAll(async () => {
    const outcome = await runPipeline({ ...config, out });
    results = outcome.results;
    outDir = outcome.outDir;
  }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);

  describe(`mcpx-conform: ${config.profile.name}`, () => {
    const rows = [...new Set(items.map((i) => i.row))];
    for (const row of rows)
      describe(row, () => {
        for (const item of items.filter((i) => i.row === row))
          it(`${item.id} @${item.era}`, (context) => {
            if (!results) throw new Error("the conformance run did not complete (see beforeAll)");
            const verdict = verdictOf(results, item.row, item.era, item.id);
            if (!verdict) throw new Error(`no verdict for ${caseKey(item, item.era)} in the results`);
            const evidence = verdict.evidence ? relative(cwd, join(outDir, verdict.evidence)) : undefined;
            const where = evidence ? `\nevidence: ${evidence}` : "";
            if (verdict.status === "skip") return context.skip(verdict.reason);
            if (verdict.status === "fail" || verdict.status === "error")
              throw new Error(`${verdict.status}: ${verdict.reason}${where}`);
            if (verdict.status === "warn") context.annotate(`warn: ${verdict.reason}${where}`);
          });
      });
  });
}
