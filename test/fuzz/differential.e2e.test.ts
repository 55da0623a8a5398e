/**
 * Fidelity in the differential property (src/fuzz/oracle.ts `fidelity`, src/fuzz/differential.ts `differential`) and
 * how a counterexample is attributed to register rows (src/fuzz/results.ts): a legal exchange delivered with
 * any change, either way, is a disagreement on sampling-relay-content-unchanged, whatever the judge's scoping.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  differential,
  FUZZ_CAPABILITIES,
  type FuzzCounterexample,
  fuzzStreams,
} from "../../src/fuzz/differential.ts";
import { describeFidelity, fidelity, oracle } from "../../src/fuzz/oracle.ts";
import { counterexampleCells, foldFuzz } from "../../src/fuzz/results.ts";
import type { CaseVerdict } from "../../src/judge/case.ts";
import type { Observation } from "../../src/model/evidence.ts";
import { loadRegister } from "../../src/model/load.ts";
import { tempDir } from "../helpers/cli.ts";

const params = {
  messages: [
    { role: "user", content: { type: "text", text: "Héllo" }, _meta: { a: null, b: [{ c: null }] } },
  ],
  maxTokens: 10,
};
const result = { role: "assistant", content: { type: "text", text: "Hi" }, model: "GPT-4o " };
const exchange = { params, result };

function delivered(over: Partial<Observation> = {}): Observation {
  return {
    sent: params,
    asked: [structuredClone(params)],
    answered: { result },
    upstream: { kind: "result", result: structuredClone(result) },
    ...over,
  } as Observation;
}

const PASS: CaseVerdict = { status: "pass", reason: "as expected", checks: [] };

describe("fidelity", () => {
  it("is empty when both documents arrive unchanged", () => {
    expect(fidelity(delivered())).toEqual([]);
  });

  it("names a changed result field with both values", () => {
    const o = delivered({ upstream: { kind: "result", result: { ...result, model: "gpt-4o" } } });
    const [d, ...rest] = fidelity(o);
    expect(rest).toEqual([]);
    expect(d).toEqual({ document: "result", pointer: "/model", sent: "GPT-4o ", received: "gpt-4o" });
    expect(describeFidelity(d!)).toBe(
      'the result the upstream received differs from the one the answerer sent: /model changed (sent "GPT-4o ", received "gpt-4o")',
    );
  });

  it("names a dropped null _meta entry in the request the answerer received", () => {
    const asked = structuredClone(params);
    delete (asked.messages[0]!._meta as Record<string, unknown>).a;
    const [d] = fidelity(delivered({ asked: [asked] }));
    expect(d).toMatchObject({ document: "request", pointer: "/messages/0/_meta/a", sent: null });
    expect(describeFidelity(d!)).toBe(
      "the request the answerer received differs from the one the upstream sent: /messages/0/_meta/a missing (sent null)",
    );
  });

  it("says nothing when nothing was delivered", () => {
    expect(
      fidelity(
        delivered({
          asked: [],
          answered: undefined,
          upstream: { kind: "error", error: { code: -1, message: "no" } },
        }),
      ),
    ).toEqual([]);
  });
});

describe("differential", () => {
  const says = oracle(exchange, "2025-11-25", FUZZ_CAPABILITIES);

  it("the oracle expects a legal exchange delivered whole and unchanged", () => {
    expect(says.row).toBe("sampling-relay-content-unchanged");
    expect(says.expect).toEqual([{ outcome: "delivered", unchanged: ["/"] }]);
  });

  it("a changed delivery is a disagreement on sampling-relay-content-unchanged even when the judge passed it", () => {
    const o = delivered({ upstream: { kind: "result", result: { ...result, model: "gpt-4o" } } });
    const d = differential(says, PASS, o);
    expect(d.agree).toBe(false);
    expect(d.row).toBe("sampling-relay-content-unchanged");
    expect(d.side).toBe("intermediary");
    expect(d.verdict.status).toBe("fail");
    expect(d.verdict.reason).toMatch(/^The result the upstream received differs .*: \/model changed/);
    expect(d.verdict.checks).toContainEqual(
      expect.objectContaining({ id: "fuzz-result-fidelity", ok: false }),
    );
  });

  it("an unchanged delivery the judge passed is agreement", () => {
    expect(differential(says, PASS, delivered()).agree).toBe(true);
  });

  it("fidelity is not asked of an exchange the oracle says must be refused", () => {
    const illegal = oracle(
      { params: { ...params, maxTokens: 1.5 }, result },
      "2025-11-25",
      FUZZ_CAPABILITIES,
    );
    const fail: CaseVerdict = { status: "fail", reason: "delivered an illegal request", checks: [] };
    const d = differential(illegal, fail, delivered());
    expect(d).toMatchObject({ agree: false, row: "sampling-both-validate-message-content", side: "client" });
    expect(d.fidelity).toBeUndefined();
  });
});

describe("the oracle on a SHOULD a relay refuses for", () => {
  it("expects a structuredContent that breaks its tool's outputSchema refused before asking, on its own row", () => {
    const tools = [
      { name: "f", inputSchema: { type: "object" }, outputSchema: { type: "object", required: ["n"] } },
    ];
    const withResult = (structuredContent: unknown) => ({
      params: {
        messages: [
          { role: "user", content: { type: "text", text: "q" } },
          { role: "assistant", content: [{ type: "tool_use", id: "a", name: "f", input: {} }] },
          {
            role: "user",
            content: [{ type: "tool_result", toolUseId: "a", content: [], structuredContent }],
          },
        ],
        maxTokens: 10,
        tools,
      },
      result,
    });
    const legacy = oracle(withResult({}), "2025-11-25", FUZZ_CAPABILITIES);
    expect(legacy).toMatchObject({
      row: "sampling-toolresult-structured-conform-outputschema",
      side: "client",
      expect: [{ outcome: "error", code: -32602, asked: false }],
    });
    expect(legacy.says).toMatch(/message\.structured-content-schema/);
    expect(oracle(withResult({}), "2026-07-28", FUZZ_CAPABILITIES).expect).toEqual([
      { outcome: "withheld", asked: false },
    ]);
    expect(oracle(withResult({ n: 1 }), "2025-11-25", FUZZ_CAPABILITIES).row).toBe(
      "sampling-relay-content-unchanged",
    );
  });
});

describe("attribution of counterexamples", () => {
  const base = {
    exchange,
    says: "…",
    expect: [],
    observation: delivered(),
    frames: [],
    negotiated: { upstream: "2025-11-25", downstream: "2025-11-25" },
  };

  it("a fidelity counterexample fails sampling-relay-content-unchanged", () => {
    const d = differential(
      oracle(exchange, "2025-11-25", FUZZ_CAPABILITIES),
      PASS,
      delivered({ upstream: { kind: "result", result: { ...result, model: "gpt-4o" } } }),
    );
    const cx: FuzzCounterexample = { ...base, row: d.row, side: d.side, verdict: d.verdict };
    expect(counterexampleCells(cx)).toEqual([
      { row: "sampling-relay-content-unchanged", side: "intermediary" },
    ]);
  });

  it("a delivered illegal message also fails the row of the rule it breaks (must checks only, once each)", () => {
    const cx: FuzzCounterexample = {
      ...base,
      row: "sampling-both-validate-message-content",
      side: "client",
      verdict: {
        status: "fail",
        reason: "…",
        checks: [
          {
            id: "valid-request-delivered",
            ok: false,
            detail: "…",
            countsFor: { row: "sampling-toolresult-id-must-match-tooluse", side: "server" },
          },
          {
            id: "valid-request-delivered",
            ok: false,
            detail: "…",
            countsFor: { row: "sampling-toolresult-id-must-match-tooluse", side: "server" },
          },
          { id: "x", ok: false, level: "info", detail: "…", countsFor: { row: "other-row", side: "server" } },
        ],
      },
    };
    expect(counterexampleCells(cx)).toEqual([
      { row: "sampling-both-validate-message-content", side: "client" },
      { row: "sampling-toolresult-id-must-match-tooluse", side: "server" },
    ]);
  });

  it("foldFuzz saves a regression case that judges fidelity and fails the cell", () => {
    const says = oracle(exchange, "2025-11-25", FUZZ_CAPABILITIES);
    const o = delivered({ upstream: { kind: "result", result: { ...result, model: "gpt-4o" } } });
    const { agree: _, ...d } = differential(says, PASS, o);
    const out = tempDir();
    const folded = foldFuzz(
      [
        {
          era: "2025-11-25",
          seed: 1,
          runs: 10,
          branches: {},
          durationMs: 5,
          counterexample: { ...base, ...says, ...d, observation: o },
        },
      ],
      loadRegister(),
      out,
      { tool: { name: "mcpx-conform", version: "0" }, target: { name: "t" }, seed: 1 },
    );
    expect(folded.summaries[0]).toMatchObject({ status: "fail" });
    expect(folded.summaries[0]!.reason).toContain('/model changed (sent "GPT-4o ", received "gpt-4o")');
    expect(folded.judged.map((j) => [j.row, j.side, j.result.status])).toEqual([
      ["sampling-relay-content-unchanged", "intermediary", "fail"],
    ]);
    const file = join(out, folded.summaries[0]!.caseFile!);
    expect(existsSync(file)).toBe(true);
    const saved = parse(readFileSync(file, "utf8"));
    expect(saved.row).toBe("sampling-relay-content-unchanged");
    expect(saved.expect).toEqual([{ outcome: "delivered", unchanged: ["/"] }]);
    expect(saved.answer.result.model).toBe("GPT-4o ");
  });
});

describe("fuzz streams (an era's runs side by side)", () => {
  it("keeps a legacy era in one stream with the run's seed", () => {
    expect(fuzzStreams("2025-11-25", 300, 7)).toEqual([{ index: 0, runs: 300, seed: 7 }]);
  });

  it("cuts 2026-07-28 runs into up to 8 streams of at least 25 runs, adding up to the run count", () => {
    for (const runs of [1, 24, 25, 50, 99, 100, 300, 1000, 10_001]) {
      const streams = fuzzStreams("2026-07-28", runs, 1);
      expect(
        streams.reduce((n, s) => n + s.runs, 0),
        `${runs}`,
      ).toBe(runs);
      expect(streams.length).toBe(Math.max(1, Math.min(8, Math.floor(runs / 25))));
      expect(streams[0]!.seed).toBe(1);
      expect(new Set(streams.map((s) => s.seed)).size).toBe(streams.length);
    }
  });

  it("depends on the run count and seed only: the same seed gives the same streams anywhere", () => {
    expect(fuzzStreams("2026-07-28", 300, 42)).toEqual(fuzzStreams("2026-07-28", 300, 42));
    expect(fuzzStreams("2026-07-28", 300, 42)[1]!.seed).not.toBe(fuzzStreams("2026-07-28", 300, 43)[1]!.seed);
  });
});
