import { relative } from "node:path";
import type { Command } from "commander";
import { DEFAULT_REPORTERS, REPORTERS } from "../matrix/reports.ts";
import { type RunOptions, resolveRunConfig } from "../run/config.ts";
import { type RunOutcome, runPipeline } from "../run/pipeline.ts";
import { colorSupported, createProgress, summaryLine } from "../run/progress.ts";
import { interruptible, keptDirsLine, SIGNAL_EXIT } from "../run/signals.ts";
import { type CliIo, processIo, type SetExit } from "./io.ts";

export { DEFAULT_TARGET, type RunOptions, toolInfo } from "../run/config.ts";

/**
 * `run`: checks the options, runs the pipeline (src/run/), prints what it did; returns the exit code and results.
 * Its SIGINT/SIGTERM handlers are in place only while the pipeline runs.
 */
export async function run(opts: RunOptions, io: CliIo = processIo()): Promise<RunOutcome> {
  const mode = opts.quiet ? "quiet" : io.isTTY ? "tty" : "lines";
  const progress = createProgress({
    mode,
    color: colorSupported(process.env, io.isTTY),
    write: io.stderr,
    ...(io.columns ? { columns: io.columns } : {}),
  });
  const log = opts.quiet ? undefined : (line: string) => progress.onEvent({ kind: "log", line });
  const config = resolveRunConfig({ ...opts, cwd: io.cwd });
  // SIGINT/SIGTERM: the results so far are written and every relay reaped, then exit 130/143.
  const { value: outcome, interrupted } = await interruptible(
    (signal) =>
      runPipeline(config, { ...(log ? { log, onEvent: progress.onEvent } : {}), signal }).finally(
        progress.end,
      ),
    (line) => io.stderr(`${line}\n`),
  );
  if (interrupted) outcome.code = SIGNAL_EXIT[interrupted];
  for (const line of outcome.baselineLines) log?.(line);
  io.stderr(`${summaryLine(outcome, io.cwd)}\n`);
  const files = outcome.written.map((w) => `, ${relative(outcome.outDir, w) || w}`).join("");
  log?.(`mcpx-conform: wrote results.json${files}`);
  const kept = keptDirsLine();
  if (kept) io.stderr(`${kept}\n`);
  return outcome;
}

export function register(program: Command, setExit: SetExit, io: CliIo): void {
  program
    .command("run")
    .description("drive a relay from both ends with the case corpus and write results, matrix and evidence")
    .option("--target <file>", "target profile (default: the embedded reference relay)")
    .option("--era <eras>", "comma-separated eras to run")
    .option("--rows <ids>", "comma-separated register rows to run")
    .option(
      "--case <globs>",
      "comma-separated case id (or row/id) globs: run only these (round trips still run)",
    )
    .option("--out <dir>", "output folder (default ./mcpx-conform-report/, its evidence/ replaced)")
    .option("--seed <n>", "seed for canaries and fuzzing")
    .option("--register <file>", "register file (default matrix/register.yaml)")
    .option("--cases <dir>", "case corpus folder (default cases/)")
    .option(
      "--reporter <names>",
      `reports to write besides results.json: ${REPORTERS.join(",")} (default ${DEFAULT_REPORTERS.join(",")}; md: the full matrix, pr-comment: a pull-request comment within GitHub's size limit)`,
    )
    .option("--baseline <file>", "expected failures (YAML): baselined cells do not fail the run")
    .option("--fuzz <runs>", "also fuzz differentially: this many generated exchanges per era")
    .option("--shard <i/n>", "run only slice i of n (balanced by expected duration); combine with merge")
    .option("--concurrency <n>", "lanes driving relay sessions (default: the core count, at least 2; 1: one)")
    .option("--bail", "stop at the first failing cell (the cases not run are recorded as skipped)")
    .option(
      "--stable",
      "record no wall-clock or measured time in results.json and evidence (no start time, durations, frame times), so a rerun with the same seed writes the same bytes: for files committed to git",
    )
    .option(
      "--max-evidence-frame-bytes <n>",
      "the most bytes of one frame an evidence file keeps (default 65536, at least 1024): a longer frame keeps its head, its true size and the sha256 of the whole frame",
    )
    .option("--quiet", "print only the summary line")
    .option("--keep", "keep the relays' temporary folders (listed at the end)")
    .action(async (opts: RunOptions) => {
      setExit((await run(opts, io)).code);
    });
}
