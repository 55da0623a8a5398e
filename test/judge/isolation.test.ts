import { describe, expect, it } from "vitest";
import { judgeCase } from "../../src/judge/case.ts";
import { ISOLATION } from "../../src/judge/checks/isolation.ts";
import type { Frame, Observation } from "../../src/model/evidence.ts";
import { familyChecks } from "../helpers/checks.ts";

// 2026-07-28 session isolation with two askers: A (the case's canary) and B (a token of its own).
const A = "cnry-test-1";
const B = "cnryB-test-1";
const KEY = "mcpx-conform/sample";
const request = (t: string) => ({
  messages: [{ role: "user", content: { type: "text", text: `Hi ${t}` } }],
  maxTokens: 8,
});
const result = (t: string) => ({
  role: "assistant",
  content: { type: "text", text: `Hello ${t}` },
  model: "m",
});

function obs(
  over: { aAsked?: unknown[]; bAsked?: unknown[]; aGot?: string; bGot?: string } = {},
): Observation {
  return {
    sent: request(A),
    asked: over.aAsked ?? [request(A)],
    answered: { result: result(A) },
    upstream: { kind: "result", result: result(over.aGot ?? A) },
    bystanders: [
      {
        session: "B",
        asked: over.bAsked ?? [request(B)],
        answered: { result: result(B) },
        token: B,
        upstream: { kind: "result", result: result(over.bGot ?? B) },
      },
    ],
  };
}

/** The upstream's wire: both input_required (one key, two states), then each retry as the relay sent it. */
function frames(retries: Array<{ answer: string; state?: string; caseKey: string }>): Frame[] {
  let t = 0;
  const up = (dir: Frame["dir"], message: unknown): Frame => ({ t: t++, end: "upstream", dir, message });
  return [
    up("from-relay", {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "p", arguments: { caseKey: "a" } },
    }),
    up("to-relay", {
      jsonrpc: "2.0",
      id: 1,
      result: {
        resultType: "input_required",
        inputRequests: { [KEY]: { method: "sampling/createMessage", params: request(A) } },
        requestState: "sA",
      },
    }),
    up("from-relay", {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "p", arguments: { caseKey: "b" } },
    }),
    up("to-relay", {
      jsonrpc: "2.0",
      id: 2,
      result: {
        resultType: "input_required",
        inputRequests: { [KEY]: { method: "sampling/createMessage", params: request(B) } },
        requestState: "sB",
      },
    }),
    ...retries.map((r, i) =>
      up("from-relay", {
        jsonrpc: "2.0",
        id: 3 + i,
        method: "tools/call",
        params: {
          name: "p",
          arguments: { caseKey: r.caseKey },
          inputResponses: { [KEY]: result(r.answer) },
          ...(r.state !== undefined ? { requestState: r.state } : {}),
        },
      }),
    ),
  ];
}

/** One isolation check's outcomes on an exchange of two sessions (A's canary). */
const isolationCheck = (id: string, o: Observation, canary: string, f?: Frame[]) =>
  familyChecks(ISOLATION, { observation: o, canary, ...(f ? { frames: f } : {}) }).filter((c) => c.id === id);
const bystanderCheck = (o: Observation, canary: string) => isolationCheck("only-the-asker-asked", o, canary);
const ownCallChecks = (o: Observation, canary: string, f: Frame[] | undefined) =>
  isolationCheck("answer-to-its-own-call", o, canary, f);

const faithful = frames([
  { answer: A, state: "sA", caseKey: "a" },
  { answer: B, state: "sB", caseKey: "b" },
]);

describe("session isolation with two askers (2026-07-28)", () => {
  it("passes when each session was asked its own request and each call got its own answer under its own state", () => {
    expect(bystanderCheck(obs(), A)).toEqual([
      {
        id: "only-the-asker-asked",
        ok: true,
        detail: "each of session A and session B was asked its own request only",
      },
    ]);
    expect(ownCallChecks(obs(), A, faithful)).toEqual([
      {
        id: "answer-to-its-own-call",
        ok: true,
        detail:
          "each upstream call's retry carried only its own session's answer (session A and session B), under the requestState issued for that call",
      },
    ]);
  });

  it("names a question shown to the other session", () => {
    const [check] = bystanderCheck(obs({ aAsked: [request(A), request(B)], bAsked: [] }), A);
    expect(check).toMatchObject({
      ok: false,
      detail: "session A was asked the request of session B, whose call did not cause it",
    });
  });

  it("names swapped answers and a retry under the other call's requestState", () => {
    const swapped = frames([
      { answer: A, state: "sB", caseKey: "b" },
      { answer: B, state: "sB", caseKey: "b" },
    ]);
    const [check] = ownCallChecks(obs({ aGot: B, bGot: A }), A, swapped);
    expect(check?.ok).toBe(false);
    expect(check?.detail).toBe(
      "the upstream call of session A received the answer of session B; the upstream call of session B received the answer of session A; session A's answer went upstream under the requestState of session B's call",
    );
  });

  it("names a retry that carries both answers, or one without its state", () => {
    const both: Frame[] = [
      ...faithful.slice(0, 4),
      {
        t: 9,
        end: "upstream",
        dir: "from-relay",
        message: {
          jsonrpc: "2.0",
          id: 5,
          method: "tools/call",
          params: { inputResponses: { [KEY]: [result(A), result(B)] }, requestState: "sA" },
        },
      },
    ];
    expect(ownCallChecks(obs(), A, both)[0]?.detail).toBe(
      "one retry carried the answers of session A and session B together",
    );
    const stateless = frames([{ answer: B, caseKey: "b" }]);
    expect(ownCallChecks(obs(), A, stateless)[0]?.detail).toBe(
      "session B's answer went upstream without the requestState issued for its call",
    );
  });

  it("a second asker whose own call got no answer fails", () => {
    const o = obs();
    o.bystanders![0]!.upstream = { kind: "withheld", detail: "no retry" };
    expect(ownCallChecks(o, A, faithful)[0]?.detail).toBe(
      "the upstream call of session B got no answer (no retry), not its session's answer",
    );
  });

  it("judgeCase: the single-call retry checks stay out of a two-session case (its calls interleave on the wire)", () => {
    const v = judgeCase({
      expect: [{ outcome: "delivered" }],
      era: "2026-07-28",
      severity: "failure",
      observation: obs(),
      canary: A,
      frames: faithful,
    });
    expect(v.status).toBe("pass");
    expect(v.checks.map((c) => c.id)).not.toContain("mrtr-request-state-echoed");
    expect(v.checks.map((c) => c.id)).toContain("answer-to-its-own-call");
  });

  it("legacy bystanders (no token) are judged as before, and no own-call check is made", () => {
    const legacy: Observation = { ...obs(), bystanders: [{ session: "B", asked: [] }] };
    expect(bystanderCheck(legacy, A)[0]?.detail).toBe("no other downstream session (B) was asked");
    expect(ownCallChecks(legacy, A, faithful)).toEqual([]);
  });
});
