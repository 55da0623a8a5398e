/**
 * Broker answerers never ask the downstream MCP client: a case about what the answering side declared
 * (sampling.tools, sampling.context) is judged against what the relay declared upstream for its broker, or is n/a
 * with that reason; a case about the downstream client itself (its era, its initialized notification, an error of
 * its own, fields a relay must not pass on to it) is n/a against a broker with no model behind it (src/run/plan.ts).
 */
import { describe, expect, it } from "vitest";
import { brokerPremise } from "../../src/judge/broker-premise.ts";
import { judgeRuns } from "../../src/judge/judge-runs.ts";
import type { CaseRun } from "../../src/model/case-run.ts";
import { loadCases, loadRegister } from "../../src/model/load.ts";
import { TargetProfileSchema } from "../../src/model/target.ts";
import type { Era } from "../../src/protocol/eras.ts";
import { notApplicableHere, planRun } from "../../src/run/plan.ts";
import { caseRun } from "../helpers/case-run.ts";

const register = loadRegister();
const corpus = loadCases(register);
const ERA: Era = "2025-11-25";
const TOOLS = "sampling-server-no-tools-without-capability";
const TOOLS_CLIENT = "sampling-client-error-on-tools-without-capability";
const PAIRING = "sampling-tool-use-result-balance";

function kase(row: string, id: string) {
  const found = corpus.find((c) => c.row === row && c.id === id);
  if (!found) throw new Error(`no case ${row}/${id}`);
  return found;
}

const ANSWER = {
  role: "assistant",
  content: { type: "text", text: "18°C c" },
  model: "m",
  stopReason: "endTurn",
};
const REFUSED = { kind: "error" as const, error: { code: -32602, message: "tools without sampling.tools" } };

/** A run of a corpus case whose relay declared `declared` upstream; the broker answered (or the relay refused). */
function brokered(row: string, id: string, declared: unknown, refused = false): CaseRun {
  const k = kase(row, id);
  const sent = JSON.parse(JSON.stringify(k.request).replaceAll("{{canary}}", "c"));
  const capabilities = k.capabilities ?? {
    sampling: "tools" in k.request || "toolChoice" in k.request ? { tools: {} } : {},
  };
  const question = { server: { name: "up" }, shown: {}, show: {}, request: sent };
  return caseRun(
    row,
    ERA,
    true,
    {
      capabilities,
      expect: k.expect,
      observation: {
        sent,
        asked: [],
        declared,
        ...(refused ? {} : { answered: { result: ANSWER } }),
        reviews: refused
          ? []
          : [{ stage: "request", question, decision: { action: "answer", result: ANSWER } }],
        upstream: refused ? REFUSED : { kind: "result", result: ANSWER },
      },
    },
    k,
  );
}

const verdictOf = (run: CaseRun, answerer: "client" | "broker") =>
  judgeRuns(register, [caseRun("sampling-relay-roundtrip", ERA, true), run], { answerer })[1]!.verdict;

describe("a broker that declares sampling.tools upstream (its agent takes tools)", () => {
  const withTools = { sampling: { tools: {} } };

  it("makes the cases about an answerer without sampling.tools n/a, with the reason", () => {
    for (const [row, id] of [
      [TOOLS, "tools-to-answerer-without-sampling-tools"],
      [TOOLS, "tool-choice-never-reaches-answerer"],
      [TOOLS_CLIENT, "tools-without-sampling-tools"],
      [TOOLS_CLIENT, "tool-choice-without-sampling-tools"],
    ] as const) {
      const v = verdictOf(brokered(row, id, withTools), "broker");
      expect(v, `${row}/${id}`).toMatchObject({ status: "skip", na: true });
      expect(v.reason).toMatch(
        /^n\/a: the answerer is the relay's broker, and the relay declared sampling\.tools upstream for it, so the upstream may send this tool-enabled request .* the case is about an answerer that did not declare sampling\.tools/,
      );
    }
  });

  it("without a broker the same exchange fails: the client that declared no tools was asked", () => {
    const v = verdictOf(brokered(TOOLS, "tools-to-answerer-without-sampling-tools", withTools), "client");
    expect(v.status).toBe("fail");
  });

  it("judges a tool-enabled delivery case, whose premise (an answerer with sampling.tools) holds", () => {
    const v = verdictOf(brokered(PAIRING, "balanced-history-delivered-server", withTools), "broker");
    expect(v.na).toBeUndefined();
    expect(v.status, v.reason).toBe("pass");
  });
});

