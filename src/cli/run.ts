import { relative } from "node:path";
import type { Command } from "commander";
import { REPORTERS } from "../matrix/reports.ts";
import { type RunOptions, resolveRunConfig } from "../run/config.ts";
import { type RunOutcome, runPipeline } from "../run/pipeline.ts";
import type { SetExit } from "./commands.ts";

export { DEFAULT_TARGET, type RunOptions, toolInfo } from "../run/config.ts";

/** The summary line every run prints, even with --quiet. */
function summaryLine(outcome: RunOutcome): string {
  const s = outcome.results.summary;
  const counts = ["pass", "fail", "warn", "partial", "error", "not-run", "n/a"].map(
    (k) => `${s[k] ?? 0} ${k}`,
  );
  const where = relative(process.cwd(), outcome.outDir) || outcome.outDir;
  return `mcpx-conform: ${outcome.results.cells.length} cells: ${counts.join(", ")} → ${where}`;
}

/** `run`: checks the options, runs the pipeline (src/run/), prints what it did; returns the exit code and results. */
export async function run(opts: RunOptions): Promise<RunOutcome> {
  const print = (line: string) => process.stderr.write(`${line}\n`);
  const log = opts.quiet ? undefined : print;
  const outcome = await runPipeline(resolveRunConfig(opts), log ? { log } : {});
  for (const line of outcome.baselineLines) log?.(line);
  print(summaryLine(outcome));
  const files = outcome.written.map((w) => relative(outcome.outDir, w) || w);
  log?.(`mcpx-conform: wrote results.json${files.map((f) => `, ${f}`).join("")}`);
  return outcome;
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
      setExit((await run(opts)).code);
    });
}
