import { describe, expect, it } from "vitest";
import { ROUNDTRIP_ROW } from "../../src/judge/judge-runs.ts";
import { InputError } from "../../src/model/errors.ts";
import type { LoadedCase } from "../../src/model/load.ts";
import type { Era } from "../../src/protocol/eras.ts";
import type { RunPlan, WorkItem } from "../../src/run/plan.ts";
import {
  assignShards,
  expectedCostMs,
  parseShard,
  shardFuzzEras,
  shardPlan,
  waitChains,
} from "../../src/run/shard.ts";

const profile = { answerTimeoutMs: 1500 };

function item(row: string, id: string, era: Era, over: Partial<LoadedCase> = {}): WorkItem {
  const kase = {
    id,
    row,
    title: "t",
    why: "w",
    request: { messages: [], maxTokens: 1 },
    answer: { action: "accept", result: {} },
    expect: [{ outcome: "delivered" }],
    file: `cases/${row}/${id}.yaml`,
    ...over,
  } as LoadedCase;
  return { kase, era };
}

const E = "2025-11-25" as const;
const M = "2026-07-28" as const;
const work: WorkItem[] = [
  item(ROUNDTRIP_ROW, "text-roundtrip", E),
  item("row-a", "expires", E, { answer: { action: "expire" } }),
  item("row-a", "late", E, { answer: { action: "accept", result: {}, delayOfAnswerTimeout: 0.5 } }),
  ...Array.from({ length: 12 }, (_, i) => item("row-b", `quick-${String(i).padStart(2, "0")}`, E)),
  item(ROUNDTRIP_ROW, "text-roundtrip", M),
  item("row-c", "withheld", M, { expect: [{ outcome: "withheld" }] }),
  item("row-c", "declined", M, { expect: [{ outcome: "error" }] }),
];
const unrun = [
  {
    row: "row-r",
    era: E,
    side: "client" as const,
    result: { id: "review", status: "skip" as const, reason: "r" },
  },
];
const plan: RunPlan = { work, unrun };

describe("--shard i/n", () => {
  it("parses i/n with 1 ≤ i ≤ n; anything else is an InputError naming --shard", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    expect(parseShard("1/1")).toEqual({ index: 1, count: 1 });
    for (const bad of ["0/4", "5/4", "abc", "1/0", "-1/4", "1.5/4", "", "2/"]) {
      expect(() => parseShard(bad), bad).toThrow(InputError);
      try {
        parseShard(bad);
      } catch (e) {
        expect((e as InputError).oneLine()).toMatch(/^--shard: /);
      }
    }
  });

  it("costs cases that wait for a deadline about answerTimeoutMs, others a small constant", () => {
    const cost = (w: WorkItem) => expectedCostMs(w, profile);
    const [rt, expires, late] = work;
    expect(cost(expires!)).toBeGreaterThanOrEqual(1500);
    expect(cost(late!)).toBeGreaterThanOrEqual(750);
    expect(cost(rt!)).toBeLessThan(100);
    expect(cost(work.find((w) => w.kase.id === "withheld")!)).toBeGreaterThanOrEqual(1500);
    expect(cost(work.find((w) => w.kase.id === "declined")!)).toBeGreaterThanOrEqual(500);
  });

  it("assigns longest first onto the least loaded shard, the same way every time and in any input order", () => {
    const a = assignShards(work, 4, profile);
    const b = assignShards([...work].reverse(), 4, profile);
    expect([...b.owner.entries()].sort()).toEqual([...a.owner.entries()].sort());
    // The two deadline-bound cases never share a shard while others are idle.
    expect(a.owner.get("row-a/expires@2025-11-25")).not.toBe(a.owner.get("row-c/withheld@2026-07-28"));
    const max = Math.max(...a.load);
    const costs = work.map((w) => expectedCostMs(w, profile));
    // Greedy LPT: the slowest shard is within one item of the average.
    expect(max).toBeLessThanOrEqual(costs.reduce((x, y) => x + y, 0) / 4 + Math.max(...costs));
  });

  it("every case runs in exactly one shard; round trips run in every shard with work in their era, reported by one", () => {
    const shards = [1, 2, 3, 4].map((index) => shardPlan(plan, { index, count: 4 }, profile));
    const key = (w: WorkItem) => `${w.kase.row}/${w.kase.id}@${w.era}`;
    const reported = shards.flatMap((s) => s.work.filter((w) => !s.prerequisiteOnly.has(key(w))).map(key));
    expect(reported.sort()).toEqual(work.map(key).sort());
    for (const s of shards) {
      for (const era of new Set(s.work.filter((w) => w.kase.row !== ROUNDTRIP_ROW).map((w) => w.era)))
        expect(s.work.some((w) => w.kase.row === ROUNDTRIP_ROW && w.era === era)).toBe(true);
      // Work keeps the plan's order (round trip first in its era).
      const order = s.work.map((w) => work.indexOf(w));
      expect(order).toEqual([...order].sort((x, y) => x - y));
    }
    expect(shards.map((s) => s.unrun.length)).toEqual([1, 0, 0, 0]);
  });

  it("a shard with no work runs nothing, not even a round trip; fuzzing runs each era in one shard", () => {
    const tiny: RunPlan = { work: [work[0]!, work[1]!], unrun: [] };
    const shards = [1, 2, 3].map((index) => shardPlan(tiny, { index, count: 3 }, profile));
    expect(shards.map((s) => s.work.length).sort()).toEqual([0, 1, 2]);
    const eras = ["a", "b", "c", "d", "e"];
    const split = [1, 2].map((index) => shardFuzzEras(eras, { index, count: 2 }));
    expect(split).toEqual([
      ["a", "c", "e"],
      ["b", "d"],
    ]);
    expect(shardFuzzEras(eras, undefined)).toEqual(eras);
  });
});

