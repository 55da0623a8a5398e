import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEFAULT_MAX_FRAME_BYTES } from "../harness/frames.ts";
import { defaultConcurrency } from "../harness/harness-plan.ts";
import { isCheckId } from "../judge/checks/index.ts";
import { type Baseline, BaselineSchema } from "../matrix/baseline.ts";
import { DEFAULT_REPORTERS, parseReporters, type ReporterName } from "../matrix/reports.ts";
import { caseMatches } from "../matrix/tracking.ts";
import { InputError } from "../model/errors.ts";
import {
  DEFAULT_CASES,
  DEFAULT_REGISTER,
  type LoadedCase,
  loadCases,
  loadDataFile,
  loadRegister,
  loadTarget,
  PROJECT_ROOT,
} from "../model/load.ts";
import type { Register } from "../model/register.ts";
import type { TargetProfile } from "../model/target.ts";
import { ERAS, type Era, isEra } from "../protocol/eras.ts";
import { parseShard, type Shard } from "./shard.ts";

/** The default target: the reference relay with its review surface, so every row of darwin-nix#256 is exercised. */
export const DEFAULT_TARGET = join(PROJECT_ROOT, "targets/reference-review.yaml");

/**
 * Where a run writes when no --out is given: this folder under the caller's working directory (not the package's
 * own), replaced by each run (its evidence/ is cleared first, so no transcript of an earlier run lingers).
 */
export const DEFAULT_OUT = "mcpx-conform-report";

/** The smallest `--max-evidence-frame-bytes`: a frame's head must still show what kind of message it was. */
export const MIN_EVIDENCE_FRAME_BYTES = 1024;

export function toolInfo(): { name: "mcpx-conform"; version: string } {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8"));
  return { name: "mcpx-conform", version: String(pkg.version) };
}

/** `run`'s options as the CLI (or a programmatic caller) gives them: strings, not yet checked. */
export interface RunOptions {
  target?: string;
  era?: string;
  rows?: string;
  /** Comma-separated globs over case ids (or row/id): run only these cases (and each era's round trip). */
  case?: string;
  out?: string;
  seed?: string;
  register?: string;
  cases?: string;
  quiet?: boolean;
  fuzz?: string;
  reporter?: string;
  baseline?: string;
  /** i/n: run only slice i of n of the work (merge the slices with `mcpx-conform merge`). */
  shard?: string;
  /** Stop at the first failing cell. */
  bail?: boolean;
  /** How many session groups run at the same time (default: the machine's parallelism, at least 2; 1: one by one). */
  concurrency?: string;
  /**
   * Stable output: results.json and evidence record no wall-clock or measured time (no startedAt, durationMs, frame
   * times), so two runs with the same seed write the same bytes; for files committed to git.
   */
  stable?: boolean;
  /** The most bytes of one frame an evidence file keeps (default 64 KiB): a longer frame keeps its head, size and sha256. */
  maxEvidenceFrameBytes?: string;
  /** The folder relative paths are resolved against, and written relative to (default: the process's). */
  cwd?: string;
  /** --keep: leave the relays' temporary folders in place (src/run/signals.ts lists them). */
  keep?: boolean;
}

/** Everything a run needs, loaded and checked: bad input has already become an InputError (exit 2). */
export interface RunConfig {
  register: Register;
  cases: LoadedCase[];
  profile: TargetProfile;
  targetFile: string;
  eras: Era[];
  /** Rows selected with --rows, or holding a case selected with --case (undefined: all). */
  selectedRows: Set<string> | undefined;
  /** Cases selected with --case (undefined: every case of the selected rows). */
  selectedCases: ((kase: LoadedCase) => boolean) | undefined;
  seed: number;
  /** Generated exchanges per era with --fuzz (undefined: no fuzzing). */
  fuzzRuns: number | undefined;
  reporters: ReporterName[];
  baseline: Baseline | undefined;
  /** --out, when given. */
  out: string | undefined;
  /** --shard i/n (undefined: the whole run). */
  shard: Shard | undefined;
  /** --bail: stop scheduling cases at the first failing cell. */
  bail: boolean;
  /** --concurrency: session groups (and two-session cases) run at the same time. */
  concurrency: number;
  /** --stable: write no wall-clock or measured time (src/model/stable.ts). */
  stable: boolean;
  /** --max-evidence-frame-bytes: the most UTF-8 bytes of one frame an evidence file keeps (src/harness/frames.ts). */
  maxEvidenceFrameBytes: number;
  /** The folder the run's relative paths mean (the default output folder, paths printed and recorded). */
  cwd: string;
  /** What the run says before it starts (an --era the profile did not list). */
  notes?: string[];
  /** --keep: the relays' temporary folders are left in place when the run ends (default: removed). */
  keep?: boolean;
}

export function list(value: string | undefined): string[] | undefined {
  return value
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

function wholeNumber(value: string, flag: string, min: number): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < min)
    throw new InputError(
      `expected a whole number${min > 0 ? ` of at least ${min}` : ""}, got '${value}'`,
      undefined,
      flag,
    );
  return n;
}

/**
 * The eras to run: --era when given (the command line wins over the profile's `eras:`, which is only the default, so
 * trying one more era needs no copy of the profile; the run says so), else the profile's, else every era.
 */
