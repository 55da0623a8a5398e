import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_SPLITS, MAX_STARTS_PER_GROUP, RUN_OVERHEAD_MS, worstCaseMs } from "../../src/harness/budget.ts";
import {
  Scheduler,
  type Unit,
  type UnitSession,
  unitsOf,
  type WorkItem,
} from "../../src/harness/scheduler.ts";
import { CASE_SLACK_MS, KILL_GRACE_MS } from "../../src/harness/waits.ts";
import type { LoadedCase } from "../../src/model/load.ts";
import type { Era } from "../../src/protocol/eras.ts";

/**
 * The scheduler (src/harness/scheduler.ts) on its own: plain work items, a fake session, a fake clock. No relay, no
 * process, no socket: what a lane gets next, how a case hands its lane or session on, a split, the order learned from
 * a case that held its session, and the worst-case bound of a run.
 */

class FakeSession implements UnitSession {
  idle = true;
}

const item = (id: string, era: Era = "2025-11-25", extra: Partial<LoadedCase> = {}): WorkItem => ({
  kase: {
    row: "row",
    id,
    request: {},
    answer: { action: "accept", result: {} },
    ...extra,
  } as unknown as LoadedCase,
  era,
});

const ids = (u: Unit | undefined) => u?.items.map((e) => e.item.kase.id);

/** Resolves to the unit when take() hands one out within the current turn of the event loop, else "waiting". */
async function takeNow<S extends UnitSession>(s: Scheduler<S>, current?: Unit<S>) {
  return Promise.race([s.take(current), new Promise<"waiting">((r) => setImmediate(() => r("waiting")))]);
}

function schedule(
  work: WorkItem[],
  opts: { prerequisite?: string; cost?: Record<string, number>; apart?: Record<string, string> } = {},
) {
  const prerequisite = (w: WorkItem) => w.kase.id === opts.prerequisite;
  const cost = (w: WorkItem) => opts.cost?.[w.kase.id] ?? 0;
  const units = unitsOf({
    work,
    groupOf: (w) => `${w.era} ${w.kase.id.split("-")[0]}`,
    isolated: (w) => w.kase.sessions === 2,
    session: () => new FakeSession(),
    prerequisite,
    cost,
    apart: (w) => opts.apart?.[w.kase.id],
  });
  return { units, scheduler: new Scheduler(units, work, prerequisite, cost) };
}

describe("units", () => {
  it("groups cases by session group, gives two-session cases a unit without a session, longest waits first", () => {
    const work = [
      item("a-1"),
      item("a-2"),
      item("b-1"),
      item("iso", "2025-11-25", { sessions: 2 } as Partial<LoadedCase>),
      item("a-3"),
    ];
    const { units } = schedule(work, { cost: { "a-1": 1, "a-2": 5, "b-1": 9, iso: 3, "a-3": 2 } });
    expect(units.map(ids)).toEqual([["b-1"], ["a-2", "a-3", "a-1"], ["iso"]]);
    expect(units[2]!.group).toBeUndefined();
    expect(units[0]!.group).toBeInstanceOf(FakeSession);
    // Plan indices stay with their items: they name canaries and places in the returned runs.
    expect(units[1]!.items.map((e) => e.index)).toEqual([1, 4, 0]);
  });

  it("runs the cases apart from their group on a session per key of their group", () => {
    const work = [item("a-1"), item("a-w1"), item("a-w2"), item("a-w3"), item("b-w1")];
    const apart = { "a-w1": "waits 0", "a-w2": "waits 0", "a-w3": "waits 1", "b-w1": "waits 0" };
    const { units } = schedule(work, { apart });
    // No costs: the larger unit first, then plan order.
    expect(units.map(ids)).toEqual([["a-w1", "a-w2"], ["a-1"], ["a-w3"], ["b-w1"]]);
    expect(new Set(units.map((u) => u.group)).size).toBe(4);
  });

  it("keeps the era's prerequisite first in its unit, whatever its cost", () => {
    const { units } = schedule([item("a-rt"), item("a-long")], {
      prerequisite: "a-rt",
      cost: { "a-long": 9 },
    });
    expect(ids(units[0])).toEqual(["a-rt", "a-long"]);
  });
});

