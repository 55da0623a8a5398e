import { describe, expect, it, vi } from "vitest";
import { CoreWaitSampler } from "../../src/harness/core-wait.ts";
import {
  type Attempt,
  LATE_FRAME_BYTES,
  LATE_FRAMES,
  MAX_LATE_RERUNS,
  rerunScale,
  rerunWhileLate,
} from "../../src/harness/late-rerun.ts";
import {
  type ActionLog,
  caseLateness,
  describeLateness,
  harnessLateness,
  LATE_REASON,
  timedActions,
} from "../../src/harness/lateness.ts";
import type { ActionTiming, Evidence, Frame, HarnessLateness } from "../../src/model/evidence.ts";
import { fitEvidence } from "../../src/model/evidence-budget.ts";
import { lateRerunsOf } from "../../src/run/late-reruns.ts";
import { summaryLine } from "../../src/run/progress.ts";

// A fake clock: every time below is ms since the case began, as the frame recorder gives them.
const up = (t: number, id: number): Frame => ({
  t,
  end: "upstream",
  dir: "to-relay",
  message: { jsonrpc: "2.0", id: `up-${id}`, method: "sampling/createMessage", params: {} },
});
const expiry = (t: number, id: number): Frame => ({
  t,
  end: "upstream",
  dir: "from-relay",
  message: { jsonrpc: "2.0", id: `up-${id}`, error: { code: -32603, message: "timed out" } },
});
const answer = (a: Partial<ActionTiming>): ActionTiming => ({
  kind: "answer",
  deliveredMs: 321,
  scriptedDelayMs: 400,
  writtenMs: 1460,
  readWaitMs: 0,
  coreWaitMs: 700,
  ...a,
});

/** A fake run-queue counter: `waits` are [from, to] stretches of performance.now() in which the harness had no core. */
function fakeCoreWait(waits: Array<[number, number]>) {
  let now = 0;
  const read = () => waits.reduce((n, [a, b]) => n + Math.max(0, Math.min(b, now) - a), 0);
  const sampler = new CoreWaitSampler(read, () => now);
  return {
    sampler,
    /** Advances the fake clock, sampling every 20 ms as the real timer would. */
    advanceTo(t: number) {
      while (now < t) {
        now = Math.min(t, now + 20);
        sampler.sample();
      }
    },
  };
}

// The burst measured under load (issue #35): the upstream asked at 118 ms, the question reached the answerer at
// 321 ms, its answer was scripted 400 ms later and left at 1,460 ms; the relay expired it at 1,818 ms.
const burst = [up(118, 3), expiry(1818, 3)];
const base = { frames: burst, deadlineMs: 1200, delivered: false };

