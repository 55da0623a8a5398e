import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { Argument, type Command } from "commander";
import { InputError } from "../model/errors.ts";
import {
  DEFAULT_CASES,
  DEFAULT_REGISTER,
  type LoadedCase,
  loadCases,
  loadRegister,
  loadTarget,
  PROJECT_ROOT,
} from "../model/load.ts";
import { type Register, rowSeverity } from "../model/register.ts";
import { ERAS, type Era } from "../protocol/eras.ts";
import { EXIT } from "./errors.ts";
import type { CliIo, SetExit } from "./io.ts";

export const DEFAULT_TARGETS = join(PROJECT_ROOT, "targets");

/** "2024-11-05..2025-06-18,2026-07-28": runs of consecutive eras joined by "..". */
export function compactEras(eras: readonly Era[]): string {
  const idx = [...new Set(eras)].map((e) => ERAS.indexOf(e)).sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1] === idx[j]! + 1) j++;
    runs.push(i === j ? ERAS[idx[i]!]! : `${ERAS[idx[i]!]}..${ERAS[idx[j]!]}`);
    i = j + 1;
  }
  return runs.join(",");
}

/** Left-aligned columns; the last column is never padded (it may hold long text). */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((r) => (r[c] ?? "").length)));
  return all
    .map((r) =>
      r
        .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

export interface RowListing {
  id: string;
  title: string;
  side: string;
  level: string;
  severity: string;
  eras: Era[];
  cases: number;
  na?: string;
  pending?: string;
  tracking?: string[];
}

export function listRows(register: Register, cases: readonly LoadedCase[]): RowListing[] {
  return register.rows.map((row) => ({
    id: row.id,
    title: row.title,
    side: row.side,
    level: row.level,
    severity: rowSeverity(row),
    eras: row.eras,
    cases: cases.filter((c) => c.row === row.id).length,
    ...(row.na ? { na: row.na } : {}),
    ...(row.pending ? { pending: row.pending } : {}),
    ...(row.tracking ? { tracking: row.tracking } : {}),
  }));
}

export interface CaseListing {
  row: string;
  id: string;
  side: string;
  eras: Era[];
  title: string;
  file: string;
}

export function listCases(register: Register, cases: readonly LoadedCase[]): CaseListing[] {
  const rows = new Map(register.rows.map((r) => [r.id, r]));
  return cases.map((c) => {
    const row = rows.get(c.row)!;
    return {
      row: c.row,
      id: c.id,
      side: c.side ?? row.side,
      eras: c.eras ?? row.eras,
      title: c.title,
      file: c.file,
    };
  });
}

export interface TargetListing {
  file: string;
  name: string;
  description?: string;
}

/** Profile files under `dir`, recursively (*.yaml, *.yml, *.json), sorted. */
export function findProfiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ya?ml|json)$/.test(name)) found.push(path);
    }
  };
  walk(dir);
  return found;
}

function shown(file: string): string {
  return file.startsWith(PROJECT_ROOT) ? relative(PROJECT_ROOT, file) : file;
}

function requireDir(dir: string, option: string, cwd: string): string {
  const path = resolve(cwd, dir);
  if (!existsSync(path) || !statSync(path).isDirectory())
    throw new InputError("not a directory", path, option);
  return path;
}

interface ListOptions {
  json?: boolean;
  register?: string;
  cases?: string;
  targets?: string;
}

// Long: one commander declaration of the three list subcommands and their options, read top to bottom.
export function register(program: Command, setExit: SetExit, io: CliIo): void {
  program
    .command("list")
    .description("list register rows, cases or target profiles")
    .addArgument(new Argument("[what]", "what to list").choices(["rows", "cases", "targets"]).default("rows"))
    .option("--json", "print a JSON array instead of a table")
    // Defaults are said in words, not as paths: help must not print where this copy happens to be installed.
    .option("--register <file>", "register file (default: the package's matrix/register.yaml)")
    .option("--cases <dir>", "case corpus directory (default: the package's cases/)")
    .option("--targets <dir>", "target profile directory (default: the package's targets/)")
    .action((what: "rows" | "cases" | "targets", opts: ListOptions) => {
      const print = (json: unknown, text: string): void => {
        io.stdout(opts.json ? `${JSON.stringify(json, null, 2)}\n` : text ? `${text}\n` : "");
      };
      if (what === "targets") {
        const listed: TargetListing[] = [];
        for (const file of findProfiles(requireDir(opts.targets ?? DEFAULT_TARGETS, "--targets", io.cwd))) {
          try {
            const profile = loadTarget(file);
            listed.push({
              file: shown(file),
              name: profile.name,
              ...(profile.description ? { description: profile.description } : {}),
            });
          } catch (error) {
            if (!(error instanceof InputError)) throw error;
            const line = new InputError(error.message, shown(file), error.field).oneLine();
            io.stderr(`mcpx-conform: ${line}\n`);
            setExit(EXIT.usage);
          }
        }
        print(
          listed,
          table(
            ["name", "file", "description"],
            listed.map((t) => [t.name, t.file, t.description ?? ""]),
          ),
        );
        return;
      }
      const reg = loadRegister(opts.register ? resolve(io.cwd, opts.register) : DEFAULT_REGISTER);
      const cases = loadCases(reg, requireDir(opts.cases ?? DEFAULT_CASES, "--cases", io.cwd));
      if (what === "rows") {
        const rows = listRows(reg, cases);
        print(
          rows,
          table(
            ["id", "side", "level", "eras", "cases"],
            rows.map((r) => [
              r.id,
              r.side,
              r.level,
              compactEras(r.eras),
              r.na ? `n/a: ${r.na}` : r.pending ? `pending: ${r.pending}` : String(r.cases),
            ]),
          ),
        );
      } else {
        const listed = listCases(reg, cases);
        print(
          listed,
          table(
            ["row/case", "eras", "side", "title"],
            listed.map((c) => [`${c.row}/${c.id}`, compactEras(c.eras), c.side, c.title]),
          ),
        );
      }
    });
}
