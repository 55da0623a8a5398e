import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sessionGroup } from "../../src/harness/case-instance.ts";
import { runCases } from "../../src/harness/controller.ts";
import { SPLIT_AFTER_MS } from "../../src/harness/waits.ts";
import { judgeRuns } from "../../src/judge/judge-runs.ts";
import { loadCases, loadRegister, loadTarget } from "../../src/model/load.ts";
import type { Era } from "../../src/protocol/eras.ts";
import { unavoidableWaitMs } from "../../src/run/shard.ts";
import { ROOT } from "../helpers/cli.ts";

/**
 * A case that holds its relay session while it waits (here the reviewer's illegal edit, which the reference relay
 * refuses while the question stays open until its answer deadline) must not make the rest of its session group queue
 * behind it: after SPLIT_AFTER_MS they move to a relay session of their own. One lane, so nothing else could run them.
 */
/** The holder of the reference relay with a review surface, its era's round trip, and three cases of its group. */
function holdingPlan() {
  const profileFile = join(ROOT, "targets/reference-review.yaml");
  const profile = loadTarget(profileFile);
  const register = loadRegister();
  const cases = loadCases(register);
  const era: Era = "2025-11-25";
  const holder = { kase: cases.find((c) => c.id === "illegal-edit-is-refused")!, era };
  const roundTrip = { kase: cases.find((c) => c.id === "text-roundtrip")!, era };
  const rest = cases
    .map((kase) => ({ kase, era }))
    .filter(
      (w) =>
        w.kase !== holder.kase &&
        w.kase !== roundTrip.kase &&
        (w.kase.eras ?? [era]).includes(era) &&
        sessionGroup(w) === sessionGroup(holder) &&
        unavoidableWaitMs(w, profile) === 0 &&
        !w.kase.sequence &&
        !w.kase.mrtr,
    )
    .slice(0, 3);
  expect(rest).toHaveLength(3);
  return { profile, profileFile, register, work: [holder, roundTrip, ...rest] };
}

/**
 * A case that holds its relay session while it waits (here the reviewer's illegal edit, which the reference relay
 * refuses while the question stays open until its answer deadline) must not make the rest of its session group queue
 * behind it: after SPLIT_AFTER_MS they move to a relay session of their own. One lane, so nothing else could run them.
 */
describe("a case that holds its relay session while it waits", () => {
  it("moves the rest of its session group to a relay of their own, which runs them during the wait", async () => {
    const { profile, profileFile, register, work } = holdingPlan();
    const runs = await runCases({ profile, profileFile, work, seed: 1, concurrency: 1 });
    const at = (r: (typeof runs)[number]) => Date.parse(r.startedAt);
    const held = runs[0]!;
    // The holder waits out the relay's answer deadline; the others began and ended within it.
    expect(held.durationMs).toBeGreaterThan(profile.answerTimeoutMs - 200);
    for (const r of runs.slice(1)) {
      expect(at(r) - at(held), r.kase.id).toBeGreaterThanOrEqual(SPLIT_AFTER_MS - 50);
      expect(at(r) + r.durationMs, r.kase.id).toBeLessThan(at(held) + held.durationMs);
    }
    // Moved or not, every case is judged as it would be on one session: the reference relay passes them all.
    for (const j of judgeRuns(register, runs)) expect(j.verdict.status, j.run.kase.id).toBe("pass");
  }, 30_000);

  it("keeps them on its session when every core was busy during the hold: a relay start would only add CPU", async () => {
    const { profile, profileFile, register, work } = holdingPlan();
    const everyCoreBusy = () => () => 1;
    const runs = await runCases({
      profile,
      profileFile,
      work,
      seed: 1,
      concurrency: 1,
      busySince: everyCoreBusy,
    });
    const at = (r: (typeof runs)[number]) => Date.parse(r.startedAt);
    const held = runs[0]!;
    // The round trip ran first (the era's prerequisite); the other three queued behind the holder's wait.
    for (const r of runs.slice(2))
      expect(at(r), r.kase.id).toBeGreaterThanOrEqual(at(held) + held.durationMs);
    for (const j of judgeRuns(register, runs)) expect(j.verdict.status, j.run.kase.id).toBe("pass");
  }, 30_000);
});

describe("a case seen holding its session in one era", () => {
  it("starts first among the cases of its session group in the eras still to run", async () => {
    const profileFile = join(ROOT, "targets/reference-review.yaml");
    const profile = loadTarget(profileFile);
    const cases = loadCases(loadRegister());
    const byId = (id: string) => cases.find((c) => c.id === id)!;
    const roundTrip = byId("text-roundtrip");
    const holder = byId("illegal-edit-is-refused");
    const others = ["valid-result-delivered", "refusal-delivered"].map(byId);
    const first: Era = "2025-11-25";
    const second: Era = "2026-07-28";
    for (const k of [holder, ...others]) expect(k.eras ?? [second], k.id).toContain(second);
    // The holder leads the first era's group and comes last in the second's (a plan order nothing else changes).
    const work = [
      ...[roundTrip, holder, ...others].map((kase) => ({ kase, era: first })),
      ...[roundTrip, ...others, holder].map((kase) => ({ kase, era: second })),
    ];
    const runs = await runCases({ profile, profileFile, work, seed: 1, concurrency: 1 });
    const startOf = (id: string) =>
      Date.parse(runs.find((r) => r.era === second && r.kase.id === id)!.startedAt);
    for (const other of others) expect(startOf(holder.id), other.id).toBeLessThan(startOf(other.id));
  }, 30_000);
});
