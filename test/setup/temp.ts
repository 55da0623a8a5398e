/**
 * Every test file runs with its own temporary root: TMPDIR points at a fresh private folder for the file (so
 * `tmpdir()`, `tempDir()`, any `mkdtempSync(join(tmpdir(), …))`, the harness's own folders and every child process
 * the file starts create their folders inside it), and the folder is removed once the file's tests are done.
 * A test file therefore leaves nothing in the real temporary folder; test/setup/temp.e2e.test.ts holds this.
 * The pool is `forks`, one process per file, so changing process.env here touches no other file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const root = mkdtempSync(join(tmpdir(), "mcpx-conform-test-"));
process.env.TMPDIR = root;

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});
