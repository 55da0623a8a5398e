import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fuzzTarget } from "../fuzz/differential.ts";
import { type FuzzSummary, foldFuzz } from "../fuzz/results.ts";
import { sessionGroup } from "../harness/case-instance.ts";
import { runCases } from "../harness/controller.ts";
import { busySince } from "../harness/core-load.ts";
import { preflightProfile } from "../harness/preflight.ts";
import { keepTemporaryDirs } from "../harness/processes.ts";
import { buildCells, type JudgedCase, summarize } from "../judge/cells.ts";
import { applyBaseline } from "../matrix/baseline.ts";
import type { EvidenceSource } from "../matrix/html.ts";
import { writeReports } from "../matrix/reports.ts";
import { ROUNDTRIP_ROW } from "../model/case-key.ts";
import { EXIT } from "../model/errors.ts";
import type { Evidence } from "../model/evidence.ts";
import { evidenceBudgets } from "../model/evidence-budget.ts";
import { PROJECT_ROOT } from "../model/load.ts";
import type { Cell, Results } from "../model/results.ts";
import { stableResults } from "../model/stable.ts";
import { DEFAULT_OUT, type RunConfig, toolInfo } from "./config.ts";
import { lateRerunsOf } from "./late-reruns.ts";
import { liveRun } from "./live.ts";
import { watchMemory } from "./memory.ts";
import { harnessCannotDrive, planRun, type RunPlan } from "./plan.ts";
import type { RunEvent } from "./progress.ts";
import type { EvidenceMeta } from "./record.ts";
import {
  expectedCostMs,
  plannedCells,
  type Shard,
  type ShardPlan,
  shardFuzzEras,
  shardPlan,
  waitChains,
} from "./shard.ts";

/** What the pipeline tells its caller as it goes (the CLI prints it; tests may ignore it). */
export interface RunHooks {
  log?: (line: string) => void;
  /** Aborting ends the run early: the cases not run are errors, and the results so far are written. */
  signal?: AbortSignal;
  /** Live progress: the run's start, then each case as soon as it is judged. */
  onEvent?: (event: RunEvent) => void;
  /**
   * Run every case even in an era whose round trip failed (the kill matrix: a relay that never relays must still
   * show that each case's own check fails). A user's run records those cases as failed at once instead.
   */
  exhaustive?: boolean;
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
  return {
    tool: toolInfo(),
    target: { name: config.profile.name, profile },
    seed: config.seed,
    ...(config.stable ? { stable: true } : {}),
  };
}

/** Differential fuzzing, when asked for: its disagreements become failing cases (it never adds credit). */
async function fuzzStage(config: RunConfig, outDir: string, meta: EvidenceMeta, log: (l: string) => void) {
  if (config.fuzzRuns === undefined) return { summaries: undefined, judged: [] as JudgedCase[] };
  const { profile, targetFile, seed, fuzzRuns: runs } = config;
  // Each era's fuzzing runs in one shard only, so merged shards hold every era's summary once.
  const eras = shardFuzzEras(
    config.eras.filter((e) => !harnessCannotDrive(profile, e)),
    config.shard,
  );
  if (eras.length === 0) return { summaries: undefined, judged: [] as JudgedCase[] };
  log(`mcpx-conform: differential fuzzing, ${runs} exchanges per era (${eras.join(", ")}), seed ${seed}`);
  const maxFrameBytes = config.maxEvidenceFrameBytes;
  const { concurrency } = config;
  const reports = await fuzzTarget({
    profile,
    profileFile: targetFile,
    eras,
    runs,
    seed,
    maxFrameBytes,
    concurrency,
  });
  const folded = foldFuzz(reports, config.register, outDir, meta, maxFrameBytes);
  for (const f of folded.summaries)
    log(`${f.status === "pass" ? "✓" : f.status === "warn" ? "!" : "✗"} fuzz @${f.era}: ${f.reason}`);
  const judged = folded.judged.filter((j) => !config.selectedRows || config.selectedRows.has(j.row));
  return { summaries: folded.summaries as FuzzSummary[] | undefined, judged };
}

