/**
 * npm run matrix:refresh — re-runs every real relay target (targets/real/*.yaml) with the fixed seed and rewrites
 * its committed matrix under matrix/targets/<name>/: results.json, matrix.md and the evidence they link to.
 * A run that finds failing cells is normal for a real relay (exit 1); only a harness or usage error stops here.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { loadTarget } from "../src/model/load.ts";
import { BIN, MATRIX_TARGETS, ROOT, realTargets, runArgs } from "./real-matrices.ts";

const only = process.argv.slice(2);
for (const profile of realTargets()) {
  const { name } = loadTarget(join(ROOT, profile));
  if (only.length > 0 && !only.includes(name)) continue;
  const out = join(MATRIX_TARGETS, name);
  rmSync(join(ROOT, out), { recursive: true, force: true });
  const started = performance.now();
  const run = spawnSync(process.execPath, [BIN, ...runArgs(profile, out)], { cwd: ROOT, stdio: "inherit" });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (run.status !== 0 && run.status !== 1) {
    process.stderr.write(
      `matrix:refresh: ${profile} ended with exit ${run.status ?? run.signal} after ${seconds} s\n`,
    );
    process.exit(run.status ?? 3);
  }
  process.stderr.write(`matrix:refresh: ${name} → ${out} (${seconds} s)\n`);
}
