import { describe, expect, it } from "vitest";
import { type Evidence, EvidenceSchema, type Frame } from "../../src/model/evidence.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import {
  orderResponseRuns,
  stableEvidence,
  stableResults,
  withoutRetries,
  withoutWallClock,
} from "../../src/model/stable.ts";

/** The stable writer (`run --stable`): no wall-clock or measured time, frames in their order, nothing added. */

const frame = (t: number, end: Frame["end"], dir: Frame["dir"], message: Record<string, unknown>): Frame => ({
  t,
  end,
  dir,
  message: { jsonrpc: "2.0", ...message },
});

const evidence: Evidence = {
  schema: "mcpx-conform/evidence@1",
  tool: { name: "mcpx-conform", version: "0.1.0" },
  target: { name: "t" },
  seed: 1,
  era: "2025-11-25",
  case: { id: "c", row: "r", title: "T", why: "W", side: "intermediary" },
  negotiated: { upstream: "2025-11-25", downstream: "2025-11-25" },
  startedAt: "2026-01-01T00:00:00.000Z",
  durationMs: 1503,
  frames: [
    frame(0.4, "upstream", "to-relay", { id: "up-1", method: "sampling/createMessage" }),
    frame(1.2, "downstream", "from-relay", { id: 0, method: "sampling/createMessage" }),
    frame(1503.1, "upstream", "from-relay", { id: "up-1", error: { code: -32603, message: "expired" } }),
  ],
  observation: {
    sent: {},
    asked: [],
    upstream: { kind: "timeout", deadlineMs: 1500, afterMs: 1503 },
    sequence: [
      { round: 0, token: "x", sent: {}, outcome: { kind: "timeout", deadlineMs: 1500, afterMs: 1502 } },
    ],
  },
  verdict: {
    status: "pass",
    reason: "ok",
    checks: [{ id: "expiry-in-time", ok: true, detail: "within the declared deadline", measuredMs: 1503 }],
  },
};

const results: Results = {
  tool: { name: "mcpx-conform", version: "0.1.0" },
  target: { name: "t" },
  seed: 1,
  startedAt: "2026-01-01T00:00:00.000Z",
  finishedAt: "2026-01-01T00:00:09.000Z",
  cells: [
    {
      row: "r",
      era: "2025-11-25",
      side: "intermediary",
      status: "pass",
      cases: [
        { id: "c", status: "pass", reason: "ok", evidence: "evidence/r/c@2025-11-25.json", durationMs: 12 },
      ],
    },
  ],
  summary: { pass: 1 },
  fuzz: [
    { era: "2025-11-25", seed: 1, runs: 5, branches: {}, durationMs: 800, status: "pass", reason: "agreed" },
  ],
};

/** Every key anywhere in a JSON value. */
function keys(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keys(v, out);
  else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keys(v, out);
    }
  return out;
}

const TIMING_KEYS = ["startedAt", "finishedAt", "durationMs", "t", "afterMs", "measuredMs"];

