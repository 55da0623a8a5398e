import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fuzzTarget } from "../fuzz/differential.ts";
import { type FuzzSummary, foldFuzz } from "../fuzz/results.ts";
import { runCases } from "../harness/controller.ts";
import { buildCells, type JudgedCase, summarize } from "../judge/cells.ts";
import { judgeRuns } from "../judge/judge-runs.ts";
import { applyBaseline } from "../matrix/baseline.ts";
import { writeReports } from "../matrix/reports.ts";
import { EXIT } from "../model/errors.ts";
import type { Evidence } from "../model/evidence.ts";
import { PROJECT_ROOT } from "../model/load.ts";
import type { Results } from "../model/results.ts";
import { type RunConfig, toolInfo } from "./config.ts";
import { harnessCannotDrive, planRun } from "./plan.ts";
import { type EvidenceMeta, recordJudged } from "./record.ts";

/** What the pipeline tells its caller as it goes (the CLI prints it; tests may ignore it). */
export interface RunHooks {
  log?: (line: string) => void;
}

export interface RunOutcome {
  code: number;
  results: Results;
  outDir: string;
  /** Report files written besides results.json. */
  written: string[];
  /** Lines about the baseline (expected, stale, expired entries; failures). */
  baselineLines: string[];
}

function evidenceMeta(config: RunConfig): EvidenceMeta {
  // Evidence names the profile relative to the project when it lives there, so bundles stay portable.
  const inProject = !relative(PROJECT_ROOT, config.targetFile).startsWith("..");
  const profile = inProject ? relative(PROJECT_ROOT, config.targetFile) : config.targetFile;
  return { tool: toolInfo(), target: { name: config.profile.name, profile }, seed: config.seed };
}

/** Differential fuzzing, when asked for: its disagreements become failing cases (it never adds credit). */
async function fuzzStage(config: RunConfig, outDir: string, meta: EvidenceMeta, log: (l: string) => void) {
  if (config.fuzzRuns === undefined) return { summaries: undefined, judged: [] as JudgedCase[] };
  const { profile, targetFile, seed, fuzzRuns: runs } = config;
  const eras = config.eras.filter((e) => !harnessCannotDrive(profile, e));
  log(`mcpx-conform: differential fuzzing, ${runs} exchanges per era (${eras.join(", ")}), seed ${seed}`);
  const reports = await fuzzTarget({ profile, profileFile: targetFile, eras, runs, seed });
  const folded = foldFuzz(reports, config.register, outDir, meta);
  for (const f of folded.summaries) log(`${f.status === "pass" ? "✓" : "✗"} fuzz @${f.era}: ${f.reason}`);
  const judged = folded.judged.filter((j) => !config.selectedRows || config.selectedRows.has(j.row));
  return { summaries: folded.summaries as FuzzSummary[] | undefined, judged };
}

/**
 * The one run pipeline: plan → execute (drive the relay from both ends) → judge → write results.json, evidence
 * and reports → apply the baseline. `run`, `replay` and the kill-matrix test all go through it.
 */
export async function runPipeline(config: RunConfig, hooks: RunHooks = {}): Promise<RunOutcome> {
  const log = hooks.log ?? (() => undefined);
  const { register, profile, eras, seed, selectedRows } = config;
  const plan = planRun(config);
  const startedAt = new Date().toISOString();
  const outDir = resolve(config.out ?? join("reports", profile.name, startedAt.replace(/[:.]/g, "-")));
  log(
    `mcpx-conform: ${plan.work.length} case runs against ${profile.name} (${eras.join(", ")}), seed ${seed}`,
  );
  const runs = await runCases({ profile, profileFile: config.targetFile, work: plan.work, seed });
  const judged = judgeRuns(register, runs);
  for (const j of judged) {
    const mark = { pass: "✓", fail: "✗", warn: "!", error: "E", skip: "-" }[j.verdict.status];
    const tail = j.verdict.status === "pass" ? "" : `: ${j.verdict.reason}`;
    log(`${mark} ${j.run.kase.row}/${j.run.kase.id} @${j.run.era}${tail}`);
  }
  const meta = evidenceMeta(config);
  const recorded = recordJudged(judged, outDir, meta, selectedRows);
  const fuzz = await fuzzStage(config, outDir, meta, log);
  const cells = buildCells(
    register,
    [...recorded.judgedCases, ...plan.unrun, ...fuzz.judged],
    eras,
    {},
    selectedRows,
  );
  const results: Results = {
    tool: toolInfo(),
    target: { name: profile.name, profile: relative(process.cwd(), config.targetFile) || config.targetFile },
    seed,
    startedAt,
    finishedAt: new Date().toISOString(),
    eras,
    cells,
    summary: summarize(cells),
    ...(fuzz.summaries ? { fuzz: fuzz.summaries } : {}),
  };
  return { ...writeOutcome(config, results, outDir, recorded.evidences), results, outDir };
}

/** Writes results.json and the reports, applies the baseline, and decides the exit code. */
function writeOutcome(
  config: RunConfig,
  results: Results,
  outDir: string,
  evidences: Record<string, Evidence>,
) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  const written = writeReports(outDir, results, config.register, evidences, config.reporters);
  // A failing cell fails the run unless an unexpired baseline entry expects it; stale or expired entries fail too.
  const baselined = applyBaseline(results, config.baseline);
  const fuzzFailed = (results.fuzz ?? []).some((f) => f.status !== "pass");
  // A relay's failure (1) outranks cells the harness could not drive (3); neither: 0.
  const code =
    baselined.exitCode === 1 || fuzzFailed ? EXIT.failed : baselined.exitCode === 3 ? EXIT.harness : EXIT.ok;
  return { code, written, baselineLines: baselined.lines };
}
