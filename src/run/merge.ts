import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { buildCells, type JudgedCase, summarize } from "../judge/cells.ts";
import type { Baseline } from "../matrix/baseline.ts";
import type { ReporterName } from "../matrix/reports.ts";
import { InputError } from "../model/errors.ts";
import { EvidenceSchema } from "../model/evidence.ts";
import { loadDataFile } from "../model/load.ts";
import type { Register } from "../model/register.ts";
import { type Results, ResultsSchema } from "../model/results.ts";
import { stableResults } from "../model/stable.ts";
import { ERAS } from "../protocol/eras.ts";
import { DEFAULT_OUT } from "./config.ts";
import { lateRerunsOf } from "./late-reruns.ts";
import { evidenceFromDisk, type RunOutcome, writeOutcome } from "./pipeline.ts";

export interface MergeConfig {
  /** Shard output folders (each holds results.json and evidence/), or their results.json files. */
  inputs: string[];
  out: string | undefined;
  register: Register;
  reporters: ReporterName[];
  baseline: Baseline | undefined;
  /** The folder relative inputs and --out mean, and messages are relative to (default: the process's). */
  cwd?: string;
}

interface ShardInput {
  dir: string;
  file: string;
  results: Results;
}

function readShard(input: string, cwd: string): ShardInput {
  const path = resolve(cwd, input);
  const file = path.endsWith(".json") ? path : join(path, "results.json");
  if (!existsSync(file))
    throw new InputError("no results.json here (expected a run --shard output folder)", input);
  const results = loadDataFile(file, ResultsSchema);
  if (!results.shard)
    throw new InputError("not a shard's results (written without run --shard i/n)", file, "shard");
  return { dir: dirname(file), file, results };
}

const describe = (r: Results) =>
  `${r.tool.version} / ${r.target.name}${r.target.profile ? ` (${r.target.profile})` : ""} / seed ${r.seed} / ${r.shard?.count} shards / eras ${(r.eras ?? []).join(",")}${r.stable ? " / --stable" : ""}`;

/** The shards must be slices of one run: same tool version, target, seed, eras and count, each index once. */
function checkShards(shards: ShardInput[], cwd: string): void {
  const first = shards[0]!;
  const sameRun = (r: Results) => describe(r) === describe(first.results);
  for (const s of shards)
    if (!sameRun(s.results))
      throw new InputError(
        `is not from the same run as ${relative(cwd, first.file)}: ${describe(s.results)} against ${describe(first.results)}`,
        s.file,
      );
  const count = first.results.shard!.count;
  const seen = new Map<number, string>();
  for (const s of shards) {
    const other = seen.get(s.results.shard!.index);
    if (other)
      throw new InputError(
        `shard ${s.results.shard!.index}/${count} given twice (also ${other})`,
        s.file,
        "shard",
      );
    seen.set(s.results.shard!.index, s.file);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length)
    throw new InputError(
      `missing shard${missing.length > 1 ? "s" : ""} ${missing.map((i) => `${i}/${count}`).join(", ")}`,
    );
}

/** Copies a file a shard's results refer to into the merged folder, checking its sha256 when one is recorded. */
function copyInto(shard: ShardInput, rel: string, outDir: string, sha?: string): void {
  if (rel.split(/[\\/]/).includes("..") || rel.startsWith("/"))
    throw new InputError(`path '${rel}' must be relative to results.json, without '..'`, shard.file);
  const from = join(shard.dir, rel);
  const to = join(outDir, rel);
  if (!existsSync(from))
    throw new InputError(`${rel} is missing (referred to by this shard's results)`, shard.file);
  if (sha) {
    const got = createHash("sha256").update(readFileSync(from)).digest("hex");
    if (got !== sha.toLowerCase())
      throw new InputError(`sha256 ${got} does not match ${sha} recorded in results.json`, from);
  }
  if (resolve(from) === resolve(to)) return;
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
}

/**
 * `merge`: combines the outputs of `run --shard 1/n … n/n` into one results.json, evidence set and reports, as one
 * unsharded run would have written them: every cell is rebuilt from the union of the shards' case results.
 */
export function mergeShards(config: MergeConfig): RunOutcome {
  if (config.inputs.length === 0)
    throw new InputError("expected at least one shard folder", undefined, "DIR");
  const cwd = config.cwd ?? process.cwd();
  const shards = config.inputs.map((input) => readShard(input, cwd));
  checkShards(shards, cwd);
  shards.sort((a, b) => a.results.shard!.index - b.results.shard!.index);
  const first = shards[0]!.results;
  const startedAt = shards.map((s) => s.results.startedAt ?? "").sort()[0]!;
  const outDir = resolve(cwd, config.out ?? DEFAULT_OUT);
  const judged: JudgedCase[] = [];
  // Each transcript is checked as it is copied, then let go: the reports read them back from the folder.
  const copied = new Set<string>();
  const rows = new Set<string>();
  for (const shard of shards) {
    for (const cell of shard.results.cells) {
      rows.add(cell.row);
      for (const c of cell.cases) {
        judged.push({
          row: cell.row,
          era: cell.era,
          side: cell.side,
          result: c,
          ...(c.covers ? { covers: c.covers } : {}),
        });
        if (!c.evidence || copied.has(c.evidence)) continue;
        copyInto(shard, c.evidence, outDir, c.evidenceSha256);
        loadDataFile(join(outDir, c.evidence), EvidenceSchema);
        copied.add(c.evidence);
      }
    }
    for (const f of shard.results.fuzz ?? []) {
      if (f.evidence) copyInto(shard, f.evidence, outDir);
      if (f.caseFile) copyInto(shard, f.caseFile, outDir);
    }
  }
  // Shards finish in any order: cases sit in a cell by id, so one merge of the same shards is byte-for-byte another.
  judged.sort((a, b) => (a.result.id < b.result.id ? -1 : a.result.id > b.result.id ? 1 : 0));
  const eras = ERAS.filter((e) => (first.eras ?? []).includes(e));
  const cells = buildCells(config.register, judged, eras, rows);
  const fuzz = shards.flatMap((s) => s.results.fuzz ?? []);
  const { shard: _shard, lateReruns: _late, ...whole } = first;
  const merged: Results = {
    ...whole,
    startedAt,
    finishedAt: shards
      .map((s) => s.results.finishedAt ?? s.results.startedAt)
      .sort()
      .at(-1)!,
    cells,
    summary: summarize(cells),
    ...lateRerunsOf(cells),
    ...(fuzz.length ? { fuzz } : {}),
  };
  // Stable shards (run --shard --stable; all or none, checkShards) merge into stable results: no times.
  const results = first.stable ? stableResults(merged) : merged;
  return { ...writeOutcome(config, results, outDir, evidenceFromDisk(outDir)), results, outDir };
}