/** The plan of this run: the whole plan, or this shard's slice of it. */
function planStage(config: RunConfig): { full: RunPlan; plan: ShardPlan } {
  const full = planRun(config);
  const plan = config.shard
    ? shardPlan(full, config.shard, config.profile)
    : { ...full, prerequisiteOnly: new Set<string>() };
  return { full, plan };
}

/**
 * Drives the relay through the plan's work, judging each case once as it ends (progress events, --bail) and writing
 * its evidence at once: what the run keeps of a case is its case results, never its observation or frames. Returns
 * the case results this run reports (in plan order) and the cases --bail kept from running.
 */
async function executeStage(
  config: RunConfig,
  full: RunPlan,
  plan: ShardPlan,
  outDir: string,
  hooks: RunHooks,
  afterCase: () => void,
) {
  const { register, profile, seed } = config;
  // Budgets come from the whole plan, so a shard writes each transcript as the unsharded run would.
  const budget = evidenceBudgets(full.work);
  const live = liveRun({
    register,
    work: plan.work,
    outDir,
    meta: evidenceMeta(config),
    selectedRows: config.selectedRows,
    baseline: config.baseline,
    bail: config.bail,
    onEvent: hooks.onEvent,
    cwd: config.cwd,
    target: { answerer: profile.answerer.kind },
    limits: (run) => ({ budget: budget(run.kase), maxFrameBytes: config.maxEvidenceFrameBytes }),
    // A shard runs the round trip of every era it has work in, but reports it only where it was assigned.
    prerequisiteOnly: plan.prerequisiteOnly,
  });
  await runCases({
    profile,
    profileFile: config.targetFile,
    work: plan.work,
    seed,
    concurrency: config.concurrency,
    prerequisite: (item) => item.kase.row === ROUNDTRIP_ROW,
    cost: (item) => expectedCostMs(item, profile),
    apart: waitChains(plan.work, profile, config.concurrency),
    busySince,
    maxFrameBytes: config.maxEvidenceFrameBytes,
    // Each run is judged, written and let go in onCase: none is kept to the end.
    retain: false,
    onCase: (run) => {
      live.onCase(run);
      afterCase();
    },
    // Once an era's round trip has failed, its other cases are recorded as failed for that reason, not run one by one.
    skip: (item) =>
      live.skip(item) ??
      (hooks.exhaustive || item.kase.row === ROUNDTRIP_ROW ? undefined : live.roundTripFailed(item.era)),
    ...(hooks.signal ? { signal: hooks.signal } : {}),
  });
  const finished = live.finish();
  if (finished.bailedAt)
    hooks.log?.(
      `mcpx-conform: --bail: stopped after ${finished.bailedAt} failed; the cases not run are skipped`,
    );
  return { judgedCases: finished.judgedCases, skipped: finished.skipped };
}

/** Validation cases keep what they cover in results.json, so cells can be rebuilt from results alone (merge). */
function withCoverage(judgedCases: JudgedCase[]): JudgedCase[] {
  return judgedCases.map((j) => (j.covers ? { ...j, result: { ...j.result, covers: j.covers } } : j));
}

/** A shard's cells whose cases all ran in other shards say so (merge rebuilds them from every shard). */
function noteOtherShards(cells: Cell[], planned: Set<string>, shard: Shard): Cell[] {
  return cells.map((c) =>
    c.cases.length === 0 && c.status === "not-run" && planned.has(`${c.row} ${c.era} ${c.side}`)
      ? {
          ...c,
          note: `run by another shard than ${shard.index}/${shard.count} (merge the shards for this cell)`,
        }
      : c,
  );
}

/**
 * The one run pipeline: plan → execute (drive the relay from both ends) → judge → write results.json, evidence
 * and reports → apply the baseline. `run`, `replay` and the kill-matrix test all go through it.
 */
