import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, tempDir } from "./helpers/cli.ts";

/**
 * The vitest entry point (src/vitest/index.ts, `mcpx-conform/vitest`) run as a relay author runs it: vitest on a test
 * file that calls `conformanceSuite`, in a process of its own, against the reference relay (every test passes) and
 * a broken one (the row's tests fail, each with its reason and evidence path).
 */
function vitestOn(target: string): Promise<{ code: number; output: string }> {
  const out = join(tempDir(), "report");
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        join(ROOT, "node_modules/vitest/vitest.mjs"),
        "run",
        "--config",
        "test/fixtures/vitest-entry/vitest.config.ts",
        "--reporter",
        "verbose",
      ],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          MCPX_ENTRY_TARGET: target,
          MCPX_ENTRY_OUT: out,
          NO_COLOR: "1",
          FORCE_COLOR: "0",
        },
        timeout: 120_000,
      },
      (error, stdout, stderr) =>
        resolve({
          code: error ? Number((error as { code?: number }).code ?? 1) : 0,
          output: stdout + stderr,
        }),
    );
  });
}

describe("mcpx-conform/vitest: one test per case × era, named after its row", () => {
  it("passes every test against the reference relay", async () => {
    const run = await vitestOn("targets/reference.yaml");
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/sampling-result-schema > role-system @2025-11-25/);
    expect(run.output).toMatch(/Tests\s+\d+ passed/);
    expect(run.output).not.toMatch(/failed/);
  });

  it("fails the row's tests against a relay that does not validate results, with the reason and the evidence", async () => {
    const run = await vitestOn("targets/broken/naive-passthrough.yaml");
    expect(run.code).not.toBe(0);
    expect(run.output).toMatch(/×.*sampling-result-schema > role-system @2025-11-25/);
    expect(run.output).toMatch(
      /fail: .*\n\s*evidence: .*sampling-result-schema\/role-system@2025-11-25\.json/,
    );
  });
});
