import { existsSync } from "node:fs";
import { basename, dirname, relative, resolve } from "node:path";
import type { Command } from "commander";
import { runCases } from "../harness/controller.ts";
import { evidenceFor, type JudgedRun, judgeRuns } from "../judge/judge-runs.ts";
import { CaseSchema } from "../model/case.ts";
import { ROUNDTRIP_ROW } from "../model/case-key.ts";
import { InputError } from "../model/errors.ts";
import { EvidenceSchema } from "../model/evidence.ts";
import {
  DEFAULT_CASES,
  DEFAULT_REGISTER,
  loadCases,
  loadDataFile,
  loadRegister,
  loadTarget,
  PROJECT_ROOT,
} from "../model/load.ts";
import { writeJsonFile } from "../model/output-files.ts";
import { toolInfo } from "../run/config.ts";
import { planRun } from "../run/plan.ts";
import { EXIT } from "./errors.ts";
import { type CliIo, processIo, type SetExit } from "./io.ts";

/**
 * `replay EVIDENCE`: re-runs the one case an evidence bundle records, against the same target (or --target), says
 * whether the verdict is the same and writes the fresh transcript beside the recorded one (`….replay.json`). The
 * bundle carries the case definition, so it replays on its own. Exit 0 when the case now passes (or warns), 1 when
 * it fails, 3 when the harness could not drive it.
 */
/** The fresh transcript goes beside the recorded one (`<case>@<era>.replay.json`), which stays as it was. */
function writeReplayTranscript(
  recorded: string,
  judged: JudgedRun,
  target: string,
  targetFile: string,
  seed: number,
): string {
  const fresh = recorded.replace(/(\.json)?$/, ".replay.json");
  const inProject = !relative(PROJECT_ROOT, targetFile).startsWith("..");
  const profile = inProject ? relative(PROJECT_ROOT, targetFile) : targetFile;
  writeJsonFile(
    dirname(fresh),
    basename(fresh),
    evidenceFor(judged, { tool: toolInfo(), target: { name: target, profile }, seed }),
  );
  return fresh;
}

export async function replay(
  file: string,
  opts: { target?: string; register?: string },
  io: CliIo = processIo(),
): Promise<number> {
  const evidence = loadDataFile(resolve(io.cwd, file), EvidenceSchema);
  const parsed = CaseSchema.safeParse(evidence.case.definition);
  if (!parsed.success)
    throw new InputError("the bundle carries no replayable case definition", file, "case.definition");
  const recorded = evidence.target.profile;
  const targetFile = opts.target
    ? resolve(io.cwd, opts.target)
    : recorded
      ? resolve(PROJECT_ROOT, recorded)
      : undefined;
  if (!targetFile || !existsSync(targetFile)) {
    throw new InputError(
      `target profile ${targetFile ?? "(none recorded)"} not found: pass --target`,
      file,
      "target.profile",
    );
  }
  const profile = loadTarget(targetFile);
  const register = loadRegister(opts.register ? resolve(io.cwd, opts.register) : DEFAULT_REGISTER);
  const kase = { ...parsed.data, file: evidence.case.file ?? file };
  // Planned as in a full run: the round-trip prerequisite of the era runs first.
  const roundtrips = loadCases(register, DEFAULT_CASES).filter(
    (c) => c.row === ROUNDTRIP_ROW && c.id !== kase.id,
  );
  const plan = planRun({
    register,
    cases: [...roundtrips, kase],
    profile,
    eras: [evidence.era],
    selectedRows: new Set([kase.row]),
  });
  const runs = await runCases({ profile, profileFile: targetFile, work: plan.work, seed: evidence.seed });
  const judged = judgeRuns(register, runs, { answerer: profile.answerer.kind }).find(
    (j) => j.run.kase.id === kase.id && j.run.kase.row === kase.row,
  );
  if (!judged)
    throw new InputError(
      `the case cannot run against ${profile.name}: ${plan.unrun[0]?.result.reason ?? "not planned"}`,
      file,
      "case",
    );
  const before = evidence.verdict.status;
  const now = judged.verdict.status;
  const same = before === now;
  const fresh = writeReplayTranscript(resolve(io.cwd, file), judged, profile.name, targetFile, evidence.seed);
  io.stdout(
    `${same ? "same verdict" : "DIFFERENT verdict"}: ${evidence.case.row}/${evidence.case.id} @${evidence.era} against ${profile.name}: ${now} (recorded: ${before})\n`,
  );
  if (!same || now !== "pass")
    io.stdout(`  now: ${judged.verdict.reason}\n  recorded: ${evidence.verdict.reason}\n`);
  io.stdout(`  transcript: ${relative(io.cwd, fresh) || fresh}\n`);
  // The case's verdict now decides, as in a run: a case that still fails is a failure, whatever was recorded.
  return now === "fail" ? EXIT.failed : now === "error" || now === "skip" ? EXIT.harness : EXIT.ok;
}

export function register(program: Command, setExit: SetExit, io: CliIo): void {
  program
    .command("replay")
    .description(
      "re-run the case of one evidence file (fresh transcript beside it as .replay.json); exit 1 when it fails",
    )
    .argument("<evidence>", "an evidence/<row>/<case>@<era>.json file")
    .option("--target <file>", "target profile (default: the one recorded in the evidence)")
    .option("--register <file>", "register file (default matrix/register.yaml)")
    .action(async (file: string, opts: { target?: string; register?: string }) => {
      setExit(await replay(file, opts, io));
    });
}
