/**
 * npm run docs:compare — the comparison page in docs/ (compare.md, compare.html): the committed real-relay matrices
 * (matrix/targets/*) beside fresh runs of the two correct relays (the reference relay with its review surface, and
 * the independent relay), in the eras the real relays were run in, with the same seed. Nothing with a clock in it is
 * written, so the page changes only when a verdict does.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadDataFile } from "../src/model/load.ts";
import type { Results } from "../src/model/results.ts";
import { ResultsSchema } from "../src/model/results.ts";
import { BIN, MATRIX_TARGETS, ROOT, SEED } from "./real-matrices.ts";

const CORRECT = ["targets/reference-review.yaml", "targets/independent.yaml"];
const committed = readdirSync(join(ROOT, MATRIX_TARGETS))
  .sort()
  .map((name) => join(MATRIX_TARGETS, name, "results.json"));
const eras = [
  ...new Set(committed.flatMap((f) => (loadDataFile(join(ROOT, f), ResultsSchema) as Results).eras ?? [])),
].sort();
const work = mkdtempSync(join(tmpdir(), "mcpx-conform-compare-"));
try {
  const fresh = CORRECT.map((profile, i) => {
    const out = join(work, String(i));
    // Results only (no reports): the page links no throw-away folder.
    const args = ["run", "--target", profile, "--era", eras.join(","), "--seed", String(SEED), "--out", out];
    const run = spawnSync(process.execPath, [BIN, ...args, "--reporter", "json", "--quiet"], {
      cwd: ROOT,
      stdio: "inherit",
    });
    // A failing cell is the page's to show (exit 1 is a verdict, not a broken run).
    if (run.status !== 0 && run.status !== 1) throw new Error(`${profile}: exit ${run.status}`);
    return join(out, "results.json");
  });
  const title = `mcpx-conform: two correct relays and four real ones (${eras.join(", ")})`;
  const args = ["compare", ...fresh, ...committed, "--out", "docs", "--title", title];
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 3);
} finally {
  rmSync(work, { recursive: true, force: true });
}
