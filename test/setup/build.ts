import { execFileSync } from "node:child_process";
import { join } from "node:path";

/** Set once the build is done: a vitest that a test starts (test/setup/temp.e2e.test.ts) inherits it and builds no more. */
const BUILT = "MCPX_CONFORM_TEST_BUILT";

/**
 * Global setup: compiles the CLI before any test runs, so every relay and CLI process the tests spawn starts from
 * the compiled build of the sources under test (bin/mcpx-conform.js falls back to tsx when the build is stale).
 */
export default function setup(): void {
  if (process.env[BUILT] === "1") return;
  execFileSync(process.execPath, [join(import.meta.dirname, "../../scripts/build.mjs")], {
    stdio: "inherit",
  });
  process.env[BUILT] = "1";
}