describe("hand-out", () => {
  it("hands out the round trip first; the era's other cases wait until it has ended", async () => {
    const rt = item("r-rt");
    const other = item("o-1");
    const { scheduler } = schedule([other, rt], { prerequisite: "r-rt" });
    const first = await takeNow(scheduler);
    expect(first !== "waiting" && ids(first)).toEqual(["r-rt"]);
    // Nothing else is ready while the round trip runs: a second lane waits.
    const second = scheduler.take(undefined);
    expect(await Promise.race([second, new Promise((r) => setImmediate(() => r("waiting")))])).toBe(
      "waiting",
    );
    scheduler.ended(first as Unit, rt);
    expect(ids(await second)).toEqual(["o-1"]);
  });

  it("runs one case of a unit at a time, and prefers the lane's own unit on a tie", async () => {
    const work = [item("a-1"), item("a-2"), item("b-1")];
    const { scheduler } = schedule(work);
    const lane1 = (await takeNow(scheduler)) as Unit;
    const lane2 = (await takeNow(scheduler)) as Unit;
    expect(lane1).not.toBe(lane2);
    expect(lane1.state).toBe("running");
    scheduler.ended(lane1, lane1.items[0]!.item);
    // lane1's unit (a) has a second case: on a tie it keeps its warm session.
    if (lane1.items.length === 2) expect(await takeNow(scheduler, lane1)).toBe(lane1);
  });

  it("ends when every case has been handed out and run", async () => {
    const { scheduler, units } = schedule([item("a-1")]);
    const u = (await takeNow(scheduler)) as Unit;
    scheduler.ended(u, u.items[0]!.item);
    expect(await takeNow(scheduler)).toBeUndefined();
    expect(scheduler.isDone(units[0]!)).toBe(true);
  });

  it("refuses an event for a case that is not the unit's current one", async () => {
    const { scheduler } = schedule([item("a-1"), item("a-2")]);
    const u = (await takeNow(scheduler)) as Unit;
    expect(() => scheduler.ended(u, u.items[1]!.item)).toThrow(/ended for row\/a-2/);
    expect(() => scheduler.settled(u, u.items[0]!.item)).toThrow(/settled/);
  });
});

describe("hand-on", () => {
  it("a case that frees its session (2026-07-28 settle): the unit's next case starts while it settles", async () => {
    const { scheduler, units } = schedule([item("a-1"), item("a-2")]);
    const u = (await takeNow(scheduler)) as Unit;
    const [first, second] = u.items.map((e) => e.item);
    scheduler.handedOn(u, first!, "session");
    expect(u.state).toBe("idle");
    expect(await takeNow(scheduler)).toBe(u);
    expect(u.items[u.next]!.item).toBe(second);
    scheduler.ended(u, second!);
    // Every case handed out, one still settling: not done, its session stays open.
    expect(scheduler.isDone(units[0]!)).toBe(false);
    scheduler.settled(u, first!);
    expect(scheduler.isDone(units[0]!)).toBe(true);
  });

  it("a case that holds its session: the lane goes on, the unit waits until it lets the session go", async () => {
    const { scheduler } = schedule([item("a-1"), item("a-2"), item("b-1")]);
    const a = (await takeNow(scheduler)) as Unit;
    const first = a.items[0]!.item;
    scheduler.handedOn(a, first, "lane");
    expect(a.state).toBe("holding");
    expect(scheduler.holds(a, first)).toBe(true);
    // The free lane gets the other unit, not the holding one.
    const b = (await takeNow(scheduler)) as Unit;
    expect(b).not.toBe(a);
    scheduler.ended(b, b.items[0]!.item);
    expect(await takeNow(scheduler)).toBe("waiting");
    // The holding case lets its session go: the unit's next case may start; settling later advances nothing.
    expect(scheduler.sessionFree(a, first)).toBe(true);
    expect(await takeNow(scheduler)).toBe(a);
    expect(ids(a)![a.next]).toBe("a-2");
    scheduler.settled(a, first);
    expect(a.state).toBe("running");
    expect(ids(a)![a.next]).toBe("a-2");
  });

  it("a holding case that settles first: the unit goes on; a late sessionFree changes nothing", async () => {
    const { scheduler } = schedule([item("a-1"), item("a-2")]);
    const a = (await takeNow(scheduler)) as Unit;
    const first = a.items[0]!.item;
    scheduler.handedOn(a, first, "lane");
    scheduler.settled(a, first);
    expect(a).toMatchObject({ state: "idle", next: 1, settling: 0 });
    expect(scheduler.sessionFree(a, first)).toBe(false);
    expect(a.next).toBe(1);
  });
});