describe("harnessLateness: only the harness's own delay in a scripted action counts", () => {
  it("an answer that left late while the harness waited for a core, past half the script's margin, is late", () => {
    expect(harnessLateness({ ...base, actions: [answer({})] })).toEqual({
      deadlineMs: 1200,
      kind: "answer",
      requestAtMs: 118,
      deliveredMs: 321,
      readWaitMs: 0,
      scriptedDelayMs: 400,
      writtenMs: 1460,
      lateMs: 700,
      marginMs: 597,
      outcomeAtMs: 1818,
    });
  });

  it("time spent working (parsing a flood of frames) is not lateness: no wait for a core, no lateness", () => {
    // The same answer, as late on the wall clock, but the harness had a core all along (it was busy reading).
    expect(harnessLateness({ ...base, actions: [answer({ coreWaitMs: 0 })] })).toBeUndefined();
    // A wait for a core counts only up to how late the action actually left.
    expect(
      harnessLateness({ ...base, actions: [answer({ writtenMs: 800, coreWaitMs: 5000 })] }),
    ).toBeUndefined();
  });

  it("lateness that leaves most of the margin is not late (the relay had the answer in time)", () => {
    expect(harnessLateness({ ...base, actions: [answer({ coreWaitMs: 250 })] })).toBeUndefined();
    expect(harnessLateness({ ...base, actions: [answer({ coreWaitMs: 300 })] })?.lateMs).toBe(300);
  });

  it("only where the outcome depends on it", () => {
    const late = [answer({})];
    // The answer was delivered anyway.
    expect(harnessLateness({ ...base, actions: late, delivered: true })).toBeUndefined();
    // The relay ruled before the answer was even due: it did not wait for it (a relay that expires early).
    expect(harnessLateness({ ...base, frames: [up(118, 3), expiry(700, 3)], actions: late })).toBeUndefined();
    // Ruling after it was due but before the declared deadline (a stage with a shorter deadline of its own): judged
    // against the harness's lateness all the same.
    expect(harnessLateness({ ...base, frames: [up(118, 3), expiry(1000, 3)], actions: late })?.lateMs).toBe(
      700,
    );
    // Answers late on purpose (scripted at or past the deadline) and no answer at all (expiry cases).
    expect(
      harnessLateness({ ...base, actions: [answer({ scriptedDelayMs: 1500, writtenMs: 2600 })] }),
    ).toBeUndefined();
    expect(harnessLateness({ ...base, actions: [] })).toBeUndefined();
    // The relay asked so late that the script was already past its deadline: its doing, not the harness's.
    expect(
      harnessLateness({ ...base, actions: [answer({ deliveredMs: 1100, writtenMs: 2300 })] }),
    ).toBeUndefined();
    // Nothing asked at the upstream: nothing to be late for.
    expect(harnessLateness({ ...base, frames: [], actions: late })).toBeUndefined();
  });

  it("a question that waited to be read while the harness had no core counts; one the relay sent late does not", () => {
    // Measured under load: the upstream asked at 186 ms, the question and the relay's cancellation were read together
    // at 1,560 ms, the answer left at once; the relay's expiry came at 1,656 ms.
    const frames = [up(186, 1), expiry(1656, 1)];
    const read = answer({ deliveredMs: 1560, scriptedDelayMs: 0, writtenMs: 1560.5, coreWaitMs: 0 });
    expect(harnessLateness({ ...base, frames, actions: [{ ...read, readWaitMs: 1100 }] })).toMatchObject({
      readWaitMs: 1100,
      lateMs: 1100,
      marginMs: 926,
    });
    expect(harnessLateness({ ...base, frames, actions: [read] })).toBeUndefined();
  });

  it("a question's read wait starts no earlier than the harness's own earlier action it followed", () => {
    const { sampler, advanceTo } = fakeCoreWait([[0, 900]]);
    advanceTo(2000);
    const log: ActionLog = [
      { kind: "answer", deliveredAt: 100, scriptedDelayMs: 0, writtenAt: 800 },
      { kind: "answer", deliveredAt: 1000, scriptedDelayMs: 0, writtenAt: 1001 },
    ];
    const [first, second] = timedActions(log, 0, sampler, [50]);
    expect(first!.readWaitMs).toBe(50);
    expect(first!.coreWaitMs).toBe(700);
    expect(second!.readWaitMs).toBe(100);
  });

  it("each action is timed from the upstream's request it answers (a tool loop's round), the deadline from there", () => {
    const { sampler, advanceTo } = fakeCoreWait([[2300, 2520]]);
    advanceTo(3000);
    const log: ActionLog = [
      { kind: "answer", deliveredAt: 20, scriptedDelayMs: 0, writtenAt: 21 },
      { kind: "answer", deliveredAt: 2527, scriptedDelayMs: 0, writtenAt: 2527 },
    ];
    const actions = timedActions(log, 0, sampler, [5, 2290]);
    expect(actions.map((a) => a.requestAtMs)).toEqual([5, 2290]);
    expect(actions[1]!.readWaitMs).toBe(220);
    // 220 ms of a 2,500 ms deadline's margin: the relay had the round's answer in time.
    const frames = [up(5, 1), up(2290, 2), expiry(2721, 2)];
    expect(harnessLateness({ frames, actions, deadlineMs: 2500, delivered: false })).toBeUndefined();
  });

  it("a review decision is an action too: a response review the harness saw late while it had no core", () => {
    const frames = [up(337, 1), expiry(4558, 1)];
    const review = answer({
      kind: "review",
      requestAtMs: 337,
      deliveredMs: 4435,
      scriptedDelayMs: 0,
      writtenMs: 4436,
      readWaitMs: 3300,
      coreWaitMs: 0,
    });
    expect(harnessLateness({ frames, actions: [review], deadlineMs: 2500, delivered: false })).toMatchObject({
      kind: "review",
      lateMs: 3300,
    });
  });

  it("an action still in flight when the case ends is timed as leaving then, at least that late", () => {
    const epoch = performance.now() - 1000;
    const none = new CoreWaitSampler(() => undefined);
    const [inFlight] = timedActions(
      [{ kind: "answer", deliveredAt: epoch + 500, scriptedDelayMs: 0 }],
      epoch,
      none,
      [100],
    );
    expect(inFlight!.writtenMs).toBeGreaterThanOrEqual(1000);
    expect(inFlight!.requestAtMs).toBe(100);
  });

  it("2026-07-28: the question is the input_required result, the action the retry", () => {
    const frames: Frame[] = [
      {
        t: 5,
        end: "upstream",
        dir: "to-relay",
        message: { jsonrpc: "2.0", id: 1, result: { resultType: "input_required", inputRequests: {} } },
      },
      {
        t: 2000,
        end: "upstream",
        dir: "from-relay",
        message: { jsonrpc: "2.0", id: 2, method: "tools/call" },
      },
    ];
    const retry = answer({
      kind: "retry",
      deliveredMs: 20,
      scriptedDelayMs: 750,
      writtenMs: 1900,
      coreWaitMs: 900,
    });
    expect(harnessLateness({ frames, actions: [retry], deadlineMs: 1500, delivered: false })).toMatchObject({
      kind: "retry",
      requestAtMs: 5,
      lateMs: 900,
      marginMs: 735,
    });
  });
});

