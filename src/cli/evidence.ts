import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { Command } from "commander";
import { judgeCompletion, renderCompletion } from "../matrix/completion.ts";
import {
  selectTracking,
  type TrackingIssue,
  TrackingIssueSchema,
  trackingFileName,
} from "../matrix/tracking.ts";
import { InputError } from "../model/errors.ts";
import { DEFAULT_REGISTER, loadDataFile, loadRegister, PROJECT_ROOT } from "../model/load.ts";
import { EXIT } from "./errors.ts";
import type { CliIo, SetExit } from "./io.ts";
import { loadResults } from "./render.ts";

/** Tracking issues live here, one YAML file per issue (`owner-repo-N.yaml`). */
export const DEFAULT_TRACKING_DIR = join(PROJECT_ROOT, "matrix/tracking");

export interface LoadedTracking {
  file: string;
  issue: TrackingIssue;
}

/** Loads every tracking file of a folder, in file-name order; each must be named after its issue. */
export function loadTrackingRegistry(dir = DEFAULT_TRACKING_DIR): LoadedTracking[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => /\.ya?ml$/.test(n))
      .sort();
  } catch (error) {
    throw new InputError(`cannot read folder (${(error as NodeJS.ErrnoException).code ?? "error"})`, dir);
  }
  const out: LoadedTracking[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const issue = loadDataFile(file, TrackingIssueSchema);
    const expected = trackingFileName(issue.issue);
    if (basename(name).replace(/\.ya?ml$/, ".yaml") !== expected)
      throw new InputError(`a file for ${issue.issue} must be named ${expected}`, file, "issue");
    if (out.some((t) => t.issue.issue.toLowerCase() === issue.issue.toLowerCase()))
      throw new InputError(`${issue.issue} is tracked twice`, file, "issue");
    out.push({ file, issue });
  }
  if (out.length === 0) throw new InputError("no tracking issue files (*.yaml)", dir);
  return out;
}

/**
 * --tracking: a folder of tracking files (each named after its issue), or one tracking file for any issue, named as
 * its owner likes (the #256 mapping in matrix/tracking/ is the shipped example).
 */
function loadTracking(path: string): LoadedTracking[] {
  if (existsSync(path) && statSync(path).isFile())
    return [{ file: path, issue: loadDataFile(path, TrackingIssueSchema) }];
  return loadTrackingRegistry(path);
}

interface EvidenceCliOptions {
  results: string;
  issue?: string;
  register?: string;
  tracking?: string;
  linkBase?: string;
  check?: boolean;
}

/** `evidence`: prints the completion evidence markdown; with --check, returns 1 unless the issue may close. */
export function runEvidence(
  opts: EvidenceCliOptions,
  out: (text: string) => void = (t) => process.stdout.write(t),
  cwd = process.cwd(),
): 0 | 1 {
  const registry = loadTracking(opts.tracking ? resolve(cwd, opts.tracking) : DEFAULT_TRACKING_DIR);
  const tracked = selectTracking(registry, opts.issue);
  if (!tracked)
    throw new InputError(
      `no tracking file for '${opts.issue}' (known: ${registry.map((t) => t.issue.issue).join(", ")})`,
      undefined,
      "--issue",
    );
  const results = loadResults(opts.results, cwd);
  const register = loadRegister(opts.register ? resolve(cwd, opts.register) : DEFAULT_REGISTER);
  const resultsDir = relative(cwd, dirname(resolve(cwd, opts.results)))
    .split(sep)
    .join("/");
  const markdown = renderCompletion(results, register, tracked.issue, {
    linkBase: opts.linkBase ?? (resultsDir === "" ? "." : resultsDir),
    resultsLabel: relative(cwd, resolve(cwd, opts.results)).split(sep).join("/"),
  });
  out(markdown.endsWith("\n") ? markdown : `${markdown}\n`);
  return opts.check && !judgeCompletion(results, register, tracked.issue).mayClose ? EXIT.failed : EXIT.ok;
}

export function register(program: Command, setExit: SetExit, io: CliIo): void {
  program
    .command("evidence")
    .description(
      "completion evidence for a tracking issue: each acceptance bullet met or not, from a results file",
    )
    .requiredOption("--results <file>", "results.json of a run")
    .option("--issue <ref>", "tracking issue owner/repo#N (default: the first tracking file)")
    .option("--register <file>", "register file (default: the package's matrix/register.yaml)")
    .option(
      "--tracking <file|dir>",
      "a tracking issue file (bullets → rows and cases) or a folder of them (default: the package's matrix/tracking/)",
    )
    .option("--link-base <url>", "prefix for evidence links (default: the results folder, relative to here)")
    .option("--check", "exit 1 unless every bullet is met")
    .action((opts: EvidenceCliOptions) => {
      setExit(runEvidence(opts, io.stdout, io.cwd));
    });
}
