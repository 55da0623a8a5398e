import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The repository's root. */
export const ROOT = resolve(import.meta.dirname, "../..");

/**
 * A fresh folder under `tmpdir()`. In a test file that is the file's own temporary root (test/setup/temp.ts), which
 * is removed with everything in it after the file's tests, so callers need not clean up.
 */
export function tempDir(prefix = "mcpx-conform-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
