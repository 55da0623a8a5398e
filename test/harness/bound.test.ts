import { describe, expect, it } from "vitest";
import {
  CASE_SLACK_MS,
  MAX_SPLITS,
  MAX_STARTS_PER_GROUP,
  RUN_OVERHEAD_MS,
  worstCaseMs,
} from "../../src/harness/budget.ts";
import { sessionGroup } from "../../src/harness/case-instance.ts";
import { KILL_GRACE_MS } from "../../src/harness/processes.ts";
import { loadCases, loadRegister, loadTarget } from "../../src/model/load.ts";
import { planRun } from "../../src/run/plan.ts";
import { ROOT } from "../helpers/paths.ts";

describe("the worst-case run time docs/reliability.md states", () => {
  it("is 2·(G + 6)·(S + K) + I·(S + K) + N·(S + C + 3 s) + 15 s", () => {
    // docs/reliability.md's figures: a change to a constant must change that page too.
    expect(KILL_GRACE_MS).toBe(1_500);
    expect(CASE_SLACK_MS).toBe(3_000);
    expect(RUN_OVERHEAD_MS).toBe(15_000);
    expect(MAX_STARTS_PER_GROUP).toBe(2);
    expect(MAX_SPLITS).toBe(6);
    const register = loadRegister();
    const profile = loadTarget(`${ROOT}/targets/reference.yaml`);
    const { work } = planRun({ register, cases: loadCases(register), profile, eras: ["2025-11-25"] });
    const S = profile.startupTimeoutMs;
    const C = profile.caseTimeoutMs;
    const K = 1_500;
    const I = work.filter((w) => w.kase.sessions === 2).length;
    const G = new Set(work.filter((w) => w.kase.sessions !== 2).map(sessionGroup)).size;
    const N = work.length;
    expect(G).toBeGreaterThan(1);
    expect(worstCaseMs(profile, work)).toBe(
      2 * (G + 6) * (S + K) + I * (S + K) + N * (S + C + 3_000) + 15_000,
    );
  });

  it("groups cases by era, downstream era and declared capabilities", () => {
    const register = loadRegister();
    const cases = loadCases(register);
    const profile = loadTarget(`${ROOT}/targets/reference.yaml`);
    const { work } = planRun({ register, cases, profile, eras: ["2025-11-25", "2024-11-05"] });
    const keys = new Set(work.map(sessionGroup));
    for (const key of keys) expect(key).toMatch(/^\d{4}-\d{2}-\d{2} \d{4}-\d{2}-\d{2} \{/);
    expect([...keys].some((k) => k.startsWith("2024-11-05"))).toBe(true);
  });
});