describe("stable output", () => {
  it("evidence: no startedAt, durationMs, frame t, timeout afterMs or check measuredMs; stable: true", () => {
    const stable = stableEvidence(evidence);
    for (const key of TIMING_KEYS) expect(keys(stable).has(key), key).toBe(false);
    expect(stable.stable).toBe(true);
    // The fixed deadline stays; the frames keep their order and content.
    expect(stable.observation.upstream).toEqual({ kind: "timeout", deadlineMs: 1500 });
    expect(stable.frames.map((f) => f.message)).toEqual(evidence.frames.map((f) => f.message));
    expect(stable.verdict.checks[0]).toEqual({
      id: "expiry-in-time",
      ok: true,
      detail: "within the declared deadline",
    });
    // The original is left as it was (the judge's copy keeps its times).
    expect(evidence.frames[0]!.t).toBe(0.4);
    expect(EvidenceSchema.parse(JSON.parse(JSON.stringify(stable)))).toEqual(stable);
  });

  it("evidence: a second session's own outcome (2026-07-28 isolation) loses its afterMs too", () => {
    const twoSessions: Evidence = {
      ...evidence,
      observation: {
        ...evidence.observation,
        bystanders: [
          {
            session: "B",
            asked: [],
            token: "t",
            upstream: { kind: "timeout", deadlineMs: 1500, afterMs: 1612 },
          },
        ],
      },
    };
    const stable = stableEvidence(twoSessions);
    expect(keys(stable).has("afterMs")).toBe(false);
    expect(stable.observation.bystanders?.[0]?.upstream).toEqual({ kind: "timeout", deadlineMs: 1500 });
  });

  it("results: no startedAt, finishedAt or durationMs; stable: true; schema-valid", () => {
    const stable = stableResults(results);
    for (const key of TIMING_KEYS) expect(keys(stable).has(key), key).toBe(false);
    expect(stable.stable).toBe(true);
    expect(stable.cells[0]!.cases[0]).toEqual({
      id: "c",
      status: "pass",
      reason: "ok",
      evidence: "evidence/r/c@2025-11-25.json",
    });
    expect(ResultsSchema.parse(JSON.parse(JSON.stringify(stable)))).toEqual(stable);
  });

  it("the schemas allow the times to be absent only in stable output", () => {
    const { startedAt: _s, ...noStart } = results;
    expect(ResultsSchema.safeParse(noStart).success).toBe(false);
    expect(ResultsSchema.safeParse({ ...noStart, stable: true }).success).toBe(true);
    const { startedAt: _e, durationMs: _d, ...untimed } = evidence;
    expect(EvidenceSchema.safeParse(untimed).success).toBe(false);
    expect(EvidenceSchema.safeParse({ ...untimed, stable: true }).success).toBe(true);
  });

  it("is the same for two runs that differ only in their times", () => {
    const later: Evidence = {
      ...evidence,
      startedAt: "2026-01-02T10:00:00.000Z",
      durationMs: 1510,
      frames: evidence.frames.map((f) => ({ ...f, t: (f.t ?? 0) * 2 })),
      observation: {
        ...evidence.observation,
        upstream: { kind: "timeout", deadlineMs: 1500, afterMs: 1509 },
      },
    };
    expect(JSON.stringify(stableEvidence(later))).toBe(JSON.stringify(stableEvidence(evidence)));
    expect(JSON.stringify(later)).not.toBe(JSON.stringify(evidence));
  });
});

describe("stable output: a date-time a relay stamped, quoted in the harness's words", () => {
  // civic adds _meta.timestamp to what it relays; the reasons quote that _meta, clipped.
  const clipped = (stamp: string) =>
    `The upstream received a result, which differs from the answerer's: /_meta added (received {"targetSessionId":"s-1","timestamp":"${stamp}… (127 bytes of JSON))`;

  it("is <time>, whole or clipped, in reasons, notes, fuzz reasons and check details", () => {
    expect(withoutWallClock(clipped("2026-12-"))).toBe(clipped("<time>"));
    expect(withoutWallClock(clipped("2027-01-31T2"))).toBe(clipped("<time>"));
    expect(withoutWallClock('"at":"2026-12-04T07:52:40.123Z" and 2026-12-04T07:52:40+02:00')).toBe(
      '"at":"<time>" and <time>',
    );
    const stamped = (stamp: string) => ({
      ...results,
      cells: [
        {
          ...results.cells[0]!,
          note: `n/a since ${stamp}`,
          cases: [{ ...results.cells[0]!.cases[0]!, reason: clipped(stamp.slice(0, 8)) }],
        },
      ],
      fuzz: [{ ...results.fuzz![0]!, reason: `disagreed at ${stamp}` }],
    });
    const a = stableResults(stamped("2026-12-04T07:52:40.123Z"));
    const b = stableResults(stamped("2027-01-31T23:59:59.999Z"));
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.cells[0]!.cases[0]!.reason).toBe(clipped("<time>"));
    const check = { id: "c", ok: false, detail: clipped("2026-12-") };
    const e = stableEvidence({
      ...evidence,
      verdict: { ...evidence.verdict, reason: clipped("2026-1"), checks: [check] },
    });
    expect(e.verdict.reason).toBe(clipped("<time>"));
    expect(e.verdict.checks[0]!.detail).toBe(clipped("<time>"));
  });

  it("leaves eras, dates and the frames (the relay's own output) as they are", () => {
    const text = 'in 2025-11-25 and 2026-07-28, released "2024-11-05"; sent "2025-11-25…';
    expect(withoutWallClock(text)).toBe(text);
    expect(withoutWallClock("the relay spoke 2025-11-25 (2024-11-05 asked)")).toBe(
      "the relay spoke 2025-11-25 (2024-11-05 asked)",
    );
    const framed = {
      ...evidence,
      frames: [
        frame(1, "upstream", "from-relay", {
          id: 1,
          result: { _meta: { timestamp: "2026-12-04T07:52:40Z" } },
        }),
      ],
    };
    expect(stableEvidence(framed).frames[0]!.message).toEqual(framed.frames[0]!.message);
  });
});

