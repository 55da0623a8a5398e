/**
 * Each check counts toward its own row: the delivery and isolation rows (and the others whose rule is about who
 * receives what) judge identity — this case's question reached the answerer, the answerer's answer reached the
 * upstream, told by the canary (`identified:`) — not fidelity. A relay that rewrites `model` (targets/broken/
 * rewrites-model.yaml) passes them and still fails sampling-relay-content-unchanged.
 */
import { describe, expect, it } from "vitest";
import { judgeCase } from "../../src/judge/case.ts";
import type { Observation } from "../../src/model/evidence.ts";
import { loadCases, loadRegister } from "../../src/model/load.ts";
import type { Era } from "../../src/protocol/eras.ts";

const corpus = loadCases(loadRegister());
const CANARY = "Cnry-identified-ÄΩ";

function kase(row: string, id: string) {
  const found = corpus.find((c) => c.row === row && c.id === id);
  if (!found) throw new Error(`no case ${row}/${id}`);
  return found;
}

const withCanary = <T>(v: T, canary = CANARY): T =>
  JSON.parse(JSON.stringify(v).replaceAll("{{canary}}", canary)) as T;

/** What each end saw when the relay passed the request on as sent and did `toResult` to the answer. */
function observed(row: string, id: string, toResult: (r: Record<string, unknown>) => unknown): Observation {
  const k = kase(row, id);
  const sent = withCanary(k.request);
  const answer = k.answer.action === "accept" ? withCanary(k.answer.result as Record<string, unknown>) : {};
  return {
    sent,
    asked: [sent],
    answered: { result: answer },
    upstream: { kind: "result", result: toResult(answer) },
    ...(kase(row, id).sessions ? { bystanders: [{ session: "B", asked: [] }] } : {}),
  };
}

function judge(row: string, id: string, o: Observation, era: Era = "2025-11-25") {
  return judgeCase({
    expect: kase(row, id).expect,
    era,
    severity: "failure",
    observation: o,
    canary: CANARY,
    cell: { row, side: "intermediary" },
  });
}

const rewriteModel = (r: Record<string, unknown>) => ({
  ...r,
  model: typeof r.model === "string" ? r.model.trim().toLowerCase() : r.model,
});
const failed = (v: { checks: Array<{ id: string; ok: boolean; level?: string }> }) =>
  v.checks.filter((c) => !c.ok && (c.level ?? "must") === "must").map((c) => c.id);

describe("identified: a relay that rewrites the model name", () => {
  const mixedCase = (r: Record<string, unknown>) => ({ ...rewriteModel(r), model: "reference-model-x" });

  it("passes the delivery, isolation and retry rows, which are about who receives what", () => {
    for (const [row, id, era] of [
      ["sampling-relay-unrelated-requests", "related-stream", "2025-11-25"],
      ["sampling-relay-unrelated-requests", "standalone-stream", "2025-11-25"],
      ["sampling-relay-answers-only-the-asker", "asker-session-only", "2025-11-25"],
      ["sampling-mrtr-client-constructs-inputs-before-retry", "slow-answer-awaited", "2026-07-28"],
      ["sampling-mrtr-carried-in-input-requests", "question-in-input-required", "2026-07-28"],
    ] as const) {
      const v = judge(row, id, observed(row, id, mixedCase), era);
      expect(v.status, `${row}/${id}: ${v.reason}`).toBe("pass");
      expect(v.checks.find((c) => c.id === "result-identified")?.ok, `${row}/${id}`).toBe(true);
      // The rewrite is recorded for the reader, judged by sampling-relay-content-unchanged.
      expect(v.checks.find((c) => c.id === "result-unchanged")).toMatchObject({ ok: true, level: "info" });
    }
  });

  it("still fails sampling-relay-content-unchanged, naming the pointer and both values", () => {
    const row = "sampling-relay-content-unchanged";
    const v = judge(
      row,
      "model-mixed-case-trailing-space",
      observed(row, "model-mixed-case-trailing-space", rewriteModel),
    );
    expect(v.status).toBe("fail");
    expect(failed(v)).toEqual(["result-unchanged"]);
    expect(v.reason).toMatch(
      /^The result the upstream received differs from the answerer's: \/model changed \(sent "[^"]*[A-Z][^"]* ", received "[^"A-Z]*"\) — expected the answer delivered unchanged$/,
    );
  });
});

