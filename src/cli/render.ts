import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { isRelativePath } from "../matrix/escape.ts";
import { renderRegister } from "../matrix/register-md.ts";
import { DEFAULT_REPORTERS, parseReporters, REPORTERS, writeReports } from "../matrix/reports.ts";
import { InputError } from "../model/errors.ts";
import { type Evidence, EvidenceSchema } from "../model/evidence.ts";
import { DEFAULT_REGISTER, loadDataFile, loadRegister } from "../model/load.ts";
import { type Results, ResultsSchema } from "../model/results.ts";
import { EXIT } from "./errors.ts";
import type { CliIo, SetExit } from "./io.ts";

/** Reads and validates a results.json (relative to `cwd`); problems are one-line InputErrors (exit 2) naming it as given. */
export function loadResults(file: string, cwd = process.cwd()): Results {
  return loadDataFile(resolve(cwd, file), ResultsSchema, file);
}

export interface LoadedEvidences {
  /** Keyed by the evidence path as written in results.json. */
  evidences: Record<string, Evidence>;
  /** Evidence files that are referenced but absent (reported, not fatal: the page says so). */
  missing: string[];
}

/**
 * Reads every evidence transcript a results file refers to (paths relative to results.json). A transcript
 * that is not valid, or whose bytes do not match the sha256 recorded in results.json, is an InputError.
 */
export function loadEvidences(resultsFile: string, results: Results, cwd = process.cwd()): LoadedEvidences {
  const base = dirname(resolve(cwd, resultsFile));
  const evidences: Record<string, Evidence> = {};
  const missing: string[] = [];
  for (const [ci, cell] of results.cells.entries()) {
    for (const [ki, c] of cell.cases.entries()) {
      if (!c.evidence || Object.hasOwn(evidences, c.evidence)) continue;
      const field = `cells[${ci}].cases[${ki}].evidence`;
      if (!isRelativePath(c.evidence) || c.evidence.split(/[\\/]/).includes(".."))
        throw new InputError(
          `evidence path '${c.evidence}' must be relative to results.json, without '..'`,
          resultsFile,
          field,
        );
      const file = join(base, c.evidence);
      let bytes: Buffer;
      try {
        bytes = readFileSync(file);
      } catch {
        missing.push(c.evidence);
        continue;
      }
      if (c.evidenceSha256) {
        const sha = createHash("sha256").update(bytes).digest("hex");
        if (sha !== c.evidenceSha256.toLowerCase())
          throw new InputError(
            `sha256 ${sha} does not match ${c.evidenceSha256} recorded in results.json`,
            file,
          );
      }
      evidences[c.evidence] = loadDataFile(file, EvidenceSchema);
    }
  }
  return { evidences, missing };
}

interface RenderOptions {
  results: string[];
  out?: string;
  reporter?: string[];
  register?: string;
  registerMd?: string;
  linkBase?: string;
}

/** `render`: re-renders reports from existing results (no relay is started); relative paths mean `cwd`. */
export function render(
  opts: RenderOptions,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
  cwd = process.cwd(),
): void {
  const files = opts.results;
  if (files.length === 0) throw new InputError("expected at least one results file", undefined, "--results");
  const reporters = opts.reporter ? parseReporters(opts.reporter) : [...DEFAULT_REPORTERS];
  if (opts.out && files.length > 1 && reporters.length > 0)
    throw new InputError(
      "--out needs a single --results file (each run's reports go next to its results.json)",
      undefined,
      "--out",
    );
  const register = loadRegister(opts.register ? resolve(cwd, opts.register) : DEFAULT_REGISTER);
  const all: Results[] = [];
  for (const file of files) {
    const results = loadResults(file, cwd);
    all.push(results);
    if (reporters.length === 0) continue;
    const { evidences, missing } = loadEvidences(file, results, cwd);
    for (const path of missing)
      log(`mcpx-conform: warning: evidence file ${path} is missing; matrix.html shows no transcript for it`);
    const dir = resolve(cwd, opts.out ?? dirname(file));
    const links = opts.linkBase ? { linkBase: opts.linkBase } : {};
    for (const path of writeReports(dir, results, register, evidences, reporters, links))
      log(`wrote ${relative(cwd, path) || path}`);
  }
  if (opts.registerMd) {
    writeFileSync(resolve(cwd, opts.registerMd), renderRegister(register, all));
    log(`wrote ${opts.registerMd}`);
  }
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function register(program: Command, setExit: SetExit, io: CliIo): void {
  program
    .command("render")
    .description(
      "re-render matrix.md, pr-comment.md, matrix.html, junit.xml (and register.md) from existing results",
    )
    .requiredOption("--results <file>", "results.json (repeat for register.md over several targets)", collect)
    .option("--out <dir>", "output folder (default: next to results.json)")
    .option(
      "--reporter <names>",
      `reporters, comma-separated: ${REPORTERS.join(", ")} (default ${DEFAULT_REPORTERS.join(",")}); md is the full matrix, pr-comment a pull-request comment within GitHub's 65,536-character limit`,
      collect,
    )
    .option("--register <file>", "register file (default matrix/register.yaml)")
    .option("--register-md <file>", "also write register.md with each results file's status per row")
    .option(
      "--link-base <url>",
      "evidence links in matrix.md and pr-comment.md point under this https URL or folder (default: relative to results.json)",
    )
    .action((opts: RenderOptions) => {
      render(opts, (l) => io.stderr(`${l}\n`), io.cwd);
      setExit(EXIT.ok);
    });
}