describe("canonical order of back-to-back responses", () => {
  const ask = (end: Frame["end"], dir: Frame["dir"], id: string) =>
    frame(0, end, dir, { id, method: "sampling/createMessage" });
  const reply = (end: Frame["end"], dir: Frame["dir"], id: string) =>
    frame(0, end, dir, { id, result: { id } });
  const requests = [
    ask("upstream", "to-relay", "up-1"),
    ask("upstream", "to-relay", "up-2"),
    ask("upstream", "to-relay", "up-3"),
    ask("downstream", "from-relay", "d-1"),
    ask("downstream", "from-relay", "d-2"),
    ask("downstream", "from-relay", "d-3"),
  ];
  const canonical = [
    reply("downstream", "to-relay", "d-1"),
    reply("upstream", "from-relay", "up-1"),
    reply("downstream", "to-relay", "d-2"),
    reply("upstream", "from-relay", "up-2"),
    reply("downstream", "to-relay", "d-3"),
    reply("upstream", "from-relay", "up-3"),
  ];

  it("a burst answered in any order, forwarded in any interleaving, is listed one way", () => {
    const raced = [canonical[0]!, canonical[2]!, canonical[3]!, canonical[4]!, canonical[1]!, canonical[5]!];
    const shuffled = [
      canonical[4]!,
      canonical[2]!,
      canonical[0]!,
      canonical[5]!,
      canonical[1]!,
      canonical[3]!,
    ];
    for (const order of [canonical, raced, shuffled])
      expect(orderResponseRuns([...requests, ...order])).toEqual([...requests, ...canonical]);
  });

  it("leaves frames that are not back-to-back responses in place, and a response to another method after", () => {
    const call = frame(0, "upstream", "from-relay", { id: "c-1", method: "tools/call" });
    const callReply = frame(0, "upstream", "to-relay", { id: "c-1", result: {} });
    const note = frame(0, "downstream", "from-relay", { method: "notifications/message" });
    const frames = [call, ...requests, canonical[2]!, note, canonical[0]!, callReply];
    expect(orderResponseRuns(frames)).toEqual(frames);
  });

  it("keeps the harness's identical retries of a frame once", () => {
    const init = frame(0, "downstream", "to-relay", { id: "down-1", method: "initialize" });
    const frames = [init, { ...init }, { ...init }, reply("downstream", "from-relay", "down-1")];
    expect(withoutRetries(frames)).toEqual([init, frames[3]]);
    // The relay's own repeats are facts about the relay: kept.
    const dup = reply("upstream", "from-relay", "up-1");
    expect(withoutRetries([dup, { ...dup }])).toHaveLength(2);
  });
});
