import { execFileSync } from "node:child_process";
import { join } from "node:path";

/**
 * Global setup: compiles the CLI before any test runs, so every relay and CLI process the tests spawn starts from
 * the compiled build of the sources under test (bin/mcpx-conform.js falls back to tsx when the build is stale).
 */
export default function setup(): void {
  execFileSync(process.execPath, [join(import.meta.dirname, "../../scripts/build.mjs")], {
    stdio: "inherit",
  });
}
