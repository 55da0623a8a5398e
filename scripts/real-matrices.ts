import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse } from "yaml";
import type { Results } from "../src/model/results.ts";

/**
 * The committed matrices of the real relays (targets/real/*.yaml): where they live, the seed they are made with,
 * and the comparison CI makes between them and a fresh run. `npm run matrix:refresh` rewrites them.
 */

export const ROOT = resolve(import.meta.dirname, "..");
export const BIN = join(ROOT, "bin/mcpx-conform.js");
export const REAL_TARGETS = "targets/real";
export const MATRIX_TARGETS = "matrix/targets";
/** A fixed seed: canaries (and so evidence) are the same from one refresh to the next. */
export const SEED = 1;

/** Profile files of the real relays, relative to the project root, in name order. */
export function realTargets(): string[] {
  return readdirSync(join(ROOT, REAL_TARGETS))
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => `${REAL_TARGETS}/${f}`);
}

/**
 * `run` arguments that (re)make one target's matrix into `out`: `--stable`, so results.json, matrix.md and the
 * evidence hold no time and a refresh rewrites only what changed (two refreshes in a row leave git status clean).
 */
export function runArgs(profile: string, out: string): string[] {
  return [
    "run",
    "--target",
    profile,
    "--out",
    out,
    "--seed",
    String(SEED),
    "--reporter",
    "md",
    "--stable",
    "--quiet",
  ];
}

/** Cell statuses keyed `row@era/side`: what a matrix says, without timestamps, reasons or evidence. */
export function cellStatuses(results: Results): Map<string, string> {
  return new Map(results.cells.map((c) => [`${c.row}@${c.era}/${c.side}`, c.status]));
}

/** Lines describing every cell whose status differs between the committed and the fresh results. */
export function statusDifferences(committed: Results, fresh: Results): string[] {
  const before = cellStatuses(committed);
  const after = cellStatuses(fresh);
  const out: string[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(key);
    const b = after.get(key);
    if (a !== b) out.push(`${key}: committed ${a ?? "(no cell)"}, now ${b ?? "(no cell)"}`);
  }
  return out.sort();
}

/** The toolchain `npm run test:setup` needs for each install folder a profile may run a relay from. */
const INSTALL_FOLDERS: Record<string, string> = {
  ".venv-relays": "python3",
  ".go-relays": "go",
  ".cargo-relays": "cargo",
  ".java-relays": "mvn and java",
};

/**
 * Why a profile's relay cannot run here, if it cannot: an argv item inside one of test:setup's install folders
 * (resolved like the harness resolves it, relative to the profile) that is not there. Its tests are then skipped,
 * saying so, never failed: a machine without that toolchain still runs the rest.
 */
export function missingRelay(profile: string): string | undefined {
  const file = resolve(ROOT, profile);
  const { command } = parse(readFileSync(file, "utf8")) as { command: string[] };
  for (const arg of command) {
    const folder = Object.keys(INSTALL_FOLDERS).find((f) => arg.includes(`${f}/`));
    if (folder === undefined) continue;
    const path = resolve(dirname(file), arg);
    if (!existsSync(path))
      return `${path.slice(ROOT.length + 1)} is not installed: \`npm run test:setup\` installs it where ${INSTALL_FOLDERS[folder]} is on PATH`;
  }
  return undefined;
}
