import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeTempDir } from "../../src/harness/processes.ts";
import { tempDir } from "../helpers/cli.ts";

/**
 * A careless test file: it makes temporary folders in every way the suite does (the helper, a bare mkdtempSync, the
 * harness's own) and cleans none of them up. test/setup/temp.e2e.test.ts runs it and checks that nothing is left.
 */
describe("a test file that never cleans up", () => {
  it("makes temporary folders and leaves them", () => {
    const made = [
      tempDir(),
      mkdtempSync(join(tmpdir(), "mcpx-validate-")),
      makeTempDir(),
      mkdtempSync(join(tmpdir(), "anything-")),
    ];
    for (const dir of made) {
      writeFileSync(join(dir, "file"), "x");
      expect(existsSync(dir)).toBe(true);
    }
  });
});