describe("CoreWaitSampler: the run-queue wait between two moments", () => {
  it("interpolates between samples, and counts nothing where the counter does not exist", () => {
    const { sampler, advanceTo } = fakeCoreWait([[100, 400]]);
    advanceTo(1000);
    expect(sampler.available).toBe(true);
    expect(sampler.waitBetween(0, 1000)).toBe(300);
    expect(sampler.waitBetween(200, 300)).toBe(100);
    expect(sampler.waitBetween(500, 900)).toBe(0);
    const none = new CoreWaitSampler(() => undefined);
    expect(none.available).toBe(false);
    expect(none.waitBetween(0, 1000)).toBe(0);
  });
});

const frame = (t: number, bytes = 10): Frame => ({
  t,
  end: "upstream",
  dir: "from-relay",
  message: { jsonrpc: "2.0", id: 1, result: { pad: "x".repeat(bytes) } },
});
const output = (tag: string, frames = [frame(10)], harnessError?: string): Attempt["output"] => ({
  observation: {
    sent: { tag },
    asked: [],
    upstream: { kind: "error", error: { code: -32603, message: "timed out" } },
  } as never,
  frames,
  negotiated: { upstream: null, downstream: null },
  ...(harnessError ? { harnessError } : {}),
});
const lateness: HarnessLateness = {
  deadlineMs: 1200,
  kind: "answer",
  requestAtMs: 118,
  deliveredMs: 321,
  scriptedDelayMs: 400,
  writtenMs: 1460,
  readWaitMs: 0,
  lateMs: 700,
  marginMs: 597,
};

