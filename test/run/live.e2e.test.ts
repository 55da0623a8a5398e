import { existsSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type JudgedRun, judgeRuns, ROUNDTRIP_ROW } from "../../src/judge/judge-runs.ts";
import type { CaseRun } from "../../src/model/case-run.ts";
import type { Register } from "../../src/model/register.ts";
import type { Era } from "../../src/protocol/eras.ts";
import { LiveJudge, liveRun } from "../../src/run/live.ts";
import type { RunEvent } from "../../src/run/progress.ts";
import { ANSWER, caseRun } from "../helpers/case-run.ts";
import { tempDir } from "../helpers/cli.ts";

const row = (id: string) => ({
  id,
  title: id,
  side: "client" as const,
  level: "MUST" as const,
  eras: ["2024-11-05", "2025-11-25"] as Era[],
  quote: "q",
  url: "https://e.com/",
});
const register: Register = { rows: [{ ...row(ROUNDTRIP_ROW), side: "intermediary" }, row("sampling-must")] };
/** A recorded delivered case `id` of `rowId`, passing (`ok`) or not. */
const run = (rowId: string, id: string, era: Era, ok: boolean) => caseRun(rowId, era, ok, {}, { id });

const E = "2025-11-25" as const;
const O = "2024-11-05" as const;
const runs = [
  run(ROUNDTRIP_ROW, "rt", O, false),
  run(ROUNDTRIP_ROW, "rt", E, true),
  run("sampling-must", "a", E, true),
  run("sampling-must", "b", E, false),
  run("sampling-must", "c", O, true),
];
const work = runs.map((r) => ({ kase: r.kase, era: r.era }));
const summary = (j: JudgedRun) => `${j.run.kase.id}@${j.run.era} ${j.verdict.status} ${j.verdict.reason}`;

