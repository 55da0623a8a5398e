import { describe, expect, it } from "vitest";
import { compactedOf } from "../../src/model/compact.ts";
import { type Evidence, EvidenceSchema, type Frame } from "../../src/model/evidence.ts";
import {
  CASE_EVIDENCE_BYTES,
  EVIDENCE_FILE_MAX_BYTES,
  EVIDENCE_FILE_MIN_BYTES,
  evidenceBudgets,
  evidenceText,
  exchangesOf,
  fitEvidence,
  MIN_BUDGET_FRAME_BYTES,
} from "../../src/model/evidence-budget.ts";
import type { LoadedCase } from "../../src/model/load.ts";
import { resolveRunConfig } from "../../src/run/config.ts";
import { planRun } from "../../src/run/plan.ts";

const KIB = 1024;

function evidence(frames: Frame[], observation: Partial<Evidence["observation"]> = {}): Evidence {
  return {
    schema: "mcpx-conform/evidence@1",
    tool: { name: "mcpx-conform", version: "0" },
    target: { name: "t" },
    seed: 1,
    era: "2025-11-25",
    case: { id: "c", row: "r", title: "t", why: "w", side: "intermediary" },
    negotiated: { upstream: "2025-11-25", downstream: "2025-11-25" },
    startedAt: "2026-01-01T00:00:00Z",
    durationMs: 1,
    frames,
    observation: {
      sent: {},
      asked: [],
      upstream: { kind: "result", result: { model: "m" } },
      ...observation,
    },
    verdict: { status: "fail", reason: "r", checks: [] },
  };
}

/** A parsed upstream frame holding a text of `chars` characters. */
const frame = (chars: number, i = 0): Frame => ({
  t: i,
  end: i % 2 ? "downstream" : "upstream",
  dir: "from-relay",
  message: { jsonrpc: "2.0", id: i, result: { text: "y".repeat(chars) } },
});

