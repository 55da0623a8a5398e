import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { type CaseRun, runCases } from "../harness/controller.ts";
import { fuzzTarget } from "../harness/fuzz.ts";
import { multiSessionNotRun } from "../harness/isolation.ts";
import { buildCells, caseSide, type JudgedCase, summarize } from "../judge/cells.ts";
import { evidenceFor, judgeRuns, ROUNDTRIP_ROW } from "../judge/judge-runs.ts";
import { applyBaseline, BaselineSchema } from "../matrix/baseline.ts";
import { DEFAULT_REPORTERS, parseReporters, REPORTERS, writeReports } from "../matrix/reports.ts";
import { InputError } from "../model/errors.ts";
import type { Evidence } from "../model/evidence.ts";
import {
  DEFAULT_CASES,
  DEFAULT_REGISTER,
  loadCases,
  loadDataFile,
  loadRegister,
  loadTarget,
  PROJECT_ROOT,
} from "../model/load.ts";
import type { Results } from "../model/results.ts";
import { ERAS, type Era, isEra, isModernEra } from "../validator/eras.ts";
import type { SetExit } from "./commands.ts";
import { EXIT } from "./errors.ts";
import { writeJsonFile } from "./evidence-files.ts";
import { type FuzzSummary, foldFuzz } from "./fuzz-results.ts";

/** Review cases against a target whose answerer is a plain client: the review itself is the downstream's. */
const REVIEW_DELEGATED =
  "delegated to the downstream client; no review surface exercised (the case needs a person at the relay's review surface: a target with answerer.kind: review)";

/** Why the harness cannot drive an era over this target's transports, if it cannot (an error, not a verdict). */
function harnessCannotDrive(
  profile: { upstream: { transport: string }; downstream: { transport: string } },
  era: Era,
): string | undefined {
  if (!isModernEra(era)) return undefined;
  const http = [
    profile.upstream.transport !== "stdio" ? `upstream ${profile.upstream.transport}` : "",
    profile.downstream.transport !== "stdio" ? `downstream ${profile.downstream.transport}` : "",
  ].filter(Boolean);
  return http.length
    ? `the harness drives ${era} over stdio only; this target uses ${http.join(" and ")}, so the cell was not exercised`
    : undefined;
}

/** The default target: the reference relay with its review surface, so every row of darwin-nix#256 is exercised. */
export const DEFAULT_TARGET = join(PROJECT_ROOT, "targets/reference-review.yaml");

export function toolInfo(): { name: "mcpx-conform"; version: string } {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8"));
  return { name: "mcpx-conform", version: String(pkg.version) };
}