describe("judging as the run goes", () => {
  it("holds a case until its era's round trip has run, then gives the verdict judgeRuns gives the whole run", () => {
    const emitted: JudgedRun[] = [];
    const live = new LiveJudge(register, work, (j) => emitted.push(j));
    // Finished out of order: era E's cases before its round trip.
    live.add(runs[2]!);
    live.add(runs[3]!);
    expect(emitted).toEqual([]);
    live.add(runs[1]!);
    expect(emitted.map((j) => j.run.kase.id)).toEqual(["rt", "a", "b"]);
    live.add(runs[0]!);
    live.add(runs[4]!);
    live.flush();
    const whole = judgeRuns(register, runs).map(summary).sort();
    expect(emitted.map(summary).sort()).toEqual(whole);
    // The 2024-11-05 case earns nothing without its round trip.
    expect(emitted.find((j) => j.run.kase.id === "c")!.verdict.status).toBe("fail");
  });

  it("whatever order cases end in, each is emitted once with the verdict judgeRuns gives the whole run", () => {
    const anyRun = fc.record({
      row: fc.constantFrom(ROUNDTRIP_ROW, ROUNDTRIP_ROW, "sampling-must"),
      era: fc.constantFrom(E, O),
      ok: fc.boolean(),
      notRun: fc.boolean(),
    });
    const plans = fc
      .array(anyRun, { maxLength: 10 })
      .map((xs) =>
        xs.map((x, i) => {
          const r = run(x.row, `${x.row}-${i}`, x.era, x.ok);
          return x.notRun && x.row !== ROUNDTRIP_ROW ? { ...r, notRun: "its round trip failed" } : r;
        }),
      )
      .chain((rs) =>
        fc.tuple(fc.constant(rs), fc.shuffledSubarray(rs, { minLength: rs.length, maxLength: rs.length })),
      );
    fc.assert(
      fc.property(plans, ([planned, ended]) => {
        const emitted: JudgedRun[] = [];
        const live = new LiveJudge(
          register,
          planned.map((r) => ({ kase: r.kase, era: r.era })),
          (j) => emitted.push(j),
        );
        for (const r of ended) live.add(r);
        live.flush();
        expect(emitted.map(summary).sort()).toEqual(judgeRuns(register, planned).map(summary).sort());
      }),
      { numRuns: 300, seed: 5 },
    );
  });

  it("keeps only the compact copy of a run it holds, and judges from the full one", () => {
    const pad = "x".repeat(1024 * 1024);
    const big = run("sampling-must", "big", E, true);
    // The relay added 1 MiB to the result on its way up; the case's rule is about the result arriving unchanged.
    const withPad: CaseRun = {
      ...big,
      expect: [{ outcome: "delivered", unchanged: ["/result"] }],
      observation: {
        ...big.observation,
        upstream: { kind: "result", result: { ...ANSWER, _meta: { pad } } },
      },
    };
    const emitted: JudgedRun[] = [];
    const compact = (r: CaseRun): CaseRun => ({
      ...r,
      observation: { ...r.observation, upstream: { kind: "broken", detail: "compact" } },
    });
    const live = new LiveJudge(register, work, (j) => emitted.push(j), {}, compact);
    live.add(withPad); // held: its era's round trip has not run
    live.add(runs[1]!);
    const judged = emitted.find((j) => j.run.kase.id === "big")!;
    // Judged from the full observation (the answer differs from what the upstream got: the case fails) ...
    expect(judged.verdict.status).toBe("fail");
    expect(judged.verdict.reason).toMatch(/\(1048586 bytes of JSON\)/);
    // ... and what was held and emitted is the compact copy.
    expect(judged.run.observation.upstream).toEqual({ kind: "broken", detail: "compact" });
  });

  it("flush judges what never got its round trip", () => {
    const emitted: JudgedRun[] = [];
    const live = new LiveJudge(register, work, (j) => emitted.push(j));
    live.add(runs[2]!);
    live.flush();
    expect(emitted.map((j) => j.verdict.status)).toEqual(["fail"]);
  });

  it("--bail: after the first failing case no further case starts; those not run are skips; evidence is written at once", () => {
    const out = tempDir();
    const events: RunEvent[] = [];
    const live = liveRun({
      register,
      work,
      outDir: out,
      meta: { tool: { name: "mcpx-conform", version: "0" }, target: { name: "t" }, seed: 1 },
      selectedRows: undefined,
      baseline: undefined,
      bail: true,
      onEvent: (e) => events.push(e),
    });
    for (const r of [runs[1]!, runs[2]!, runs[3]!, runs[0]!, runs[4]!]) {
      const why = live.skip({ kase: r.kase, era: r.era });
      live.onCase(why ? { ...r, notRun: why } : r);
    }
    const finished = live.finish();
    expect(finished.bailedAt).toBe("sampling-must/b@2025-11-25");
    // The cases that ran, in plan order (not the order they ended in), each with its evidence.
    expect(finished.judgedCases.map((j) => `${j.result.id}@${j.era} ${j.result.status}`)).toEqual([
      "rt@2025-11-25 pass",
      "a@2025-11-25 pass",
      "b@2025-11-25 fail",
    ]);
    expect(finished.skipped.map((s) => `${s.result.id}@${s.era} ${s.result.status}`)).toEqual([
      "rt@2024-11-05 skip",
      "c@2024-11-05 skip",
    ]);
    expect(finished.skipped[0]!.result.reason).toMatch(
      /--bail stopped the run after sampling-must\/b@2025-11-25/,
    );
    const failing = events.find((e) => e.kind === "case" && e.status === "fail");
    expect(failing).toMatchObject({ id: "b", failsCell: true });
    // Every case that ran has its evidence written as it is judged; the cases --bail kept from running have none.
    expect(existsSync(join(out, "evidence/sampling-must/b@2025-11-25.json"))).toBe(true);
    expect(existsSync(join(out, "evidence/sampling-must/a@2025-11-25.json"))).toBe(true);
    expect(existsSync(join(out, "evidence/sampling-must/c@2024-11-05.json"))).toBe(false);
  });

  it("a baselined failure does not bail", () => {
    const live = liveRun({
      register,
      work,
      outDir: tempDir(),
      meta: { tool: { name: "mcpx-conform", version: "0" }, target: { name: "t" }, seed: 1 },
      selectedRows: undefined,
      baseline: {
        expectedFailures: [{ row: "sampling-must", reason: "known", issue: "x#1", expires: "2999-01-01" }],
      },
      bail: true,
      onEvent: undefined,
    });
    live.onCase(runs[1]!);
    live.onCase(runs[3]!);
    expect(live.skip({ kase: runs[4]!.kase, era: O })).toBeUndefined();
  });
});
