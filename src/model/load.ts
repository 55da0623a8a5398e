import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ZodType } from "zod";
import { type Case, CaseSchema } from "./case.ts";
import { InputError, zodIssueLine } from "./errors.ts";
import { type Register, type RegisterRow, RegisterSchema } from "./register.ts";
import { type TargetProfile, TargetProfileSchema } from "./target.ts";
import { ParsedYamlCache } from "./yaml-cache.ts";

/**
 * The project root (where package.json, cases/ and matrix/ live): the nearest folder above this module with
 * mcpx-conform's package.json. Looked up rather than fixed, since this module also runs compiled into dist/cli/ and
 * its chunks.
 */
export const PROJECT_ROOT = findProjectRoot(dirname(fileURLToPath(import.meta.url)));

function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      if (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name === "mcpx-conform") return dir;
    } catch {
      // no package.json here (or not ours): look further up
    }
    if (dirname(dir) === dir) return resolve(from, "../..");
  }
}
export const DEFAULT_REGISTER = join(PROJECT_ROOT, "matrix/register.yaml");
export const DEFAULT_CASES = join(PROJECT_ROOT, "cases");
/** Parsed YAML by content, kept in the build folder (see yaml-cache.ts). */
const YAML = new ParsedYamlCache(join(PROJECT_ROOT, "dist/parsed-yaml.json"));

/**
 * Reads a YAML or JSON file and validates it; any problem is an InputError naming the file (as `file`, by default
 * the path read) and field.
 */
export function loadDataFile<T>(path: string, schema: ZodType<T>, file = path): T {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new InputError(`cannot read file (${(error as NodeJS.ErrnoException).code ?? "error"})`, file);
  }
  let data: unknown;
  try {
    data = file.endsWith(".json") ? JSON.parse(text) : YAML.parse(text);
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error)).split("\n")[0];
    throw new InputError(`not valid ${file.endsWith(".json") ? "JSON" : "YAML"}: ${first}`, file);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const { field, message } = zodIssueLine(parsed.error);
    throw new InputError(
      // zod 4 says "Too small: expected …", "Invalid option: expected …": keep one "expected".
      `expected ${message}`.replace(/^expected (?:[A-Z][a-z]*(?: [a-z]+)*: )?expected/, "expected"),
      file,
      field,
    );
  }
  return parsed.data;
}

export function loadRegister(file = DEFAULT_REGISTER): Register {
  const register = loadDataFile(file, RegisterSchema);
  YAML.flush();
  const seen = new Set<string>();
  register.rows.forEach((row, i) => {
    if (seen.has(row.id)) throw new InputError(`duplicate row id '${row.id}'`, file, `rows[${i}].id`);
    seen.add(row.id);
  });
  return register;
}

export interface LoadedCase extends Case {
  /** Path of the case file, relative to the project root when inside it. */
  file: string;
}

/** Loads every case under `dir/<row-id>/*.yaml`, checking each against the register. */
export function loadCases(register: Register, dir = DEFAULT_CASES): LoadedCase[] {
  const rows = new Map<string, RegisterRow>(register.rows.map((r) => [r.id, r]));
  const cases: LoadedCase[] = [];
  const ids = new Set<string>();
  for (const folder of readdirSync(dir).sort()) {
    const folderPath = join(dir, folder);
    if (!statSync(folderPath).isDirectory()) continue;
    for (const name of readdirSync(folderPath).sort()) {
      if (!/\.ya?ml$/.test(name)) continue;
      const file = join(folderPath, name);
      const shown = file.startsWith(PROJECT_ROOT) ? relative(PROJECT_ROOT, file) : file;
      const c = loadDataFile(file, CaseSchema);
      const row = rows.get(c.row);
      if (!row) throw new InputError(`unknown register row '${c.row}'`, shown, "row");
      if (c.row !== folder)
        throw new InputError(`row '${c.row}' does not match its folder '${folder}'`, shown, "row");
      if (basename(name).replace(/\.ya?ml$/, "") !== c.id)
        throw new InputError(`id '${c.id}' does not match the file name`, shown, "id");
      if (row.na)
        throw new InputError(`row '${c.row}' is n/a for relays and cannot have cases`, shown, "row");
      for (const era of c.eras ?? []) {
        if (!row.eras.includes(era))
          throw new InputError(
            `era ${era} is not an era of row '${row.id}' (${row.eras.join(", ")})`,
            shown,
            "eras",
          );
      }
      if (row.side === "both" && !c.side)
        throw new InputError(`row '${row.id}' is on both sides: say which (client|server)`, shown, "side");
      const key = `${c.row}/${c.id}`;
      if (ids.has(key)) throw new InputError(`duplicate case id '${c.id}'`, shown, "id");
      ids.add(key);
      cases.push({ ...c, file: shown });
    }
  }
  YAML.flush();
  return cases;
}

export function loadTarget(file: string): TargetProfile {
  return loadDataFile(file, TargetProfileSchema);
}
