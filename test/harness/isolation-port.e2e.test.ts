import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { runCases } from "../../src/harness/controller.ts";
import { makeTempDir, removeTempDir } from "../../src/harness/processes.ts";
import { judgeRuns } from "../../src/judge/judge-runs.ts";
import { loadCases, loadRegister, loadTarget } from "../../src/model/load.ts";
import { ROOT } from "../helpers/cli.ts";

const work = makeTempDir();
afterAll(() => removeTempDir(work));

/**
 * The two-session case launches a relay of its own, outside any relay session: should the port the harness picked be
 * taken before the relay binds it (EADDRINUSE), the case is tried once more on a new port, as a session's start is.
 */
describe("a two-session case whose relay meets a taken port", () => {
  it("is tried once more on a new port, and is judged on that run", async () => {
    const dir = join(ROOT, "targets/hostile");
    const base = loadTarget(join(dir, "port-taken-once-http.yaml"));
    const firstLaunch = join(work, "first-launch");
    // The profile keeps its folder (its relative paths), with a first-launch marker of this test's own.
    const profileFile = join(dir, `.port-taken-once-http-${process.pid}.yaml`);
    const profile = {
      ...base,
      command: [...base.command.slice(0, 2), `--first-launch=${firstLaunch}`, ...base.command.slice(2)],
    };
    writeFileSync(profileFile, stringify(profile));
    try {
      const register = loadRegister();
      const cases = loadCases(register);
      const isolation = {
        kase: cases.find((c) => c.id === "two-calls-one-input-key")!,
        era: "2026-07-28" as const,
      };
      const roundTrip = { kase: cases.find((c) => c.id === "text-roundtrip")!, era: "2026-07-28" as const };
      // The two-session case first (one lane, no other order given): its relay is the run's first launch.
      const runs = await runCases({
        profile: loadTarget(profileFile),
        profileFile,
        work: [isolation, roundTrip],
        seed: 1,
      });
      expect(Date.parse(runs[0]!.startedAt)).toBeLessThanOrEqual(Date.parse(runs[1]!.startedAt));
      for (const judged of judgeRuns(register, runs))
        expect(judged.verdict.status, judged.verdict.reason).toBe("pass");
    } finally {
      removeTempDir(profileFile);
    }
  }, 60_000);
});