describe("identified: what is not this case's fails", () => {
  it("a decoy answer under another token (a broadcast bridge forwarding the bystander's answer)", () => {
    const row = "sampling-relay-answers-only-the-asker";
    const decoy = withCanary(kase(row, "asker-session-only").answer, `${CANARY}-bystander`);
    const o = observed(row, "asker-session-only", () => (decoy as { result: unknown }).result);
    const v = judge(row, "asker-session-only", o);
    expect(v.status).toBe("fail");
    expect(failed(v)).toEqual(["result-identified"]);
    expect(v.reason).toBe(
      `The result the upstream received is not the answerer's: none of its texts with the canary arrived as sent (/content/text changed (sent "An answer. ${CANARY}", received "An answer. ${CANARY}-bystander")) — expected the answer delivered`,
    );
  });

  it("a stand-in result (an empty input constructed before the answer came)", () => {
    const row = "sampling-mrtr-client-constructs-inputs-before-retry";
    const standIn = { role: "assistant", content: { type: "text", text: "" }, model: "relay" };
    const v = judge(
      row,
      "slow-answer-awaited",
      observed(row, "slow-answer-awaited", () => standIn),
      "2026-07-28",
    );
    expect(failed(v)).toEqual(["result-identified"]);
    expect(v.checks.find((c) => c.id === "result-identified")!.detail).toBe(
      `the result the upstream received is not the answerer's: none of its texts with the canary arrived as sent (/content/text changed (sent "considered ${CANARY}", received ""), /model changed (sent "m", received "relay"), /stopReason missing (sent "endTurn"))`,
    );
  });

  it("a request the answerer received that is not this case's, and a case with no canaried text to tell", () => {
    const row = "sampling-relay-unrelated-requests";
    const o = observed(row, "related-stream", (r) => r);
    const other = withCanary(kase(row, "related-stream").request, "Cnry-other-case");
    const v = judge(row, "related-stream", { ...o, asked: [other] });
    expect(failed(v)).toEqual(["request-identified", "no-cross-talk"]);
    expect(v.checks.find((c) => c.id === "request-identified")!.detail).toBe(
      `the request the answerer received is not the upstream's: none of its texts with the canary arrived as sent (/messages/0/content/text changed (sent "Name one prime number. ${CANARY}", received "Name one prime number. Cnry-other-case"))`,
    );
    const ok = judge(row, "related-stream", o);
    expect(ok.checks.find((c) => c.id === "request-identified")).toEqual({
      id: "request-identified",
      ok: true,
      detail: `the request the answerer received is the upstream's: it carries "Name one prime number. ${CANARY}" as sent`,
    });
    const blank = { messages: [{ role: "user", content: { type: "text", text: "no token" } }], maxTokens: 8 };
    const untold = judge(row, "related-stream", { ...o, sent: blank, asked: [blank] });
    expect(untold.checks.find((c) => c.id === "request-identified")).toEqual({
      id: "request-identified",
      ok: false,
      detail:
        "the request the answerer received is not the upstream's: the case's request holds no text with its canary to tell",
    });
  });
});

describe("the corpus: unchanged: no broader than the row's rule", () => {
  it("delivery and isolation cases judge identity, never the whole document", () => {
    for (const c of corpus.filter((k) =>
      ["sampling-relay-unrelated-requests", "sampling-relay-answers-only-the-asker"].includes(k.row),
    )) {
      for (const e of c.expect.filter((x) => x.outcome === "delivered")) {
        expect(e.outcome === "delivered" && e.unchanged, `${c.row}/${c.id}`).toBeFalsy();
        expect(e.outcome === "delivered" && e.identified?.includes("result"), `${c.row}/${c.id}`).toBe(true);
      }
    }
  });

  it('only the content-unchanged row holds a case with unchanged: ["/"]', () => {
    const whole = corpus.filter((c) =>
      c.expect.some((e) => e.outcome === "delivered" && e.unchanged?.some((p) => p === "/")),
    );
    expect([...new Set(whole.map((c) => c.row))]).toEqual(["sampling-relay-content-unchanged"]);
  });
});