describe("split", () => {
  it("moves the cases after a holding one to a unit of their own, which joins the hand-out", async () => {
    const { scheduler, units } = schedule([item("a-1"), item("a-2"), item("a-3")]);
    const a = (await takeNow(scheduler)) as Unit;
    scheduler.handedOn(a, a.items[0]!.item, "lane");
    const rest = scheduler.split(a, new FakeSession());
    expect(ids(rest)).toEqual(["a-2", "a-3"]);
    expect(ids(a)).toEqual(["a-1"]);
    expect(units).toContain(rest);
    expect(await takeNow(scheduler)).toBe(rest);
    // The holding unit is done once its case settles; nothing is left to split off a unit with one case.
    expect(scheduler.split(a, new FakeSession())).toBeUndefined();
    scheduler.settled(a, a.items[0]!.item);
    expect(scheduler.isDone(a)).toBe(true);
  });

  it("moves nothing when the cases left are expected to take less than a relay start is worth", async () => {
    const { scheduler, units } = schedule([item("a-1"), item("a-2"), item("a-3")], {
      cost: { "a-1": 900, "a-2": 150, "a-3": 200 },
    });
    const a = (await takeNow(scheduler)) as Unit;
    scheduler.handedOn(a, a.items[0]!.item, "lane");
    expect(scheduler.split(a, new FakeSession(), 400)).toBeUndefined();
    expect(units).toHaveLength(1);
    expect(ids(scheduler.split(a, new FakeSession(), 350))).toEqual(["a-3", "a-2"]);
  });

  it("never splits a chain apart: its waits are meant to run in turn on one session", async () => {
    const apart = { "w-1": "waits 0", "w-2": "waits 0" };
    const { scheduler, units } = schedule([item("w-1"), item("w-2")], { apart });
    const w = (await takeNow(scheduler)) as Unit;
    expect(w.apart).toBe(true);
    scheduler.handedOn(w, w.items[0]!.item, "lane");
    expect(scheduler.split(w, new FakeSession())).toBeUndefined();
    expect(units).toHaveLength(1);
    expect(ids(w)).toEqual(["w-1", "w-2"]);
  });
});

describe("the learned order", () => {
  it("a case seen holding its session in one era starts first in its unit in the eras still to run", async () => {
    const work = [item("a-1", "2025-11-25"), item("b-1", "2024-11-05"), item("b-slow", "2024-11-05")];
    const { scheduler } = schedule(work, { cost: { "a-1": 5 } });
    const a = (await takeNow(scheduler)) as Unit;
    expect(ids(a)).toEqual(["a-1"]);
    // By plan order b-1 would run first in 2024-11-05; b-slow has just held its session in 2025-11-25.
    scheduler.noteHolding(item("b-slow", "2025-11-25"));
    const b = (await takeNow(scheduler)) as Unit;
    expect(ids(b)![b.next]).toBe("b-slow");
  });
});

