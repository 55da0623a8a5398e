import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  eraPrerequisite,
  evidenceFor,
  judgeOne,
  judgeRuns,
  ROUNDTRIP_ROW,
  roundTripFailed,
  roundTripVerdict,
  roundTripVerdictsFailed,
  rowIndexOf,
  withEraPrerequisite,
} from "../../src/judge/judge-runs.ts";
import type { CaseRun } from "../../src/model/case-run.ts";
import type { Register } from "../../src/model/register.ts";
import type { Era } from "../../src/protocol/eras.ts";
import { caseRun, SENT } from "../helpers/case-run.ts";

const register: Register = {
  rows: [
    {
      id: ROUNDTRIP_ROW,
      title: "rt",
      side: "intermediary",
      level: "MUST",
      eras: ["2024-11-05", "2025-11-25"],
      quote: "q",
      url: "https://e.com/",
    },
    {
      id: "sampling-must",
      title: "m",
      side: "both",
      level: "MUST",
      eras: ["2024-11-05", "2025-11-25"],
      quote: "q2",
      url: "https://e.com/2",
    },
    {
      id: "sampling-should",
      title: "s",
      side: "client",
      level: "SHOULD",
      eras: ["2024-11-05", "2025-11-25"],
      quote: "q3",
      url: "https://e.com/3",
    },
  ],
};

