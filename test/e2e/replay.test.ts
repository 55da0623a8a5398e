import { existsSync, readFileSync } from "node:fs";
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

    const fresh = bundle.replace(/\.json$/, ".replay.json");
    const same = await cliInProcess(["replay", bundle]);
    expect(same.stdout).toContain("same verdict");
    expect(same.code).toBe(0);
    // The fresh transcript is written beside the recorded one, which is left as it was.
    expect(same.stdout).toContain("transcript: ");
    const replayed = JSON.parse(readFileSync(fresh, "utf8"));
    expect(replayed.verdict.status).toBe("pass");
    expect(replayed.case.id).toBe("decline-is-minus-1");
    expect(JSON.parse(readFileSync(bundle, "utf8"))).toEqual(evidence);

    const other = await cliInProcess(["replay", bundle, "--target", "targets/broken/naive-passthrough.yaml"]);
    expect(other.stdout).toContain("DIFFERENT verdict");
    expect(other.stdout).toContain("expected -1");
    expect(other.code).toBe(1);
    const failed = JSON.parse(readFileSync(fresh, "utf8"));
    expect(failed.verdict.status).toBe("fail");
    expect(failed.target.name).toBe("naive-passthrough");
  });

  it("a case that still fails exits 1 although its verdict is the same as recorded", async () => {
    const out = tempDir();
    const run = await cliInProcess([
      "run",
      "--era",
      "2025-11-25",
      "--case",
      "decline-is-minus-1",
      "--target",
      "targets/broken/naive-passthrough.yaml",
      "--out",
      out,
      "--quiet",
    ]);
    expect(run.code).toBe(1);
    const bundle = join(
      out,
      "evidence/sampling-client-errors-user-rejected-and-tool-shape/decline-is-minus-1@2025-11-25.json",
    );
    expect(JSON.parse(readFileSync(bundle, "utf8")).verdict.status).toBe("fail");
    const again = await cliInProcess(["replay", bundle]);
    expect(again.stdout).toContain("same verdict");
    expect(again.code).toBe(1);
    expect(existsSync(bundle.replace(/\.json$/, ".replay.json"))).toBe(true);
  });

  it("refuses a file that is not an evidence bundle, exit 2", async () => {
    const r = await cliInProcess(["replay", "package.json"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("package.json");
  });
});