function selectEras(
  requested: string[] | undefined,
  profile: TargetProfile,
): { eras: Era[]; notes: string[] } {
  for (const e of requested ?? [])
    if (!isEra(e))
      throw new InputError(`unknown era '${e}' (expected one of ${ERAS.join(", ")})`, undefined, "--era");
  if (!requested) return { eras: ERAS.filter((e) => (profile.eras ?? ERAS).includes(e)), notes: [] };
  const eras = ERAS.filter((e) => requested.includes(e));
  const beyond = profile.eras ? eras.filter((e) => !profile.eras!.includes(e)) : [];
  const notes = beyond.length
    ? [
        `mcpx-conform: --era ${beyond.join(", ")}: not in the profile's eras (${profile.eras!.join(", ")}); run as asked`,
      ]
    : [];
  return { eras, notes };
}

/** --shard i/n, which needs --seed: shards are slices of one run only when they share its seed. */
function shardOption(opts: RunOptions): Shard | undefined {
  if (opts.shard === undefined) return undefined;
  const shard = parseShard(opts.shard);
  if (opts.seed === undefined)
    throw new InputError(
      "--shard needs a seed every shard shares (e.g. --seed $GITHUB_RUN_NUMBER), or merge cannot combine them",
      undefined,
      "--seed",
    );
  return shard;
}

/**
 * --case GLOB[,GLOB]: the cases whose id (or row/id) a glob matches (`*` any run of characters), and the rows they
 * are in (within --rows). A glob that matches no case is a typo: exit 2.
 */
function caseSelection(globs: string[] | undefined, cases: LoadedCase[], rows: string[] | undefined) {
  if (!globs) return undefined;
  const inRows = cases.filter((c) => !rows || rows.includes(c.row));
  const matches = (kase: LoadedCase) =>
    caseMatches(globs, kase.id) || caseMatches(globs, `${kase.row}/${kase.id}`);
  for (const glob of globs)
    if (!inRows.some((c) => caseMatches([glob], c.id) || caseMatches([glob], `${c.row}/${c.id}`)))
      throw new InputError(
        `no case${rows ? " of the --rows rows" : ""} matches '${glob}' (expected a case id or row/id glob, as \`mcpx-conform list cases\` prints them)`,
        undefined,
        "--case",
      );
  return { rows: new Set(inRows.filter(matches).map((c) => c.row)), matches };
}

/**
 * Each check a case names as its rule's evidence (`checks:`) is one of the check table's (src/judge/checks/): the
 * case schema (src/model) cannot know them, as the model layer does not import the judge.
 */
export function knownChecks(cases: LoadedCase[]): LoadedCase[] {
  for (const c of cases)
    for (const id of c.checks ?? [])
      if (!isCheckId(id))
        throw new InputError(`unknown check '${id}' (a check id of src/judge/checks/)`, c.file, "checks");
  return cases;
}

export function resolveRunConfig(opts: RunOptions): RunConfig {
  const cwd = opts.cwd ?? process.cwd();
  const register = loadRegister(opts.register ? resolve(cwd, opts.register) : DEFAULT_REGISTER);
  const cases = knownChecks(loadCases(register, opts.cases ? resolve(cwd, opts.cases) : DEFAULT_CASES));
  const targetFile = opts.target ? resolve(cwd, opts.target) : DEFAULT_TARGET;
  const profile = loadTarget(targetFile);
  const rowFilter = list(opts.rows);
  const knownRows = new Set(register.rows.map((r) => r.id));
  for (const r of rowFilter ?? [])
    if (!knownRows.has(r)) throw new InputError(`unknown register row '${r}'`, undefined, "--rows");
  const selected = caseSelection(list(opts.case), cases, rowFilter);
  const { eras, notes } = selectEras(list(opts.era), profile);
  return {
    register,
    cases,
    profile,
    targetFile,
    eras,
    notes,
    selectedRows: selected?.rows ?? (rowFilter ? new Set(rowFilter) : undefined),
    selectedCases: selected?.matches,
    seed: opts.seed !== undefined ? wholeNumber(opts.seed, "--seed", 0) : Math.floor(Math.random() * 2 ** 31),
    fuzzRuns: opts.fuzz !== undefined ? wholeNumber(opts.fuzz, "--fuzz", 1) : undefined,
    reporters: parseReporters(opts.reporter ?? DEFAULT_REPORTERS.join(",")),
    baseline: opts.baseline ? loadDataFile(resolve(cwd, opts.baseline), BaselineSchema) : undefined,
    out: opts.out,
    shard: shardOption(opts),
    bail: opts.bail === true,
    stable: opts.stable === true,
    maxEvidenceFrameBytes:
      opts.maxEvidenceFrameBytes !== undefined
        ? wholeNumber(opts.maxEvidenceFrameBytes, "--max-evidence-frame-bytes", MIN_EVIDENCE_FRAME_BYTES)
        : DEFAULT_MAX_FRAME_BYTES,
    concurrency:
      opts.concurrency !== undefined
        ? wholeNumber(opts.concurrency, "--concurrency", 1)
        : defaultConcurrency(),
    cwd,
    keep: opts.keep === true,
  };
}