describe("a case's share of the evidence budget", () => {
  const kase = (over: Partial<LoadedCase>) => over as LoadedCase;

  it("grows with the sampling requests a case makes", () => {
    expect(exchangesOf(kase({}))).toBe(1);
    expect(exchangesOf(kase({ sequence: { loop: 16 } }))).toBe(16);
    expect(exchangesOf(kase({ sequence: { burst: 48 } }))).toBe(48);
    expect(exchangesOf(kase({ sequence: { after: [{}, {}] } as never }))).toBe(3);
    expect(exchangesOf(kase({ mrtr: { keys: ["a", "b"] } as never }))).toBe(2);
    expect(exchangesOf(kase({ sessions: 2 }))).toBe(2);
  });

  it("the default run's transcripts share at most 80 MB, each between 32 KiB and 2 MB, the longest loop 1.5 MB", () => {
    const { work } = planRun(resolveRunConfig({ seed: "1" }));
    const budget = evidenceBudgets(work);
    const budgets = work.map((w) => budget(w.kase));
    expect(budgets.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(CASE_EVIDENCE_BYTES);
    for (const b of budgets) {
      expect(b).toBeGreaterThanOrEqual(EVIDENCE_FILE_MIN_BYTES);
      expect(b).toBeLessThanOrEqual(EVIDENCE_FILE_MAX_BYTES);
    }
    // The longest well-behaved transcript (the 16-round tool loop, 0.8 MB) is within its budget.
    const loop = work.find((w) => w.kase.id === "endless-loop-cut-client")!;
    expect(budget(loop.kase)).toBeGreaterThan(1.5 * KIB * KIB);
    // The one-request cases (most of them, about 12 KB each) get about 100 KB.
    expect(Math.min(...budgets)).toBeGreaterThan(90 * KIB);
  });

  it("never goes below the floor, however many cases share it", () => {
    const many = Array.from({ length: 5000 }, () => ({ kase: kase({}) }));
    expect(evidenceBudgets(many)(kase({}))).toBe(EVIDENCE_FILE_MIN_BYTES);
  });
});

describe("fitEvidence", () => {
  it("writes a transcript within its budget as it is: a well-behaved relay's evidence is unchanged", () => {
    const e = evidence([frame(100), frame(200, 1)]);
    const out = fitEvidence(e, 64 * KIB, 64 * KIB);
    expect(out.text).toBe(evidenceText(e));
    expect(out.cut).toBe(false);
    expect(out.bytes).toBe(Buffer.byteLength(out.text));
  });

  it("compacts an observation's strings over the frame cap (head, true size, sha256), whatever the budget", () => {
    const pad = "x".repeat(10 * KIB * KIB);
    const e = evidence([], { upstream: { kind: "result", result: { _meta: { pad } } } });
    const out = fitEvidence(e, EVIDENCE_FILE_MAX_BYTES, 64 * KIB);
    expect(out.bytes).toBeLessThan(4 * KIB);
    expect(out.cut).toBe(false);
    const written = EvidenceSchema.parse(JSON.parse(out.text));
    const kept = (written.observation.upstream as { result: { _meta: { pad: string } } }).result._meta.pad;
    expect(compactedOf(kept)).toMatchObject({ bytes: 10 * KIB * KIB });
    expect(written.budget).toBeUndefined();
  });

  it("cuts a transcript over its budget further (a 60-round loop of 64 KiB frames) and says so in the file", () => {
    const frames = Array.from({ length: 120 }, (_, i) => frame(60 * KIB, i));
    const e = evidence(frames);
    expect(Buffer.byteLength(evidenceText(e))).toBeGreaterThan(7 * KIB * KIB);
    const out = fitEvidence(e, EVIDENCE_FILE_MAX_BYTES, 64 * KIB);
    expect(out.bytes).toBeLessThanOrEqual(EVIDENCE_FILE_MAX_BYTES);
    expect(out.cut).toBe(true);
    const written = EvidenceSchema.parse(JSON.parse(out.text));
    expect(written.frames).toHaveLength(120);
    expect(written.budget).toMatchObject({ bytes: EVIDENCE_FILE_MAX_BYTES, frameBytes: 16 * KIB });
    expect(written.budget!.omittedFrames).toBeUndefined();
    expect(written.budget!.note).toMatch(
      /over its size budget of 2097152 bytes .*kept up to 16384 bytes each/,
    );
    // A cut frame keeps its head, its true size and the sha256 of its JSON.
    const cut = written.frames[0]!;
    expect(cut).toMatchObject({
      truncated: true,
      size: Buffer.byteLength(JSON.stringify(frames[0]!.message)),
    });
    expect(cut.message).toBeUndefined();
    expect(Buffer.byteLength(cut.raw!)).toBeLessThanOrEqual(16 * KIB);
    expect(cut.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("leaves frames out of the middle when even the smallest cap is over (a relay that floods a case)", () => {
    const frames = Array.from({ length: 20_000 }, (_, i) => frame(10, i));
    const e = {
      ...evidence(frames),
      officialSchema: {
        commit: "x",
        checked: 3,
        findings: [0, 10_000, 19_999].map((f) => ({
          frame: f,
          end: "upstream" as const,
          era: "2025-11-25" as const,
          definition: "d",
          pointer: "/",
          message: "m",
        })),
      },
    };
    const out = fitEvidence(e, 256 * KIB, 64 * KIB);
    expect(out.bytes).toBeLessThanOrEqual(256 * KIB);
    const written = EvidenceSchema.parse(JSON.parse(out.text));
    const { from, count } = written.budget!.omittedFrames!;
    expect(written.budget!.frameBytes).toBe(MIN_BUDGET_FRAME_BYTES);
    expect(written.frames.length + count).toBe(20_000);
    expect(written.frames[0]!.message).toEqual(frames[0]!.message);
    expect(written.frames.at(-1)!.message).toEqual(frames.at(-1)!.message);
    expect(written.frames[from]!.message).toEqual(frames[from + count]!.message);
    // Findings on frames left out go with them; the others point at the same frames as before.
    expect(written.officialSchema!.findings.map((f) => f.frame)).toEqual([0, 19_999 - count]);
    expect(written.budget!.note).toMatch(new RegExp(`${count} frames from frame ${from} on are left out`));
  });
});