describe("a whole run on a fake clock", () => {
  afterEach(() => vi.useRealTimers());

  /**
   * Lanes as the controller drives them, each case taking its cost in fake ms; a case with `hold` hands its lane on
   * at `laneHold` and settles at its cost. Returns when the run ends, with what ran when.
   */
  async function simulate(
    work: Array<WorkItem & { ms: number; hold?: boolean }>,
    lanes: number,
    laneHold: number,
  ): Promise<{ ms: number; started: string[]; maxRunning: Map<Unit, number> }> {
    vi.useFakeTimers();
    const { scheduler, units } = schedule(work, {
      prerequisite: "rt-0",
      cost: Object.fromEntries(work.map((w) => [w.kase.id, w.ms])),
    });
    const started: string[] = [];
    const running = new Map<Unit, number>();
    const maxRunning = new Map<Unit, number>();
    const settling: Promise<void>[] = [];
    const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
    const t0 = Date.now();
    const lane = async () => {
      for (let u = await scheduler.take(undefined); u; u = await scheduler.take(u)) {
        const unit = u;
        const entry = unit.items[unit.next]!;
        const w = entry.item as (typeof work)[number];
        started.push(`${w.era} ${w.kase.id}`);
        running.set(unit, (running.get(unit) ?? 0) + 1);
        maxRunning.set(unit, Math.max(maxRunning.get(unit) ?? 0, running.get(unit)!));
        if (w.hold && w.ms > laneHold) {
          await sleep(laneHold);
          scheduler.handedOn(unit, w, "lane");
          settling.push(
            sleep(w.ms - laneHold).then(() => {
              running.set(unit, running.get(unit)! - 1);
              scheduler.settled(unit, w);
            }),
          );
          continue;
        }
        await sleep(w.ms);
        running.set(unit, running.get(unit)! - 1);
        scheduler.ended(unit, w);
      }
    };
    const done = Promise.all(Array.from({ length: lanes }, lane)).then(() => Promise.all(settling));
    await vi.runAllTimersAsync();
    await done;
    for (const u of units) expect(scheduler.isDone(u)).toBe(true);
    return { ms: Date.now() - t0, started, maxRunning };
  }

  it("runs every case once, round trips before their era's other cases, one case per session at a time", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            group: fc.constantFrom("a", "b", "c"),
            era: fc.constantFrom<Era>("2025-11-25", "2024-11-05"),
            ms: fc.integer({ min: 1, max: 5_000 }),
            hold: fc.boolean(),
          }),
          { minLength: 1, maxLength: 20 },
        ),
        fc.integer({ min: 1, max: 4 }),
        async (specs, lanes) => {
          const eras = [...new Set(specs.map((s) => s.era))];
          const work = [
            ...eras.map((era) => ({ ...item("rt-0", era), ms: 10 })),
            ...specs.map((s, i) => ({ ...item(`${s.group}-${i}`, s.era), ms: s.ms, hold: s.hold })),
          ];
          const { ms, started, maxRunning } = await simulate(work, lanes, 1_000);
          expect([...started].sort()).toEqual(work.map((w) => `${w.era} ${w.kase.id}`).sort());
          for (const era of eras) {
            const first = started.findIndex((s) => s.startsWith(era));
            expect(started[first]).toBe(`${era} rt-0`);
          }
          for (const n of maxRunning.values()) expect(n).toBe(1);
          // Never slower than running the cases one after another.
          expect(ms).toBeLessThanOrEqual(work.reduce((t, w) => t + w.ms, 0));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("starts the longest wait first, so two lanes end with it instead of after it", async () => {
    const work = [
      { ...item("rt-0"), ms: 10 },
      ...Array.from({ length: 8 }, (_, i) => ({ ...item(`s${i}-${i}`), ms: 500 })),
      { ...item("z-long"), ms: 4_000 },
    ];
    const { ms, started } = await simulate(work, 2, 1_000);
    expect(started[1]).toBe("2025-11-25 z-long");
    // 10 ms round trip, then 4 s on one lane while the other runs 8 × 0.5 s: about 4 s, not 8 s.
    expect(ms).toBeLessThanOrEqual(4_100);
  });
});

describe("the worst-case bound", () => {
  it("counts every session start twice, each split, each isolation relay and every case at its bound", () => {
    const profile = { startupTimeoutMs: 2_000, caseTimeoutMs: 5_000, answerTimeoutMs: 1_500 };
    const work = [
      item("a-1"),
      item("a-2"),
      item("b-1", "2024-11-05"),
      item("iso", "2025-11-25", { sessions: 2 } as Partial<LoadedCase>),
    ];
    const own = (w: WorkItem) => (w.kase.id === "a-2" ? "waits 0" : undefined);
    const start = profile.startupTimeoutMs + KILL_GRACE_MS;
    const perCase = profile.startupTimeoutMs + profile.caseTimeoutMs + CASE_SLACK_MS;
    // Sessions: a-1's group, b-1's group, a-2 on its own.
    expect(worstCaseMs(profile, work, own)).toBe(
      (3 + MAX_SPLITS) * MAX_STARTS_PER_GROUP * start + 1 * start + 4 * perCase + RUN_OVERHEAD_MS,
    );
    expect(worstCaseMs(profile, work, own)).toBeGreaterThan(worstCaseMs(profile, work.slice(0, 2), own));
  });
});
