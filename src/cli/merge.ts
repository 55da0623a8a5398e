import { relative, resolve } from "node:path";
import type { Command } from "commander";
import { BaselineSchema } from "../matrix/baseline.ts";
import { DEFAULT_REPORTERS, parseReporters, REPORTERS } from "../matrix/reports.ts";
import { DEFAULT_REGISTER, loadDataFile, loadRegister } from "../model/load.ts";
import { mergeShards } from "../run/merge.ts";
import { summaryLine } from "../run/progress.ts";
import { type CliIo, processIo, type SetExit } from "./io.ts";

interface MergeOptions {
  out?: string;
  reporter?: string;
  register?: string;
  baseline?: string;
  quiet?: boolean;
}

/** `merge`: combines `run --shard i/n` outputs into one results.json, evidence set and reports; exits like run. */
export function merge(dirs: string[], opts: MergeOptions, io: CliIo = processIo()): number {
  const outcome = mergeShards({
    inputs: dirs,
    out: opts.out,
    register: loadRegister(opts.register ? resolve(io.cwd, opts.register) : DEFAULT_REGISTER),
    reporters: parseReporters(opts.reporter ?? DEFAULT_REPORTERS.join(",")),
    baseline: opts.baseline ? loadDataFile(resolve(io.cwd, opts.baseline), BaselineSchema) : undefined,
    cwd: io.cwd,
  });
  const print = (line: string) => io.stderr(`${line}\n`);
  if (!opts.quiet) for (const line of outcome.baselineLines) print(line);
  print(summaryLine(outcome, io.cwd));
  if (!opts.quiet) {
    const files = outcome.written.map((w) => relative(outcome.outDir, w) || w);
    print(
      `mcpx-conform: merged ${dirs.length} shards; wrote results.json${files.map((f) => `, ${f}`).join("")}`,
    );
  }
  return outcome.code;
}

export function register(program: Command, setExit: SetExit, io: CliIo): void {
  program
    .command("merge")
    .description(
      "combine the outputs of run --shard 1/n … n/n into one results.json, matrix and evidence set",
    )
    .argument("<dirs...>", "shard output folders (each with results.json and evidence/)")
    .option("--out <dir>", "output folder (default ./mcpx-conform-report/)")
    .option(
      "--reporter <names>",
      `reports to write besides results.json: ${REPORTERS.join(",")} (default ${DEFAULT_REPORTERS.join(",")}; md: the full matrix, pr-comment: a pull-request comment within GitHub's size limit)`,
    )
    .option("--register <file>", "register file (default matrix/register.yaml)")
    .option("--baseline <file>", "expected failures (YAML): baselined cells do not fail the merge")
    .option("--quiet", "print only the summary line")
    .action((dirs: string[], opts: MergeOptions) => {
      setExit(merge(dirs, opts, io));
    });
}