describe("chains of waiting cases (waitChains)", () => {
  const L = "2024-11-05" as const;
  const expires = (id: string, era: Era = L) => item("row-w", id, era, { answer: { action: "expire" } });
  const quick = (n: number, era: Era = L) =>
    Array.from({ length: n }, (_, i) => item("row-q", `quick-${String(i).padStart(3, "0")}`, era));
  const chainsOf = (
    w: WorkItem[],
    lanes: number,
    p: { answerTimeoutMs: number; caseTimeoutMs?: number } = profile,
  ) => {
    const apart = waitChains(w, p, lanes);
    return w.map((x) => apart(x));
  };

  it("puts a legacy group's waiting cases on one session apart while the run's lanes outlast their waits", () => {
    // 200 quick cases on 2 lanes: about 4 s of lane time each; three 1.5 s waits fit in one chain.
    const w = [...quick(200), expires("a"), expires("b"), expires("c")];
    expect(chainsOf(w, 2).slice(200)).toEqual(["waits 0", "waits 0", "waits 0"]);
    expect(
      chainsOf(w, 2)
        .slice(0, 200)
        .every((c) => c === undefined),
    ).toBe(true);
  });

  it("opens another chain where one would outlast the run's lanes and the group's other cases", () => {
    // The same cases on 16 lanes: 0.6 s of lane time; the group's other cases 8 s; 12 waits of 1.54 s need 3 chains.
    const w = [
      ...quick(200),
      ...Array.from({ length: 12 }, (_, i) => expires(`w-${String(i).padStart(2, "0")}`)),
    ];
    const chains = new Set(chainsOf(w, 16).slice(200));
    expect(chains).toEqual(new Set(["waits 0", "waits 1", "waits 2"]));
  });

  it("gives each wait a session of its own when every wait is longer than the rest of the run", () => {
    const long = { answerTimeoutMs: 60_000 };
    const w = [...quick(10), expires("a"), expires("b"), expires("c")];
    expect(chainsOf(w, 2, long).slice(10)).toEqual(["waits 0", "waits 1", "waits 2"]);
  });

  it("gives a wait longer than the profile's case timeout (the relay's own long deadline) a session alone", () => {
    // civic: the SDK's 60 s deadline, a 2 s case timeout. Chained per era, two such waits made the run 2 min long.
    const civic = { answerTimeoutMs: 60_000, caseTimeoutMs: 2_000 };
    const w = [
      ...quick(10),
      expires("a"),
      expires("b"),
      expires("c", "2025-11-25"),
      expires("d", "2025-11-25"),
    ];
    const chains = chainsOf(w, 2, civic).slice(10);
    expect(new Set(chains).size).toBe(4);
    expect(chains.every((c) => c?.startsWith("waits alone "))).toBe(true);
    // Waits within the case timeout keep their chains.
    expect(chainsOf(w, 2, { answerTimeoutMs: 1500, caseTimeoutMs: 6000 }).slice(10)).toEqual([
      "waits 0",
      "waits 0",
      "waits 0",
      "waits 0",
    ]);
  });

  it("chains per group, never a 2026-07-28 case, never a two-session case", () => {
    const w = [
      ...quick(50),
      expires("a"),
      expires("b", "2025-11-25"),
      item("row-w", "settles", M, { expect: [{ outcome: "withheld" }] }),
      item("row-w", "two", L, { sessions: 2, answer: { action: "expire" } } as Partial<LoadedCase>),
    ];
    const apart = waitChains(w, profile, 2);
    expect(apart(w[50]!)).toBe("waits 0");
    expect(apart(w[51]!)).toBe("waits 0"); // its own group's first chain: another session (the group differs)
    expect(apart(w[52]!)).toBeUndefined();
    expect(apart(w[53]!)).toBeUndefined();
  });
});
