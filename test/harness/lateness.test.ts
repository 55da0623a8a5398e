import { describe, expect, it } from "vitest";
import { type Attempt, MAX_LATE_RERUNS, rerunScale, rerunWhileLate } from "../../src/harness/late-rerun.ts";
import { expiryReportSlackMs, harnessLateness, LATE_REASON } from "../../src/harness/lateness.ts";
import { expirySlackMs } from "../../src/judge/case.ts";
import type { Answer } from "../../src/model/case.ts";
import type { Frame } from "../../src/model/evidence.ts";
import { lateRerunsOf } from "../../src/run/late-reruns.ts";
import { summaryLine } from "../../src/run/progress.ts";

// A fake clock: every time below is ms since the case began, as the frame recorder and the stall monitor give them.
const up = (t: number, id: number): Frame => ({
  t,
  end: "upstream",
  dir: "to-relay",
  message: { jsonrpc: "2.0", id: `up-${id}`, method: "sampling/createMessage", params: {} },
});
const question = (t: number, id: number): Frame => ({
  t,
  end: "downstream",
  dir: "from-relay",
  message: { jsonrpc: "2.0", id, method: "sampling/createMessage", params: {} },
});
const answerFrame = (t: number, id: number): Frame => ({
  t,
  end: "downstream",
  dir: "to-relay",
  message: { jsonrpc: "2.0", id, result: { role: "assistant", content: { type: "text", text: "hi" } } },
});
const expiry = (t: number, id: number): Frame => ({
  t,
  end: "upstream",
  dir: "from-relay",
  message: { jsonrpc: "2.0", id: `up-${id}`, error: { code: -32603, message: "timed out" } },
});

const accept = (delayMs?: number): Answer =>
  ({
    action: "accept",
    ...(delayMs ? { delayMs } : {}),
    result: { role: "assistant", content: { type: "text", text: "hi" } },
  }) as Answer;

// The burst measured under load (issue #35): asked at 321 ms, scripted 400 ms later, left 1,140 ms later.
const burst = [up(118, 3), question(321, 3), answerFrame(1460, 3), expiry(1818, 3)];