describe("a late answer on a fake clock is not judged: the case runs again", () => {
  it("from the answerer's log to a re-run: the late attempt is kept beside the judged one", async () => {
    // The harness had no core from 700 to 1,400 ms: the answer due at 721 ms left at 1,460 ms.
    const { sampler, advanceTo } = fakeCoreWait([[700, 1400]]);
    advanceTo(2000);
    const log: ActionLog = [{ kind: "answer", deliveredAt: 321, scriptedDelayMs: 400, writtenAt: 1460 }];
    const actions = timedActions(log, 0, sampler, [118]);
    expect(actions[0]!.coreWaitMs).toBe(679);
    expect(actions[0]!.readWaitMs).toBe(0);
    const first: Attempt = {
      output: output("first"),
      lateness: harnessLateness({ ...base, actions }),
    };
    expect(first.lateness?.lateMs).toBe(679);
    const calls: number[] = [];
    const judged = await rerunWhileLate(first, async (n, last) => {
      calls.push(n);
      // The late attempt's frames are not held for the re-run.
      expect(last.output.frames).toEqual([]);
      const onTime = timedActions([{ ...log[0]!, writtenAt: 722 }], 0, sampler, [118]);
      return { output: output("second"), lateness: harnessLateness({ ...base, actions: onTime }) };
    });
    expect(calls).toEqual([1]);
    expect(judged.observation.sent).toEqual({ tag: "second" });
    expect(judged.harnessError).toBeUndefined();
    expect(judged.lateAttempts).toHaveLength(1);
    expect(judged.lateAttempts![0]!.lateness.lateMs).toBe(679);
  });

  it("late every time: a bounded number of re-runs, then an error naming the harness's lateness and its times", async () => {
    let reruns = 0;
    const again = async (): Promise<Attempt> => {
      reruns++;
      return { output: output(`rerun ${reruns}`), lateness };
    };
    const judged = await rerunWhileLate({ output: output("first"), lateness }, again);
    expect(reruns).toBe(MAX_LATE_RERUNS);
    expect(judged.harnessError).toContain(LATE_REASON);
    expect(judged.harnessError).toContain("700 ms late in all while the harness waited for a core");
    expect(judged.harnessError).toContain("597 ms margin");
    expect(judged.harnessError).toContain("1200 ms deadline");
    expect(judged.lateAttempts).toHaveLength(MAX_LATE_RERUNS + 1);
  });

  it("an attempt on time, or one that is already a harness error, is judged as it is", async () => {
    const never = async (): Promise<Attempt> => {
      throw new Error("must not run again");
    };
    const onTime = await rerunWhileLate({ output: output("only"), lateness: undefined }, never);
    expect(onTime.lateAttempts).toBeUndefined();
    const broken = await rerunWhileLate(
      { output: output("x", [], "the run was interrupted"), lateness },
      never,
    );
    expect(broken.harnessError).toBe("the run was interrupted");
  });

  it("a late attempt keeps only the heads of its first and last frames, and its outcome compacted", async () => {
    const flood = Array.from({ length: 40 }, (_, i) => frame(i, 10 * 1024 * 1024 * (i === 0 ? 1 : 0) + 100));
    const judged = await rerunWhileLate({ output: output("flood", flood), lateness }, async () => ({
      output: output("second"),
      lateness: undefined,
    }));
    const late = judged.lateAttempts![0]!;
    expect(late.frameCount).toBe(40);
    expect(late.frames).toHaveLength(LATE_FRAMES);
    for (const f of late.frames) expect(JSON.stringify(f).length).toBeLessThan(LATE_FRAME_BYTES + 400);
  });

  it("a re-run is more patient by the share of the margin lost, within bounds", () => {
    expect(rerunScale(lateness)).toBe(2.2);
    expect(rerunScale({ ...lateness, lateMs: 60 })).toBe(1.5);
    expect(rerunScale({ ...lateness, lateMs: 60_000 })).toBe(4);
  });

  it("an evidence file over its budget gives up the late attempts' frames first", () => {
    const late = {
      lateness,
      upstream: {},
      frameCount: 16,
      frames: Array.from({ length: 16 }, (_, i) => ({ ...frame(i, 1000) })),
    };
    const evidence = {
      frames: [frame(1)],
      observation: { sent: {}, asked: [], upstream: { kind: "result", result: {} } },
      lateAttempts: [late, late, late],
    } as unknown as Evidence;
    const fitted = fitEvidence(evidence, 8 * 1024, 64 * 1024);
    expect(fitted.bytes).toBeLessThanOrEqual(8 * 1024);
    const written = JSON.parse(fitted.text) as Evidence;
    expect(written.frames).toHaveLength(1);
    expect(written.lateAttempts!.map((a) => [a.frames.length, a.lateness.lateMs])).toEqual([
      [0, 700],
      [0, 700],
      [0, 700],
    ]);
    expect(written.budget?.note).toContain("attempts the harness was late for");
  });
});

describe("the summary says how many cases ran again and why", () => {
  const cell = (status: "pass" | "error", lateReruns: number, reason: string) => ({
    row: "r",
    era: "2025-11-25" as const,
    side: "client" as const,
    status,
    cases: [{ id: "c", status, reason, lateReruns }],
  });
  it("counts re-runs and the cases late every time", () => {
    const cells = [
      cell("pass", 1, "Delivered"),
      cell("error", 2, `Harness error: ${LATE_REASON} in 3 attempt(s)`),
    ];
    const late = lateRerunsOf(cells);
    expect(late).toEqual({ lateReruns: { cases: 2, reruns: 3, stillLate: 1 } });
    const line = summaryLine(
      { results: { summary: { pass: 1, error: 1 }, cells, ...late }, outDir: "/o" },
      "/",
    );
    expect(line).toContain(
      "(2 case(s) re-run 3× as the harness was late for them, 1 late every time (error))",
    );
    expect(lateRerunsOf([])).toEqual({});
  });
});

