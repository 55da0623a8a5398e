import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderMcpx } from "../../src/matrix/mcpx.ts";
import { DEFAULT_REGISTER, loadRegister } from "../../src/model/load.ts";
import { cliInProcess, tempDir } from "../helpers/cli.ts";
import { FAIL_RESULTS, loadFixtureResults } from "../matrix/helpers.ts";

/** The `mcpx` reporter through the CLI (its output is test/matrix/mcpx.test.ts's). */
const register = loadRegister(DEFAULT_REGISTER);
const fail = loadFixtureResults(FAIL_RESULTS);

describe("render --reporter mcpx", () => {
  it("writes mcpx.md and mcpx-gaps.go.txt next to the other reports, as renderMcpx renders them", async () => {
    const out = tempDir();
    const run = await cliInProcess(["render", "--results", FAIL_RESULTS, "--reporter", "mcpx", "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("mcpx.md");
    expect(run.stderr).toContain("mcpx-gaps.go.txt");
    const expected = renderMcpx(fail, register);
    expect(readFileSync(join(out, "mcpx.md"), "utf8")).toBe(expected.register);
    expect(readFileSync(join(out, "mcpx-gaps.go.txt"), "utf8")).toBe(expected.gaps);
  });
});
