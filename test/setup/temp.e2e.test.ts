import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.ts";

/**
 * No leftovers: a run of a test file leaves nothing in the temporary folder. Each file below is run by a child
 * vitest whose TMPDIR is an empty folder of its own; afterwards that folder must be empty again. leaky.e2e.test.ts makes
 * folders four ways and cleans up none, so this fails as soon as test/setup/temp.ts stops doing its job; the others
 * are real test files that make temporary folders through the helpers and the harness.
 */
const FILES = [
  "test/setup/leaky.e2e.test.ts",
  "test/matrix/reports.e2e.test.ts",
  "test/harness/loopback.e2e.test.ts",
];

describe("a test file leaves no temporary folder behind", () => {
  it.each(FILES)("%s", (file) => {
    const sandbox = mkdtempSync(join(tmpdir(), "mcpx-conform-leftovers-"));
    try {
      const run = spawnSync(
        process.execPath,
        [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--project", "e2e", file],
        { cwd: ROOT, env: { ...process.env, TMPDIR: sandbox }, encoding: "utf8", timeout: 120_000 },
      );
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(readdirSync(sandbox), "left in the temporary folder").toEqual([]);
    } finally {
      rmSync(sandbox, { recursive: true, force: true });
    }
  });
});