describe("the harness's own wait ran out: its lateness when its wait for a core accounts for it", () => {
  // A tool loop as measured beside eight busy processes (issue #35): round n is entry n − 1; the upstream's bound
  // was 5,500 ms (caseTimeoutMs 6,000 less its margin).
  const result = { kind: "result", result: { role: "assistant" } } as const;
  const loop = (outcomes: Array<Record<string, unknown>>) =>
    outcomes.map((outcome, round) => ({ round, key: `k-${round + 1}`, token: `t${round + 1}`, outcome }));
  const loopOutput = (outcomes: Array<Record<string, unknown>>, coreWaitMs: number) =>
    ({
      observation: {
        sent: {},
        asked: [],
        upstream: result,
        sequence: loop(outcomes),
      },
      frames: [up(116, 1)],
      actions: [],
      harnessWait: { boundMs: 5500, coreWaitMs },
    }) as never;
  const timedOut = (afterMs: number) => ({ kind: "timeout", deadlineMs: 5500, afterMs });

  it("2025-11-25: round 5 timed out after 774 ms while the harness waited 1,200 ms for a core: late, re-run", async () => {
    const late = caseLateness(loopOutput([result, result, result, result, timedOut(774)], 1200), 1200);
    expect(late).toEqual({
      kind: "bound",
      boundMs: 5500,
      round: 5,
      waitedMs: 774,
      lateMs: 1200,
      marginMs: 774,
    });
    const again = vi.fn(async (): Promise<Attempt> => ({ output: output("second"), lateness: undefined }));
    const judged = await rerunWhileLate({ output: output("first"), lateness: late }, again);
    expect(again).toHaveBeenCalledTimes(1);
    expect(judged.observation.sent).toEqual({ tag: "second" });
    expect(judged.lateAttempts![0]!.lateness).toEqual(late);
    // Still late every time: an error naming the harness's own wait and its measured times, never the relay.
    const stillLate = await rerunWhileLate({ output: output("first"), lateness: late }, async () => ({
      output: output("again"),
      lateness: late,
    }));
    expect(stillLate.harnessError).toContain(LATE_REASON);
    expect(stillLate.harnessError).toContain(
      "its case time limit, 5500 ms, not the relay's deadline) ran out while round 5's request had waited 774 ms",
    );
    expect(stillLate.harnessError).toContain("the harness waited 1200 ms for a core");
  });

  it("2026-07-28: the wait ran out before round 6 was sent; the rounds' pace (1,100 ms) is what must be accounted for", () => {
    const five = [result, result, result, result, result];
    const late = caseLateness(loopOutput([...five, timedOut(0)], 1300), 1200);
    expect(late).toMatchObject({ kind: "bound", round: 6, waitedMs: 0, marginMs: 1100, lateMs: 1300 });
    expect(describeLateness(late!, 3)).toContain("before round 6's request was sent");
    expect(caseLateness(loopOutput([...five, timedOut(0)], 900), 1200)).toBeUndefined();
  });

  it("a relay that never answers had the whole bound: no wait for a core accounts for it, the timeout stands", () => {
    // 1,090 ms: the harness's wait for a core measured while it slept 5.5 s beside eight busy processes.
    const never = caseLateness(loopOutput([timedOut(5500)], 1090), 1200);
    expect(never).toBeUndefined();
    const single = {
      observation: { sent: {}, asked: [], upstream: timedOut(5500) },
      frames: [up(116, 1)],
      harnessWait: { boundMs: 5500, coreWaitMs: 1090 },
    } as never;
    expect(caseLateness(single, 1200)).toBeUndefined();
  });

  it("no core wait, no lateness: an idle harness's timeout is the relay's; nor is an outcome that did not time out", () => {
    expect(caseLateness(loopOutput([result, result, timedOut(774)], 20), 1200)).toBeUndefined();
    expect(caseLateness(loopOutput([result, result, timedOut(30)], 40), 1200)).toBeUndefined();
    expect(
      caseLateness(loopOutput([result, result, { kind: "error", error: {} }], 5000), 1200),
    ).toBeUndefined();
    // Without the measure (a case the driver did not time), nothing is inferred.
    const unmeasured = { ...(loopOutput([result, timedOut(10)], 0) as object), harnessWait: undefined };
    expect(caseLateness(unmeasured as never, 1200)).toBeUndefined();
  });
});
