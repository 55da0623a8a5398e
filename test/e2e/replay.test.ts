import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliInProcess, tempDir } from "../helpers/cli.ts";

describe("replay an evidence bundle", () => {
  it("reports the same verdict against the same target and a different one against a broken relay", async () => {
    const out = tempDir();
    const run = await cliInProcess([
      "run",
      "--era",
      "2025-11-25",
      "--rows",
      "sampling-client-errors-user-rejected-and-tool-shape",
      "--out",
      out,
      "--quiet",
    ]);
    expect(run.code).toBe(0);
    const bundle = join(
      out,
      "evidence/sampling-client-errors-user-rejected-and-tool-shape/decline-is-minus-1@2025-11-25.json",
    );
    const evidence = JSON.parse(readFileSync(bundle, "utf8"));
    expect(evidence.case.definition.answer).toEqual({ action: "decline" });
    expect(evidence.canary).toMatch(/^Cnry-decline-is-minus-1-.*-ÄΩ$/);

    const same = await cliInProcess(["replay", bundle]);
    expect(same.stdout).toContain("same verdict");
    expect(same.code).toBe(0);

    const other = await cliInProcess(["replay", bundle, "--target", "targets/broken/naive-passthrough.yaml"]);
    expect(other.stdout).toContain("DIFFERENT verdict");
    expect(other.stdout).toContain("expected -1");
    expect(other.code).toBe(1);
  });

  it("refuses a file that is not an evidence bundle, exit 2", async () => {
    const r = await cliInProcess(["replay", "package.json"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("package.json");
  });
});