describe("harnessLateness: the harness was too late for the case to mean anything", () => {
  it("a scripted answer that could only leave after the deadline because the harness stalled is late", () => {
    const late = harnessLateness({
      frames: burst,
      answer: accept(400),
      deadlineMs: 1200,
      stalls: [[330, 1150]],
    });
    expect(late).toEqual({
      deadlineMs: 1200,
      scriptedDelayMs: 400,
      requestAtMs: 118,
      untilMs: 1818,
      lostMs: 820,
      turnaroundMs: 1139,
    });
  });

  it("the same frames with a harness that did not stall: on time, the relay's expiry is judged", () => {
    expect(
      harnessLateness({ frames: burst, answer: accept(400), deadlineMs: 1200, stalls: [] }),
    ).toBeUndefined();
    // A few short stalls that leave the answer inside the deadline do not make it late either.
    const small: Array<[number, number]> = [
      [400, 420],
      [900, 950],
    ];
    expect(
      harnessLateness({ frames: burst, answer: accept(400), deadlineMs: 1200, stalls: small }),
    ).toBeUndefined();
  });

  it("stalls outside the exchange do not count; those until the relay's outcome do (an answer may still be held)", () => {
    const before: Array<[number, number]> = [[-2000, 100]];
    expect(
      harnessLateness({ frames: burst, answer: accept(400), deadlineMs: 1200, stalls: before }),
    ).toBeUndefined();
    // Held-initialized under load: answered at once (1,743 ms), but the harness then stalled 826 ms before the POST left.
    const held = [up(1056, 1), question(1743, 1), answerFrame(1743.1, 1), expiry(2569, 1)];
    const stalls: Array<[number, number]> = [
      [1061, 1742],
      [1743, 2569],
    ];
    const late = harnessLateness({ frames: held, answer: accept(), deadlineMs: 1200, stalls });
    expect(late?.lostMs).toBe(1507);
  });

  it("answers that are late or absent on purpose are never the harness's lateness", () => {
    const stalls: Array<[number, number]> = [[0, 5000]];
    const base = { frames: burst, deadlineMs: 1200, stalls };
    expect(harnessLateness({ ...base, answer: { action: "expire" } as Answer, stalls: [] })).toBeUndefined();
    expect(harnessLateness({ ...base, answer: accept(1500) })).toBeUndefined();
    // No answer left the harness (the relay never asked): nothing to be late for.
    expect(
      harnessLateness({ ...base, frames: [up(118, 3), expiry(300, 3)], answer: accept() }),
    ).toBeUndefined();
  });

  it("an answer the stalled harness never sent before the relay's expiry is late", () => {
    const frames = [up(0, 1), question(10, 1), expiry(1500, 1)];
    const late = harnessLateness({ frames, answer: accept(), deadlineMs: 1200, stalls: [[20, 1400]] });
    expect(late).toEqual({
      deadlineMs: 1200,
      scriptedDelayMs: 0,
      requestAtMs: 0,
      untilMs: 1500,
      lostMs: 1380,
    });
  });

  it("a call that broke before the upstream asked anything: late when the harness stalled past the deadline", () => {
    const frames: Frame[] = [
      { t: 0, end: "downstream", dir: "to-relay", message: { jsonrpc: "2.0", id: 3, method: "tools/call" } },
    ];
    const base = { frames, answer: accept(), deadlineMs: 1200, brokenEndMs: 11_000 };
    expect(harnessLateness({ ...base, stalls: [[100, 9000]] })).toEqual({
      deadlineMs: 1200,
      scriptedDelayMs: 0,
      requestAtMs: 0,
      untilMs: 11_000,
      lostMs: 8900,
    });
    // A relay that broke the call while the harness was on time (never-relays, a crash) is judged.
    expect(harnessLateness({ ...base, stalls: [[100, 150]] })).toBeUndefined();
    expect(harnessLateness({ ...base, brokenEndMs: undefined, stalls: [[100, 9000]] })).toBeUndefined();
  });

  it("an expiry report read late only because the harness stalled is not judged; a relay late on its own is", () => {
    const expire = { action: "expire" } as Answer;
    // Deadline 1500 ms: the judge's bound is 1500 + 1000 ms.
    const frames = [up(0, 1), question(10, 1), expiry(3000, 1)];
    const late = harnessLateness({ frames, answer: expire, deadlineMs: 1500, stalls: [[1600, 2400]] });
    expect(late).toEqual({
      deadlineMs: 1500,
      scriptedDelayMs: 2500,
      requestAtMs: 0,
      untilMs: 3000,
      lostMs: 800,
      expiry: true,
    });
    // late-expiry on an idle harness: reported at 3000 ms with nothing lost, judged (and failed by the judge).
    expect(harnessLateness({ frames, answer: expire, deadlineMs: 1500, stalls: [] })).toBeUndefined();
    // Within the bound: nothing to excuse.
    const inTime = [up(0, 1), question(10, 1), expiry(1600, 1)];
    expect(
      harnessLateness({ frames: inTime, answer: expire, deadlineMs: 1500, stalls: [[100, 1500]] }),
    ).toBeUndefined();
  });

  it("the harness's expiry bound is the judge's", () => {
    for (const ms of [300, 1200, 1500, 2500, 10_000]) expect(expiryReportSlackMs(ms)).toBe(expirySlackMs(ms));
  });

  it("a decline is scripted at once: late when the harness's stall alone passes the deadline", () => {
    const decline = { action: "decline" } as Answer;
    const frames = [up(0, 1), question(10, 1), answerFrame(30, 1), expiry(1400, 1)];
    expect(harnessLateness({ frames, answer: decline, deadlineMs: 1200, stalls: [[40, 1300]] })?.lostMs).toBe(
      1280,
    );
    expect(
      harnessLateness({ frames, answer: decline, deadlineMs: 1200, stalls: [[40, 900]] }),
    ).toBeUndefined();
  });

  it("the harness's own time past the script after reading a question counts, with no stall to show it", () => {
    // Over HTTP the question is parsed in many small steps: the decline left 1,390 ms after its question came in.
    const frames = [up(0, 1), question(10, 1), answerFrame(1400, 1)];
    expect(
      harnessLateness({ frames, answer: { action: "decline" } as Answer, deadlineMs: 1200, stalls: [] }),
    ).toEqual({
      deadlineMs: 1200,
      scriptedDelayMs: 0,
      requestAtMs: 0,
      untilMs: 1400,
      lostMs: 1390,
      turnaroundMs: 1390,
    });
    // The same answer 400 ms after the question, as scripted: on time.
    const onTime = [up(0, 1), question(10, 1), answerFrame(410, 1)];
    expect(
      harnessLateness({ frames: onTime, answer: accept(400), deadlineMs: 1200, stalls: [] }),
    ).toBeUndefined();
  });

  it("2026-07-28: the question is the input_required result, the answer the retry with inputResponses", () => {
    const frames: Frame[] = [
      {
        t: 5,
        end: "upstream",
        dir: "to-relay",
        message: { jsonrpc: "2.0", id: 1, result: { resultType: "input_required", inputRequests: {} } },
      },
      {
        t: 20,
        end: "downstream",
        dir: "from-relay",
        message: { jsonrpc: "2.0", id: 2, result: { resultType: "input_required", inputRequests: {} } },
      },
      {
        t: 1900,
        end: "downstream",
        dir: "to-relay",
        message: { jsonrpc: "2.0", id: 3, method: "tools/call", params: { inputResponses: {} } },
      },
    ];
    const late = harnessLateness({ frames, answer: accept(750), deadlineMs: 1500, stalls: [[800, 1700]] });
    expect(late).toMatchObject({ requestAtMs: 5, untilMs: 1900, lostMs: 1130, turnaroundMs: 1880 });
  });
});