function list(value: string | undefined): string[] | undefined {
  return value
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export interface RunOptions {
  target?: string;
  era?: string;
  rows?: string;
  out?: string;
  seed?: string;
  register?: string;
  cases?: string;
  quiet?: boolean;
  fuzz?: string;
  reporter?: string;
  baseline?: string;
}

/** `run`: plan, drive the relay from both ends, judge, write results.json + evidence; returns the exit code. */
export async function run(opts: RunOptions): Promise<{ code: number; results: Results; outDir: string }> {
  const registerFile = opts.register ? resolve(opts.register) : DEFAULT_REGISTER;
  const register = loadRegister(registerFile);
  const cases = loadCases(register, opts.cases ? resolve(opts.cases) : DEFAULT_CASES);
  const targetFile = opts.target ? resolve(opts.target) : DEFAULT_TARGET;
  const profile = loadTarget(targetFile);

  const requested = list(opts.era);
  for (const e of requested ?? [])
    if (!isEra(e))
      throw new InputError(`unknown era '${e}' (expected one of ${ERAS.join(", ")})`, undefined, "--era");
  const eras = ERAS.filter(
    (e) => (profile.eras ?? ERAS).includes(e) && (!requested || requested.includes(e)),
  );
  if (eras.length === 0)
    throw new InputError(
      "no era left to run (the target's eras and --era do not overlap)",
      targetFile,
      "eras",
    );
  const rowFilter = list(opts.rows);
  const knownRows = new Set(register.rows.map((r) => r.id));
  for (const r of rowFilter ?? [])
    if (!knownRows.has(r)) throw new InputError(`unknown register row '${r}'`, undefined, "--rows");
  const selectedRows = rowFilter ? new Set(rowFilter) : undefined;
  const seed = opts.seed !== undefined ? Number(opts.seed) : Math.floor(Math.random() * 2 ** 31);
  if (!Number.isInteger(seed))
    throw new InputError(`expected an integer, got '${opts.seed}'`, undefined, "--seed");

  const reporters = parseReporters(opts.reporter ?? DEFAULT_REPORTERS.join(","));
  const baseline = opts.baseline ? loadDataFile(resolve(opts.baseline), BaselineSchema) : undefined;

  const rows = new Map(register.rows.map((r) => [r.id, r]));
  const eraNotRun: Partial<Record<Era, string>> = {};
  const singleSession = multiSessionNotRun(profile);
  const work: Array<{ kase: (typeof cases)[number]; era: Era }> = [];
  // Cases this target cannot run are recorded, never dropped: a cell that had them is partial or not-run, not pass.
  const unrun: JudgedCase[] = [];
  const notRunHere = (kase: (typeof cases)[number], era: Era, status: "skip" | "error", reason: string) => {
    const row = rows.get(kase.row)!;
    unrun.push({
      row: kase.row,
      era,
      side: caseSide(row, kase.side),
      result: { id: kase.id, status, reason },
    });
  };
  for (const era of eras) {
    const undrivable = harnessCannotDrive(profile, era);
    // Round-trip cases run first in every era: every other verdict of the era depends on them.
    const ordered = [...cases].sort(
      (a, b) => Number(b.row === ROUNDTRIP_ROW) - Number(a.row === ROUNDTRIP_ROW),
    );
    for (const kase of ordered) {
      const caseEras = kase.eras ?? rows.get(kase.row)!.eras;
      if (!caseEras.includes(era)) continue;
      if (selectedRows && !selectedRows.has(kase.row) && kase.row !== ROUNDTRIP_ROW) continue;
      if (undrivable) {
        notRunHere(kase, era, "error", undrivable);
        continue;
      }
      if (kase.review && profile.answerer.kind !== "review") {
        notRunHere(kase, era, "skip", REVIEW_DELEGATED);
        continue;
      }
      if (kase.sessions && singleSession) {
        notRunHere(kase, era, "skip", singleSession);
        continue;
      }
      work.push({ kase, era });
    }
  }

  const startedAt = new Date().toISOString();
  const stamp = startedAt.replace(/[:.]/g, "-");
  const outDir = resolve(opts.out ?? join("reports", profile.name, stamp));
  const log = (line: string, always = false) => {
    if (always || !opts.quiet) process.stderr.write(`${line}\n`);
  };
  log(`mcpx-conform: ${work.length} case runs against ${profile.name} (${eras.join(", ")}), seed ${seed}`);
  const runs: CaseRun[] = await runCases({
    profile,
    profileFile: targetFile,
    work,
    seed,
  });
  const judged = judgeRuns(register, runs);

  const tool = toolInfo();
  // Evidence names the profile relative to the project when it lives there, so bundles stay portable.
  const inProject = !relative(PROJECT_ROOT, targetFile).startsWith("..");
  const meta = {
    tool,
    target: { name: profile.name, profile: inProject ? relative(PROJECT_ROOT, targetFile) : targetFile },
    seed,
  };
  const judgedCases: JudgedCase[] = [];
  const evidences: Record<string, Evidence> = {};
  for (const j of judged) {
    const rel = join("evidence", j.run.kase.row, `${j.run.kase.id}@${j.run.era}.json`);
    const evidence = evidenceFor(j, meta);
    evidences[rel] = evidence;
    const sha = writeJsonFile(outDir, rel, evidence);
    const mark = { pass: "✓", fail: "✗", warn: "!", error: "E", skip: "-" }[j.verdict.status];
    log(
      `${mark} ${j.run.kase.row}/${j.run.kase.id} @${j.run.era}${j.verdict.status === "pass" ? "" : `: ${j.verdict.reason}`}`,
    );
    judgedCases.push({
      row: j.run.kase.row,
      era: j.run.era,
      side: caseSide(j.row, j.run.kase.side),
      result: {
        id: j.run.kase.id,
        status: j.verdict.status,
        reason: j.verdict.reason,
        evidence: rel,
        evidenceSha256: sha,
        durationMs: j.run.durationMs,
      },
      ...(j.covers ? { covers: j.covers } : {}),
    });
    // A finding on a delivered message counts toward the row of the rule it breaks, with this case's evidence.
    for (const a of j.attributed) {
      if (selectedRows && !selectedRows.has(a.row)) continue;
      judgedCases.push({
        row: a.row,
        era: j.run.era,
        side: a.side,
        result: {
          id: `${j.run.kase.id}@${j.run.kase.row}`,
          status: a.status,
          reason: a.reason,
          evidence: rel,
          evidenceSha256: sha,
        },
      });
    }
  }
  judgedCases.push(...unrun);
  let fuzz: FuzzSummary[] | undefined;
  if (opts.fuzz !== undefined) {
    const runsPerEra = Number(opts.fuzz);
    const fuzzEras = eras.filter((e) => !eraNotRun[e]);
    log(
      `mcpx-conform: differential fuzzing, ${runsPerEra} exchanges per era (${fuzzEras.join(", ")}), seed ${seed}`,
    );
    const reports = await fuzzTarget({
      profile,
      profileFile: targetFile,
      eras: fuzzEras,
      runs: runsPerEra,
      seed,
    });
    const folded = foldFuzz(reports, register, outDir, meta);
    fuzz = folded.summaries;
    for (const f of fuzz) log(`${f.status === "pass" ? "✓" : "✗"} fuzz @${f.era}: ${f.reason}`);
    judgedCases.push(...folded.judged.filter((j) => !selectedRows || selectedRows.has(j.row)));
  }
  const cells = buildCells(register, judgedCases, eras, eraNotRun, selectedRows);
  const results: Results = {
    tool,
    target: { name: profile.name, profile: relative(process.cwd(), targetFile) || targetFile },
    seed,
    startedAt,
    finishedAt: new Date().toISOString(),
    eras,
    cells,
    summary: summarize(cells),
    ...(fuzz ? { fuzz } : {}),
  };
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  const written = writeReports(outDir, results, register, evidences, reporters);
  // A failing cell fails the run unless an unexpired baseline entry expects it; stale or expired entries fail too.
  const baselined = applyBaseline(results, baseline);
  for (const line of baselined.lines) log(line);
  const fuzzFailed = (fuzz ?? []).some((f) => f.status !== "pass");
  const s = results.summary;
  log(
    `mcpx-conform: ${cells.length} cells: ${s.pass} pass, ${s.fail} fail, ${s.warn} warn, ${s.error} error, ${s["not-run"]} not-run, ${s["n/a"]} n/a → ${relative(process.cwd(), outDir) || outDir}`,
    true,
  );
  log(`mcpx-conform: wrote results.json${written.map((w) => `, ${relative(outDir, w) || w}`).join("")}`);
  // A relay's failure (1) outranks cells the harness could not drive (3); neither: 0.
  const code =
    baselined.exitCode === 1 || fuzzFailed ? EXIT.failed : baselined.exitCode === 3 ? EXIT.harness : EXIT.ok;
  return { code, results, outDir };
}

export function register(program: Command, setExit: SetExit): void {
  program
    .command("run")
    .description("drive a relay from both ends with the case corpus and write results, matrix and evidence")
    .option("--target <file>", "target profile (default: the embedded reference relay)")
    .option("--era <eras>", "comma-separated eras to run")
    .option("--rows <ids>", "comma-separated register rows to run")
    .option("--out <dir>", "output folder (default reports/<target>/<timestamp>/)")
    .option("--seed <n>", "seed for canaries and fuzzing")
    .option("--register <file>", "register file (default matrix/register.yaml)")
    .option("--cases <dir>", "case corpus folder (default cases/)")
    .option("--reporter <names>", `reports to write besides results.json: ${REPORTERS.join(",")}`)
    .option("--baseline <file>", "expected failures (YAML): baselined cells do not fail the run")
    .option("--fuzz <runs>", "also fuzz differentially: this many generated exchanges per era")
    .option("--quiet", "print only the summary line")
    .action(async (opts: RunOptions) => {
      const { code } = await run(opts);
      setExit(code);
    });
}
