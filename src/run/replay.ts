import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEFAULT_MAX_FRAME_BYTES } from "../harness/frames.ts";
import { CaseSchema } from "../model/case.ts";
import { ROUNDTRIP_ROW } from "../model/case-key.ts";
import { InputError } from "../model/errors.ts";
import { type Evidence, EvidenceSchema } from "../model/evidence.ts";
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
import type { RunConfig } from "./config.ts";
import { runPipeline } from "./pipeline.ts";
import { planRun } from "./plan.ts";
import { evidencePath } from "./record.ts";

/** `replay`'s options: another target than the recorded one, another register, the folder paths are relative to. */
export interface ReplayOptions {
  target?: string;
  register?: string;
  cwd: string;
}

export interface Replayed {
  /** The bundle as it was recorded. */
  recorded: Evidence;
  /** The case's fresh transcript, as the run wrote it. */
  now: Evidence;
  /** Where the fresh transcript was written: beside the recorded one, `<case>@<era>.replay.json`. */
  transcript: string;
  /** The name of the target it ran against. */
  target: string;
}

/** The profile a bundle replays against: --target, else the one it records (relative to the project). */
function replayTarget(evidence: Evidence, file: string, opts: ReplayOptions): string {
  const recorded = evidence.target.profile;
  const targetFile = opts.target
    ? resolve(opts.cwd, opts.target)
    : recorded
      ? resolve(PROJECT_ROOT, recorded)
      : undefined;
  if (!targetFile || !existsSync(targetFile))
    throw new InputError(
      `target profile ${targetFile ?? "(none recorded)"} not found: pass --target`,
      file,
      "target.profile",
    );
  return targetFile;
}

/**
 * The run of one bundle's case: its era, its seed, its row, its definition from the bundle (so it replays on its own)
 * and every round trip of the corpus before it, planned as in a full run (the era's prerequisite); one relay session
 * at a time, no report but results.json, written to `out`.
 */
export function replayConfig(
  file: string,
  opts: ReplayOptions,
  out: string,
): { config: RunConfig; evidence: Evidence; kase: LoadedCase } {
  const evidence = loadDataFile(resolve(opts.cwd, file), EvidenceSchema);
  const parsed = CaseSchema.safeParse(evidence.case.definition);
  if (!parsed.success)
    throw new InputError("the bundle carries no replayable case definition", file, "case.definition");
  const targetFile = replayTarget(evidence, file, opts);
  const register = loadRegister(opts.register ? resolve(opts.cwd, opts.register) : DEFAULT_REGISTER);
  const kase: LoadedCase = { ...parsed.data, file: evidence.case.file ?? file };
  const roundtrips = loadCases(register, DEFAULT_CASES).filter(
    (c) => c.row === ROUNDTRIP_ROW && c.id !== kase.id,
  );
  const config: RunConfig = {
    register,
    cases: [...roundtrips, kase],
    profile: loadTarget(targetFile),
    targetFile,
    eras: [evidence.era],
    selectedRows: new Set([kase.row]),
    selectedCases: undefined,
    seed: evidence.seed,
    fuzzRuns: undefined,
    reporters: [],
    baseline: undefined,
    out,
    shard: undefined,
    bail: false,
    concurrency: 1,
    stable: false,
    maxEvidenceFrameBytes: DEFAULT_MAX_FRAME_BYTES,
    cwd: opts.cwd,
  };
  return { config, evidence, kase };
}

/**
 * `replay EVIDENCE`: re-runs the one case an evidence bundle records through the run pipeline, against the same
 * target (or `opts.target`), and writes its fresh transcript beside the recorded one, which stays as it was. The case
 * runs even when its era's round trip fails (its verdict then says so), so there is always a transcript to compare.
 */
export async function replayCase(file: string, opts: ReplayOptions): Promise<Replayed> {
  const out = mkdtempSync(join(tmpdir(), "mcpx-conform-replay-"));
  try {
    const { config, evidence, kase } = replayConfig(file, opts, out);
    const plan = planRun(config);
    if (!plan.work.some((w) => w.kase === kase)) {
      const unrun = plan.unrun.find((u) => u.row === kase.row && u.result.id === kase.id);
      throw new InputError(
        `the case cannot run against ${config.profile.name}: ${unrun?.result.reason ?? "not planned"}`,
        file,
        "case",
      );
    }
    await runPipeline(config, { exhaustive: true });
    const written = join(out, evidencePath(kase.row, kase.id, evidence.era));
    if (!existsSync(written)) throw new Error(`the replay wrote no transcript of ${kase.row}/${kase.id}`);
    const transcript = resolve(opts.cwd, file).replace(/(\.json)?$/, ".replay.json");
    copyFileSync(written, transcript);
    const now = JSON.parse(readFileSync(transcript, "utf8")) as Evidence;
    return { recorded: evidence, now, transcript, target: config.profile.name };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