const output = (tag: string, harnessError?: string): Attempt["output"] => ({
  observation: { sent: { tag }, asked: [], upstream: { kind: "result", result: {} } } as never,
  frames: [answerFrame(10, 1)],
  negotiated: { upstream: null, downstream: null },
  ...(harnessError ? { harnessError } : {}),
});
const lateness = { deadlineMs: 1200, scriptedDelayMs: 400, requestAtMs: 0, untilMs: 1500, lostMs: 1100 };

describe("rerunWhileLate: a late attempt is not judged and runs again", () => {
  it("judges the first attempt the harness was on time for, keeping the late one beside it", async () => {
    const calls: number[] = [];
    const judged = await rerunWhileLate({ output: output("first"), lateness }, async (n) => {
      calls.push(n);
      return { output: output("second"), lateness: undefined };
    });
    expect(calls).toEqual([1]);
    expect(judged.observation.sent).toEqual({ tag: "second" });
    expect(judged.harnessError).toBeUndefined();
    expect(judged.lateAttempts).toHaveLength(1);
    expect(judged.lateAttempts![0]!.observation.sent).toEqual({ tag: "first" });
    expect(judged.lateAttempts![0]!.lateness).toEqual(lateness);
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
    expect(judged.harnessError).toContain("1100 ms");
    expect(judged.harnessError).toContain("400 + 1100 > 1200");
    expect(judged.lateAttempts).toHaveLength(MAX_LATE_RERUNS + 1);
  });

  it("an attempt on time, or one that is already a harness error, is judged as it is", async () => {
    const never = async (): Promise<Attempt> => {
      throw new Error("must not run again");
    };
    const onTime = await rerunWhileLate({ output: output("only"), lateness: undefined }, never);
    expect(onTime.lateAttempts).toBeUndefined();
    const broken = await rerunWhileLate({ output: output("x", "the run was interrupted"), lateness }, never);
    expect(broken.harnessError).toBe("the run was interrupted");
  });

  it("a re-run is more patient by the load measured, within bounds", () => {
    expect(rerunScale(lateness)).toBe(1.9);
    expect(rerunScale({ ...lateness, lostMs: 10 })).toBe(1.5);
    expect(rerunScale({ ...lateness, lostMs: 60_000 })).toBe(4);
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
