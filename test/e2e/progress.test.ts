import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ResultsSchema } from "../../src/model/results.ts";
import { cli, cliInProcess, tempDir } from "../helpers/cli.ts";

const ESC = String.fromCharCode(27);
/** Carriage returns or escape sequences: what a non-TTY stream must never get. */
const NOT_PLAIN = new RegExp(`\r|${ESC}`);

/**
 * Live progress and --bail. --bail runs in process (stderr is no TTY there either); the progress lines are checked
 * on the real binary, whose stderr is a pipe: it must find that out itself and print plain lines, no colour, no \r.
 */
describe("run: live progress, --quiet, --bail", () => {
  it("--bail stops at the first failing cell: the failure is printed with its evidence, the rest recorded as skipped, exit 1", async () => {
    const out = tempDir();
    const r = await cliInProcess([
      "run",
      "--target",
      "targets/broken/naive-passthrough.yaml",
      "--era",
      "2025-11-25",
      "--seed",
      "5",
      "--out",
      out,
      "--bail",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(NOT_PLAIN);
    const failing = r.stderr.split("\n").find((l) => /^[✗!] .*\(evidence: .*\.json\)$/.test(l));
    expect(failing, r.stderr).toBeDefined();
    expect(r.stderr).toMatch(/--bail: stopped after \S+ failed/);
    const results = ResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
    const cases = results.cells.flatMap((c) => c.cases);
    const skipped = cases.filter((c) => /--bail stopped the run/.test(c.reason));
    expect(skipped.length).toBeGreaterThan(cases.length / 2);
    expect(results.cells.some((c) => c.status === "fail")).toBe(true);
    // No cell passes on the cases that ran before the bail while some of its cases did not run.
    for (const c of results.cells)
      if (c.cases.some((x) => /--bail/.test(x.reason))) expect(c.status, c.row).not.toBe("pass");
  });

  it("streams a line per case off a TTY, and --quiet prints the summary line alone", async () => {
    const args = ["run", "--target", "targets/reference.yaml", "--era", "2025-11-25", "--seed", "5"];
    const rows = ["--rows", "sampling-relay-roundtrip,sampling-client-errors-user-rejected-and-tool-shape"];
    const loud = await cli([...args, ...rows, "--out", tempDir()]);
    expect(loud.code).toBe(0);
    const caseLines = loud.stderr.split("\n").filter((l) => /^✓ \S+\/\S+ @2025-11-25$/.test(l));
    expect(caseLines.length).toBeGreaterThan(3);
    const quiet = await cli([...args, ...rows, "--out", tempDir(), "--quiet"]);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr.trim().split("\n")).toHaveLength(1);
    expect(quiet.stderr).toMatch(/^mcpx-conform: \d+ cells: /);
  });
});