describe("a broker that declares plain sampling upstream and refuses tool-enabled requests with -32602", () => {
  const plain = { sampling: {} };

  it("passes the client-side rule, judged against its own declaration", () => {
    const v = verdictOf(brokered(TOOLS_CLIENT, "tools-without-sampling-tools", plain, true), "broker");
    expect(v.status, v.reason).toBe("pass");
  });

  it("makes the cases expecting delivery to an answerer that declared sampling.tools n/a, not fail", () => {
    const run = brokered(PAIRING, "balanced-history-delivered-server", plain, true);
    expect(verdictOf(run, "client").status).toBe("fail");
    const v = verdictOf(run, "broker");
    expect(v).toMatchObject({ status: "skip", na: true });
    expect(v.reason).toContain(
      "the relay declared no sampling.tools upstream for it, so this tool-enabled request is not the upstream's to send (refusing it is sampling-client-error-on-tools-without-capability's rule); the case is about an answerer that declared sampling.tools",
    );
  });

  it("judges includeContext against sampling.context the same way, and only from 2025-11-25", () => {
    const run = brokered(
      "sampling-server-includecontext-only-with-context-capability",
      "delivered-with-context-capability",
      plain,
    );
    expect(brokerPremise(run)).toMatch(/declared no sampling\.context upstream .* may ignore includeContext/);
    expect(brokerPremise({ ...run, era: "2025-06-18" })).toBeUndefined();
    expect(
      brokerPremise({ ...run, observation: { ...run.observation, declared: undefined } }),
    ).toBeUndefined();
  });
});

describe("a broker with no model behind it never asks its downstream client (plan)", () => {
  const broker = (approve: boolean) =>
    TargetProfileSchema.parse({
      name: "b",
      command: ["relay"],
      downstream: { transport: "stdio" },
      upstream: { transport: "stdio" },
      answerer: {
        kind: "broker",
        list: { http: { url: "http://127.0.0.1:1/q" } },
        show: { server: "/s", messages: "/m", request: "/r" },
        accept: { http: { method: "POST", url: "http://127.0.0.1:1/a" } },
        decline: { http: { method: "POST", url: "http://127.0.0.1:1/d" } },
        ...(approve ? { approve: { http: { method: "POST", url: "http://127.0.0.1:1/p" } } } : {}),
      },
    });
  const ADAPTS = "sampling-relay-adapts-to-downstream-era";

  it("makes the cases about the downstream client n/a, each with its reason", () => {
    const cases: Array<[string, string, RegExp]> = [
      [ADAPTS, "tools-to-older-answerer", /a 2025-06-18 client here\), so there is no second era to bridge/],
      ["sampling-server-not-before-initialized", "held-initialized", /before its initialized notification/],
      ["sampling-relay-error-not-stacked", "message-relayed-verbatim", /JSON-RPC error of its own/],
      ["sampling-server-task-only-with-capability", "task-not-passed-on", /must not pass on to a client/],
    ];
    for (const [row, id, why] of cases) {
      const reason = notApplicableHere(kase(row, id), broker(false), ERA);
      expect(reason, `${row}/${id}`).toMatch(
        /^n\/a: the relay answers sampling at its broker, which has no model/,
      );
      expect(reason).toMatch(why);
      // A broker with a model behind it asks the downstream (the model) once a question is approved.
      expect(notApplicableHere(kase(row, id), broker(true), ERA), `${row}/${id}`).toBeUndefined();
    }
    expect(notApplicableHere(kase(PAIRING, "balanced-history-delivered-server"), broker(false), ERA)).toBe(
      undefined,
    );
  });

  it("records them as n/a skips, so a cell of them alone is n/a", () => {
    const cases = corpus.filter((c) => c.row === ADAPTS);
    const plan = planRun({ register, cases, profile: broker(false), eras: [ERA] });
    expect(plan.work).toEqual([]);
    expect(plan.unrun.length).toBeGreaterThan(0);
    for (const u of plan.unrun) expect(u.result).toMatchObject({ status: "skip", na: true });
  });
});