describe("judgeRuns", () => {
  it("judges each run with its row's severity, and passes when the era's round trip passed", () => {
    const judged = judgeRuns(register, [
      caseRun(ROUNDTRIP_ROW, "2025-11-25", true),
      caseRun("sampling-must", "2025-11-25", true),
    ]);
    expect(judged.map((j) => j.verdict.status)).toEqual(["pass", "pass"]);
    expect(judged[1]!.row.id).toBe("sampling-must");
  });

  it("fails MUST rows and warns SHOULD rows, or as the case says", () => {
    const judged = judgeRuns(register, [
      caseRun(ROUNDTRIP_ROW, "2025-11-25", true),
      caseRun("sampling-must", "2025-11-25", false),
      caseRun("sampling-should", "2025-11-25", false),
      caseRun("sampling-should", "2025-11-25", false, {}, { severity: "failure" }),
    ]);
    expect(judged.map((j) => j.verdict.status)).toEqual(["pass", "fail", "warn", "fail"]);
  });

  it("withholds credit per era when the round trip failed or did not run, naming the failed case", () => {
    const judged = judgeRuns(register, [
      caseRun(ROUNDTRIP_ROW, "2024-11-05", false),
      caseRun("sampling-must", "2024-11-05", true),
      caseRun(ROUNDTRIP_ROW, "2025-11-25", true),
      caseRun("sampling-must", "2025-11-25", true),
    ]);
    expect(judged.map((j) => `${j.run.era}:${j.verdict.status}`)).toEqual([
      "2024-11-05:fail",
      "2024-11-05:fail",
      "2025-11-25:pass",
      "2025-11-25:pass",
    ]);
    expect(judged[1]!.verdict.reason).toMatch(
      /^Prerequisite not met: the relay did not complete a valid sampling round trip in 2024-11-05 \(sampling-relay-roundtrip-case: The upstream received error -32603/,
    );
    // The round-trip case keeps its own verdict.
    expect(judged[0]!.verdict.reason).not.toMatch(/^Prerequisite/);
    const alone = judgeRuns(register, [caseRun("sampling-must", "2025-11-25", true)]);
    expect(alone[0]!.verdict.status).toBe("fail");
    expect(alone[0]!.verdict.reason).toBe(
      "Prerequisite not met: no sampling-relay-roundtrip case ran in 2025-11-25, so this case proves nothing (it would otherwise have been pass)",
    );
  });

  it("reports a harness failure as an error, never as the relay's fault", () => {
    const judged = judgeRuns(register, [
      caseRun(ROUNDTRIP_ROW, "2025-11-25", true),
      caseRun("sampling-must", "2025-11-25", true, { harnessError: "relay would not start" }),
    ]);
    expect(judged[1]!.verdict).toEqual({
      status: "error",
      reason: "Harness could not drive the case: relay would not start",
      checks: [],
    });
    const rt = judgeRuns(register, [
      caseRun(ROUNDTRIP_ROW, "2025-11-25", true, { harnessError: "boom" }),
      caseRun("sampling-must", "2025-11-25", true),
    ]);
    // A round trip the harness could not drive leaves the era un-judged: error, not the relay's failure.
    expect(rt.map((j) => j.verdict.status)).toEqual(["error", "error"]);
    expect(rt[1]!.verdict.reason).toMatch(/^Not judged: the harness could not drive the round trip/);
  });

  it("calls a cell the relay negotiated an older protocol for an error naming the version", () => {
    const [, older] = judgeRuns(register, [
      caseRun(ROUNDTRIP_ROW, "2025-11-25", true),
      caseRun("sampling-must", "2025-11-25", false, {
        negotiated: { upstream: "2025-11-25", downstream: "2025-06-18" },
      }),
    ]);
    expect(older!.verdict.status).toBe("error");
    expect(older!.verdict.reason).toMatch(/negotiated protocol 2025-06-18 at its downstream hop/);
  });

  it("calls a bridging case n/a when the relay made its client speak the upstream's older era (nothing crossed)", () => {
    const bridge = (downstream: string) =>
      judgeRuns(register, [
        caseRun(ROUNDTRIP_ROW, "2024-11-05", true),
        caseRun(
          "sampling-must",
          "2024-11-05",
          false,
          { negotiated: { upstream: "2024-11-05", downstream } },
          { downstreamEra: "2025-11-25" },
        ),
      ])[1]!.verdict;
    expect(bridge("2024-11-05")).toMatchObject({
      status: "skip",
      na: true,
      reason:
        "the relay does not bridge a 2025-11-25 client to a 2024-11-05 upstream: it negotiated 2024-11-05 with the client (the upstream's version, passed through), so nothing crossed between eras",
    });
    // The client got the era the case pinned: the bridge was exercised and is judged (here it fails).
    expect(bridge("2025-11-25").status).toBe("fail");
  });

  it("attributes a finding on a delivered message to the row of the rule it breaks, once per cell", () => {
    const noModel = { role: "assistant", content: { type: "text", text: "x" } };
    const [, j] = judgeRuns(register, [
      caseRun(ROUNDTRIP_ROW, "2025-11-25", true),
      caseRun("sampling-must", "2025-11-25", true, {
        observation: {
          sent: SENT,
          asked: [SENT],
          answered: { result: noModel },
          upstream: { kind: "result", result: noModel },
        },
      }),
    ]);
    expect(j!.verdict.status).toBe("pass");
    expect(j!.attributed).toEqual([
      expect.objectContaining({
        row: "sampling-both-validate-message-content",
        side: "server",
        status: "fail",
      }),
    ]);
    expect(j!.attributed[0]!.reason).toMatch(
      /result\.model.*\(seen in case sampling-must\/sampling-must-case\)$/,
    );
  });
});

describe("evidenceFor", () => {
  it("records the case (with its definition, no file path inside it), the rule, the verdict and the wire", () => {
    const [j] = judgeRuns(register, [
      caseRun(ROUNDTRIP_ROW, "2025-11-25", true, { relayLog: "stderr tail" }),
    ]);
    const meta = { tool: { name: "mcpx-conform", version: "1.2.3" }, target: { name: "t" }, seed: 9 };
    const e = evidenceFor(j!, meta) as any;
    expect(e).toMatchObject({
      schema: "mcpx-conform/evidence@1",
      tool: meta.tool,
      target: meta.target,
      seed: 9,
      era: "2025-11-25",
      canary: "c",
      case: {
        id: "sampling-relay-roundtrip-case",
        row: ROUNDTRIP_ROW,
        title: "t",
        why: "w",
        side: "intermediary",
        file: "cases/x.yaml",
      },
      rule: { quote: "q", url: "https://e.com/", level: "MUST" },
      negotiated: { upstream: "2025-11-25", downstream: "2025-11-25" },
      startedAt: "2026-01-01T00:00:00Z",
      durationMs: 3,
      frames: [],
      verdict: { status: "pass" },
      relayLog: "stderr tail",
    });
    expect(e.case.definition).toMatchObject({ id: "sampling-relay-roundtrip-case", row: ROUNDTRIP_ROW });
    expect(e.case.definition).not.toHaveProperty("file");
    expect(e.observation.upstream.kind).toBe("result");
    const [k] = judgeRuns(register, [caseRun("sampling-must", "2025-11-25", true, {}, { side: "server" })]);
    const e2 = evidenceFor(k!, meta) as any;
    expect(e2.case.side).toBe("server");
    expect(e2).not.toHaveProperty("relayLog");
  });
});

/**
 * The pieces judgeRuns is made of, as a run judged live uses them one run at a time: judgeOne on each run alone, the
 * era's prerequisite from its round trips' verdicts only, and withEraPrerequisite. Together they must give exactly
 * judgeRuns' verdicts (a run is judged once, as soon as its era's round trips are in, and never re-judged).
 */
describe("judgeOne + eraPrerequisite + withEraPrerequisite = judgeRuns", () => {
  const ERAS: Era[] = ["2024-11-05", "2025-11-25"];
  const aRun = fc
    .record({
      row: fc.constantFrom(ROUNDTRIP_ROW, "sampling-must", "sampling-should"),
      era: fc.constantFrom(...ERAS),
      ok: fc.boolean(),
      twist: fc.constantFrom("none", "none", "harness", "notRun", "notApplicable", "older"),
    })
    .map(({ row, era, ok, twist }) => {
      const over: Partial<CaseRun> =
        twist === "harness"
          ? { harnessError: "relay would not start" }
          : twist === "notRun"
            ? { notRun: "its era's round trip failed" }
            : twist === "notApplicable"
              ? { notApplicable: "the relay does not serve 2026-07-28 clients" }
              : twist === "older"
                ? { negotiated: { upstream: era, downstream: "2024-11-05" } }
                : {};
      return caseRun(row, era, ok, over, { id: `${row}-${twist}-${ok}` });
    });

  it("gives every run the verdict, attributions and credit judgeRuns gives it (any runs, any order)", () => {
    fc.assert(
      fc.property(fc.array(aRun, { maxLength: 12 }), (runs) => {
        const rows = rowIndexOf(register);
        const one = runs.map((r) => judgeOne(rows, r));
        const live = one.map((j) =>
          withEraPrerequisite(
            j,
            eraPrerequisite(
              one.filter((k) => k.run.era === j.run.era && k.row.id === ROUNDTRIP_ROW).map(roundTripVerdict),
              j.run.era,
            ),
          ),
        );
        expect(live).toEqual(judgeRuns(register, runs));
      }),
      { numRuns: 300, seed: 21 },
    );
  });

  it("the prerequisite rests on the round trips' ids and verdicts alone", () => {
    const pass = { status: "pass" as const, reason: "ok", checks: [] };
    const fail = { status: "fail" as const, reason: "no answer", checks: [] };
    const error = { status: "error" as const, reason: "did not start", checks: [] };
    const na = { status: "skip" as const, reason: "no 2026-07-28 clients", checks: [], na: true as const };
    expect(eraPrerequisite([{ id: "rt", verdict: pass }], "2025-11-25")).toEqual({
      met: true,
      harness: false,
      what: "",
    });
    expect(eraPrerequisite([], "2025-11-25")).toMatchObject({
      met: false,
      what: "no sampling-relay-roundtrip case ran in 2025-11-25",
    });
    expect(
      eraPrerequisite(
        [
          { id: "rt", verdict: pass },
          { id: "rt2", verdict: fail },
        ],
        "2025-11-25",
      ),
    ).toEqual({
      met: false,
      harness: false,
      what: "the relay did not complete a valid sampling round trip in 2025-11-25 (rt2: no answer)",
    });
    expect(eraPrerequisite([{ id: "rt", verdict: error }], "2025-11-25")).toMatchObject({
      met: false,
      harness: true,
    });
    expect(eraPrerequisite([{ id: "rt", verdict: na }], "2025-11-25")).toMatchObject({
      met: false,
      na: true,
    });
  });

  it("roundTripFailed from verdicts says what roundTripFailed from runs says", () => {
    const rows = rowIndexOf(register);
    for (const ok of [true, false]) {
      const rt = caseRun(ROUNDTRIP_ROW, "2025-11-25", ok);
      const fromRuns = roundTripFailed(register, [rt], "2025-11-25");
      expect(roundTripVerdictsFailed([roundTripVerdict(judgeOne(rows, rt))], "2025-11-25")).toBe(fromRuns);
      expect(fromRuns === undefined).toBe(ok);
    }
    expect(roundTripVerdictsFailed([], "2025-11-25")).toBeUndefined();
  });
});