export async function runPipeline(config: RunConfig, hooks: RunHooks = {}): Promise<RunOutcome> {
  const log = hooks.log ?? (() => undefined);
  const { register, profile, eras, seed, selectedRows, shard } = config;
  // A command that cannot start is the profile's error (exit 2), found before any case waits for it.
  preflightProfile(profile, config.targetFile);
  keepTemporaryDirs(config.keep === true);
  const { full, plan } = planStage(config);
  const startedAt = new Date().toISOString();
  const outDir = resolve(config.cwd, config.out ?? DEFAULT_OUT);
  // The default folder is the run's own: an earlier run's transcripts must not sit beside this one's.
  if (config.out === undefined) rmSync(join(outDir, "evidence"), { recursive: true, force: true });
  for (const note of config.notes ?? []) log(note);
  // What helps a reader: how much work and against what. No time figure: the worst case (worstCaseMs, docs/reliability.md's
  // bound) is hours for a run that takes seconds, and a relay's start-up cost is unknown until it has started.
  const slice = shard ? `, shard ${shard.index}/${shard.count}` : "";
  const sessions = new Set(plan.work.map((w) => sessionGroup(w))).size;
  log(
    `mcpx-conform: ${plan.work.length} case runs against ${profile.name} in ${eras.length} era(s) (${eras.join(", ")})${slice}, ${sessions} relay session group(s), seed ${seed}`,
  );
  hooks.onEvent?.({ kind: "start", total: plan.work.length, target: profile.name, eras });
  const meta = evidenceMeta(config);
  // A relay's oversized frames leave garbage that V8 would let pile up: the run collects it once its heap is high.
  const memory = watchMemory();
  let executed: Awaited<ReturnType<typeof executeStage>>;
  let fuzz: Awaited<ReturnType<typeof fuzzStage>>;
  try {
    executed = await executeStage(config, full, plan, outDir, hooks, memory.afterCase);
    fuzz = await fuzzStage(config, outDir, meta, log);
  } finally {
    memory.stop();
  }
  const built = buildCells(
    register,
    [...withCoverage(executed.judgedCases), ...executed.skipped, ...plan.unrun, ...fuzz.judged],
    eras,
    selectedRows,
  );
  const cells = shard ? noteOtherShards(built, plannedCells(register, full), shard) : built;
  const timed: Results = {
    tool: toolInfo(),
    target: {
      name: profile.name,
      profile: relative(config.cwd, config.targetFile) || config.targetFile,
      ...(profile.package ? { package: profile.package } : {}),
    },
    seed,
    startedAt,
    finishedAt: new Date().toISOString(),
    eras,
    ...(shard ? { shard } : {}),
    cells,
    summary: summarize(cells),
    ...lateRerunsOf(cells),
    ...(fuzz.summaries ? { fuzz: fuzz.summaries } : {}),
  };
  const results = config.stable ? stableResults(timed) : timed;
  return { ...writeOutcome(config, results, outDir, evidenceFromDisk(outDir)), results, outDir };
}

/**
 * The evidence files of a run folder, read when a report needs one (matrix.html embeds what fits its budget), so no
 * transcript stays in memory for the reports; a file that is missing or not JSON is none.
 */
export function evidenceFromDisk(outDir: string): (path: string) => Evidence | undefined {
  return (path) => {
    try {
      return JSON.parse(readFileSync(join(outDir, path), "utf8")) as Evidence;
    } catch {
      return undefined;
    }
  };
}

/** Writes results.json and the reports, applies the baseline, and decides the exit code (run and merge). */
export function writeOutcome(
  config: Pick<RunConfig, "register" | "reporters" | "baseline">,
  results: Results,
  outDir: string,
  evidences: EvidenceSource,
) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  const written = writeReports(outDir, results, config.register, evidences, config.reporters);
  // A failing cell fails the run unless an unexpired baseline entry expects it; stale or expired entries fail too.
  const baselined = applyBaseline(results, config.baseline);
  const fuzzFailed = (results.fuzz ?? []).some((f) => f.status === "fail" || f.status === "error");
  // A relay's failure (1) outranks cells the harness could not drive (3); neither: 0.
  const code =
    baselined.exitCode === 1 || fuzzFailed ? EXIT.failed : baselined.exitCode === 3 ? EXIT.harness : EXIT.ok;
  return { code, written, baselineLines: baselined.lines };
}
