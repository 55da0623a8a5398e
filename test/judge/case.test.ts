import { describe, expect, it } from "vitest";
import { applyPrerequisite, describeOutcome, type JudgeInput, judgeCase } from "../../src/judge/case.ts";
import type { Expectation } from "../../src/model/case.ts";
import type { Frame, Observation } from "../../src/model/evidence.ts";

const CANARY = "cnry-test-1";
const sent = { messages: [{ role: "user", content: { type: "text", text: `Hi ${CANARY}` } }], maxTokens: 8 };
const answer = { role: "assistant", content: { type: "text", text: `Hello ${CANARY}` }, model: "m" };

function obs(over: Partial<Observation> = {}): Observation {
  return {
    sent,
    asked: [sent],
    answered: { result: answer },
    upstream: { kind: "result", result: answer },
    ...over,
  };
}
function judge(expect: Expectation[], o: Observation, over: Partial<JudgeInput> = {}) {
  return judgeCase({
    expect,
    era: "2025-11-25",
    severity: "failure",
    observation: o,
    canary: CANARY,
    ...over,
  });
}
const failed = (v: { checks: Array<{ id: string; ok: boolean }> }) =>
  v.checks.filter((c) => !c.ok).map((c) => c.id);
const ids = (v: { checks: Array<{ id: string }> }) => v.checks.map((c) => c.id);

describe("describeOutcome", () => {
  it("names each kind of outcome in one phrase", () => {
    expect(describeOutcome({ kind: "result", result: answer })).toBe(
      'a result (role "assistant", model "m")',
    );
    expect(describeOutcome({ kind: "result", result: { content: {} } })).toBe(
      "a result (role missing, model missing)",
    );
    expect(describeOutcome({ kind: "result", result: null })).toBe("a result (role ?, model ?)");
    expect(describeOutcome({ kind: "result", result: 7 })).toBe("a result (role ?, model ?)");
    expect(describeOutcome({ kind: "error", error: { code: -1, message: "no" } })).toBe('error -1 "no"');
    expect(describeOutcome({ kind: "withheld", detail: "no retry" })).toBe(
      "no response for the input (no retry)",
    );
    // The harness's fixed deadline, not the time it measured (so the reason is the same in every run).
    expect(describeOutcome({ kind: "timeout", deadlineMs: 1500, afterMs: 1503 })).toBe(
      "no answer within the harness's 1500 ms deadline",
    );
    expect(describeOutcome({ kind: "timeout", deadlineMs: 1500 })).toBe(
      "no answer within the harness's 1500 ms deadline",
    );
    // Evidence written before the deadline was recorded still reads.
    expect(describeOutcome({ kind: "timeout", afterMs: 1500 })).toBe("no answer within 1500 ms");
    expect(describeOutcome({ kind: "broken", detail: "closed" })).toBe("a broken exchange (closed)");
  });

  it("clips long messages and details", () => {
    const long = "x".repeat(400);
    const err = describeOutcome({ kind: "error", error: { code: 1, message: long } });
    expect(err).toBe(`error 1 ${`"${long}"`.slice(0, 159)}…`);
    const broken = describeOutcome({ kind: "broken", detail: long });
    expect(broken).toBe(`a broken exchange (${long.slice(0, 239)}…)`);
    expect(describeOutcome({ kind: "broken", detail: "y".repeat(240) })).toBe(
      `a broken exchange (${"y".repeat(240)})`,
    );
    expect(describeOutcome({ kind: "error", error: { code: 1, message: "z".repeat(158) } })).toBe(
      `error 1 "${"z".repeat(158)}"`,
    );
  });
});

describe("judgeCase: delivered", () => {
  const delivered: Expectation[] = [{ outcome: "delivered", unchanged: ["/"] }];

  it("passes when the result and the request arrive unchanged", () => {
    const v = judge(delivered, obs());
    expect(v.status).toBe("pass");
    expect(v.reason).toBe('the upstream received a result (role "assistant", model "m"), as expected');
    expect(ids(v)).toEqual([
      "upstream-got-result",
      "answerer-answered",
      "result-unchanged",
      "request-unchanged",
      "no-cross-talk",
    ]);
    expect(v.checks.every((c) => c.ok)).toBe(true);
    expect(v.checks.map((c) => c.detail)).toEqual([
      'the upstream received a result (role "assistant", model "m")',
      "the answerer was asked and answered with a result",
      "the result reached the upstream unchanged",
      "the request reached the answerer unchanged",
      "every request the answerer saw came from this case",
    ]);
  });

  it("fails a changed result, naming where it differs; warns instead at warning severity", () => {
    const o = obs({ upstream: { kind: "result", result: { ...answer, model: "unknown" } } });
    const v = judge(delivered, o);
    expect(v.status).toBe("fail");
    expect(failed(v)).toEqual(["result-unchanged"]);
    expect(v.reason).toBe(
      'The result the upstream received differs from the answerer\'s: /model changed (sent "m", received "unknown") — expected the answer delivered unchanged',
    );
    expect(judge(delivered, o, { severity: "warning" }).status).toBe("warn");
  });

  it("judges fidelity only where the case's rule is about it; elsewhere a difference is recorded, not failed", () => {
    const stamped = { ...answer, _meta: { "relay.example/ts": 1 } };
    const o = obs({ upstream: { kind: "result", result: stamped } });
    const plain = judge([{ outcome: "delivered" }], o);
    expect(plain.status).toBe("pass");
    const info = plain.checks.find((c) => c.id === "result-unchanged")!;
    expect(info).toMatchObject({ ok: true, level: "info" });
    expect(info.detail).toBe(
      "the result the upstream received differs from the answerer's where this case's rule is not about it (fidelity is judged by sampling-relay-content-unchanged): /_meta added (received {\"relay.example/ts\":1})",
    );
    const aboutModel = judge([{ outcome: "delivered", unchanged: ["/result/model"] }], o);
    expect(aboutModel.status).toBe("pass");
    const aboutMeta = judge([{ outcome: "delivered", unchanged: ["/result/_meta"] }], o);
    expect(aboutMeta.status).toBe("fail");
    expect(aboutMeta.reason).toBe(
      'The result the upstream received differs from the answerer\'s: /_meta added (received {"relay.example/ts":1}) — expected the answer delivered unchanged',
    );
    const lowered = obs({ upstream: { kind: "result", result: { ...answer, model: "M" } } });
    expect(judge([{ outcome: "delivered", unchanged: ["/result/model"] }], lowered).status).toBe("fail");
    expect(judge([{ outcome: "delivered", unchanged: ["/request"] }], lowered).status).toBe("pass");
  });

  it("validates every delivered message: an invalid request to the answerer or result to the upstream fails", () => {
    const noRole = { messages: [{ content: { type: "text", text: `Hi ${CANARY}` } }], maxTokens: 8 };
    const v = judge([{ outcome: "delivered" }], obs({ asked: [noRole] }));
    expect(v.status).toBe("fail");
    expect(failed(v)).toContain("valid-request-delivered");
    const noModel = { role: "assistant", content: { type: "text", text: "x" } };
    const r = judge(
      [{ outcome: "delivered" }],
      obs({ answered: { result: noModel }, upstream: { kind: "result", result: noModel } }),
    );
    expect(failed(r)).toEqual(["valid-result-delivered"]);
    expect(r.checks.find((c) => c.id === "valid-result-delivered")).toMatchObject({
      rule: "result.model",
      countsFor: { row: "sampling-both-validate-message-content", side: "server" },
    });
    // Counted toward another cell: recorded here as info, the case's own verdict stands.
    const elsewhere = judge(
      [{ outcome: "delivered" }],
      obs({ answered: { result: noModel }, upstream: { kind: "result", result: noModel } }),
      { cell: { row: "sampling-stopreason-custom-values", side: "client" } },
    );
    expect(elsewhere.status).toBe("pass");
    expect(elsewhere.checks.find((c) => c.id === "valid-result-delivered")).toMatchObject({ level: "info" });
  });

  it("counts a delivered structuredContent that breaks its tool's outputSchema (a SHOULD a relay refuses for) toward its own row", () => {
    const tool = {
      name: "get_weather",
      inputSchema: { type: "object" },
      outputSchema: { type: "object", required: ["celsius"] },
    };
    const history = (structuredContent: unknown) => ({
      messages: [
        { role: "user", content: { type: "text", text: `Weather? ${CANARY}` } },
        { role: "assistant", content: [{ type: "tool_use", id: "a", name: "get_weather", input: {} }] },
        { role: "user", content: [{ type: "tool_result", toolUseId: "a", content: [], structuredContent }] },
      ],
      maxTokens: 8,
      tools: [tool],
    });
    const row = "sampling-toolresult-structured-conform-outputschema";
    const bad = history({ conditions: "mild" });
    const own = judge([{ outcome: "error", asked: false }], obs({ sent: bad, asked: [bad] }), {
      severity: "warning",
      cell: { row, side: "server" },
    });
    expect(own.status).toBe("warn");
    expect(own.checks.find((c) => c.id === "valid-request-delivered")).toMatchObject({
      ok: false,
      rule: "message.structured-content-schema",
      countsFor: { row, side: "server" },
    });
    // Carried by another row's case: recorded there as info (judge-runs gives it to this row, at its severity).
    const elsewhere = judge([{ outcome: "delivered" }], obs({ sent: bad, asked: [bad] }), {
      cell: { row: "sampling-tool-use-result-balance", side: "server" },
    });
    expect(elsewhere.status).toBe("pass");
    expect(elsewhere.checks.find((c) => c.id === "valid-request-delivered")).toMatchObject({ level: "info" });
    const good = history({ celsius: 18 });
    expect(judge([{ outcome: "delivered" }], obs({ sent: good, asked: [good] })).status).toBe("pass");
  });

  it("fails a changed request, a repeated question, and an answer that never came", () => {
    const changed = { ...sent, maxTokens: 9 };
    const v = judge(delivered, obs({ asked: [changed] }));
    expect(failed(v)).toEqual(["request-unchanged"]);
    expect(v.checks.find((c) => c.id === "request-unchanged")!.detail).toBe(
      "the request the answerer received differs from the upstream's: /maxTokens changed (sent 8, received 9)",
    );
    const twice = judge(delivered, obs({ asked: [sent, sent] }));
    expect(failed(twice)).toEqual(["asked-once"]);
    expect(twice.checks.find((c) => c.id === "asked-once")!.detail).toBe(
      "the answerer was asked 2× for one request",
    );
    const none = judge(
      delivered,
      obs({
        asked: [],
        answered: undefined,
        upstream: { kind: "error", error: { code: -32602, message: "bad" } },
      }),
    );
    expect(failed(none)).toEqual(["upstream-got-result", "answerer-answered"]);
    expect(ids(none)).toEqual(["upstream-got-result", "answerer-answered"]);
    expect(none.checks[1]!.detail).toBe("the answerer never answered with a result");
    const errored = judge(delivered, obs({ answered: { error: { code: -1, message: "no" } } }));
    expect(failed(errored)).toEqual(["answerer-answered"]);
    expect(ids(errored)).not.toContain("result-unchanged");
  });

  it("reports a request from another case (cross-talk) only when the sent request carries the canary", () => {
    const foreign = { ...sent, messages: [{ role: "user", content: { type: "text", text: "other case" } }] };
    const v = judge(delivered, obs({ asked: [foreign] }));
    expect(failed(v)).toContain("no-cross-talk");
    expect(v.checks.find((c) => c.id === "no-cross-talk")!.detail).toBe(
      "the answerer received a request from another case",
    );
    const noCanary = { ...sent, messages: [] };
    expect(ids(judge(delivered, obs({ sent: noCanary, asked: [noCanary] })))).not.toContain("no-cross-talk");
    expect(
      ids(
        judge(
          [{ outcome: "error" }],
          obs({ asked: [], upstream: { kind: "error", error: { code: 1, message: "x" } } }),
        ),
      ),
    ).not.toContain("no-cross-talk");
  });

  it("compares the request with the reviewer's edit when there is one, and the review question with what was sent", () => {
    const edited = { ...sent, systemPrompt: "be brief" };
    const reviews: Observation["reviews"] = [
      { stage: "request", question: { request: sent }, decision: { action: "approve", params: edited } },
    ];
    const ok = judge(delivered, obs({ asked: [edited], reviews }));
    expect(ok.status).toBe("pass");
    expect(ok.checks.find((c) => c.id === "request-unchanged")!.detail).toBe(
      "the reviewer's edited request reached the answerer unchanged",
    );
    expect(ok.checks.find((c) => c.id === "review-request-unchanged")!.detail).toBe(
      "the review surface showed the request unchanged",
    );
    const ignored = judge(delivered, obs({ asked: [sent], reviews }));
    expect(failed(ignored)).toEqual(["request-unchanged"]);
    expect(ignored.checks.find((c) => c.id === "request-unchanged")!.detail).toBe(
      'the request the answerer received differs from the reviewer\'s edit: /systemPrompt missing (sent "be brief")',
    );
    const shownOther = judge(
      delivered,
      obs({
        reviews: [
          {
            stage: "request",
            question: { request: { ...sent, maxTokens: 1 } },
            decision: { action: "approve" },
          },
        ],
      }),
    );
    expect(failed(shownOther)).toEqual(["review-request-unchanged"]);
    expect(shownOther.checks.find((c) => c.id === "review-request-unchanged")!.detail).toBe(
      "the review surface showed a request that differs from the upstream's: /maxTokens changed (sent 8, shown 1)",
    );
  });
});

describe("judgeCase: reasons name what the relay changed, with the pointer and both values", () => {
  const whole: Expectation[] = [{ outcome: "delivered", unchanged: ["/"] }];
  const result = { ...answer, stopReason: "endTurn", _meta: { "example.com/trace": "t1" } };
  const got = (r: unknown) =>
    judge(whole, obs({ answered: { result }, upstream: { kind: "result", result: r } })).reason;

  it("a dropped field (the request direction)", () => {
    const withPrompt = { ...sent, systemPrompt: `Be brief ${CANARY}` };
    expect(judge(whole, obs({ sent: withPrompt, asked: [sent] })).reason).toBe(
      'The request the answerer received differs from the upstream\'s: /systemPrompt missing (sent "Be brief cnry-test-1") — expected the answer delivered unchanged',
    );
  });

  it("a string coerced to a number", () => {
    const tagged = { ...sent, metadata: { ticket: "7" } };
    expect(judge(whole, obs({ sent: tagged, asked: [{ ...sent, metadata: { ticket: 7 } }] })).reason).toBe(
      'The request the answerer received differs from the upstream\'s: /metadata/ticket changed from a string to a number (sent "7", received 7) — expected the answer delivered unchanged',
    );
  });

  it("an image block replaced by an empty text block", () => {
    const image = { ...result, content: { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" } };
    const v = judge(
      whole,
      obs({
        answered: { result: image },
        upstream: { kind: "result", result: { ...image, content: { type: "text", text: "" } } },
      }),
    );
    expect(v.reason).toBe(
      'The result the upstream received differs from the answerer\'s: /content changed from an image block to a text block (sent {"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}, received {"type":"text","text":""}) — expected the answer delivered unchanged',
    );
  });

  it("a stripped stopReason", () => {
    const { stopReason: _gone, ...stripped } = result;
    expect(got(stripped)).toBe(
      'The result the upstream received differs from the answerer\'s: /stopReason missing (sent "endTurn") — expected the answer delivered unchanged',
    );
  });

  it("an added _meta key", () => {
    expect(got({ ...result, _meta: { ...result._meta, "relay.example/ts": 1 } })).toBe(
      "The result the upstream received differs from the answerer's: /_meta/relay.example~1ts added (received 1) — expected the answer delivered unchanged",
    );
  });

  it("lists three differences, cuts long values and says how many more", () => {
    const long = "x".repeat(200);
    expect(
      got({ role: "user", content: { type: "text", text: long }, model: "M", _meta: {}, extra: 1 }),
    ).toBe(
      `The result the upstream received differs from the answerer's: /role changed (sent "assistant", received "user"), /content/text changed (sent "Hello cnry-test-1", received "${"x".repeat(77)}…" (200 bytes)), /model changed (sent "m", received "M") and 3 more differences — expected the answer delivered unchanged`,
    );
  });

  it("a result the relay changed where it had to refuse, and a request it changed before asking", () => {
    const bad = { ...answer, model: 42 };
    const repaired = judge(
      [{ outcome: "error" }],
      obs({ answered: { result: bad }, upstream: { kind: "result", result: { ...answer, model: "42" } } }),
    );
    expect(repaired.reason).toBe(
      'The upstream received a result (role "assistant", model "42"), which differs from the answerer\'s: /model changed from a number to a string (sent 42, received "42") — expected error (any code)',
    );
    const passed = judge(
      [{ outcome: "error" }],
      obs({ answered: { result: bad }, upstream: { kind: "result", result: bad } }),
    );
    // Passed on as answered: nothing the relay changed to report (the validator names what is wrong with it).
    expect(passed.checks.find((c) => c.id === "upstream-got-error")!.detail).toBe(
      'the upstream received a result (role "assistant", model 42)',
    );
    const badRequest = { ...sent, maxTokens: "8" };
    const fixed = judge(
      [{ outcome: "error", asked: false }],
      obs({
        sent: badRequest,
        asked: [sent],
        upstream: { kind: "error", error: { code: -32602, message: "x" } },
      }),
    );
    expect(fixed.reason).toBe(
      'The answerer was asked 1× about a request that had to be refused first (the relay changed it on the way: /maxTokens changed from a string to a number (sent "8", asked 8)) — expected error (any code), without asking the answerer',
    );
  });
});

describe("judgeCase: error", () => {
  const err = (code: unknown, message: unknown): Observation["upstream"] => ({
    kind: "error",
    error: { code, message },
  });

  it("checks the code (one or several), the message (case-insensitive regex) and whether the answerer was asked", () => {
    const o = obs({ asked: [], answered: undefined, upstream: err(-32602, "Invalid PARAMS: maxTokens") });
    const v = judge([{ outcome: "error", code: -32602, message: "invalid params", asked: false }], o);
    expect(v.status).toBe("pass");
    expect(ids(v)).toEqual(["upstream-got-error", "error-code", "error-message", "answerer-not-asked"]);
    expect(v.checks.map((c) => c.detail)).toEqual([
      'the upstream received error -32602 "Invalid PARAMS: maxTokens"',
      "error code -32602 as expected",
      "the message matches /invalid params/",
      "the answerer was never asked",
    ]);
    expect(judge([{ outcome: "error", code: [-1, -32602] }], o).status).toBe("pass");
    const wrong = judge([{ outcome: "error", code: [-1, -32603], message: "^x" }], o);
    expect(failed(wrong)).toEqual(["error-code", "error-message"]);
    expect(wrong.status).toBe("fail");
    expect(wrong.reason).toBe("Error code -32602, expected -1 or -32603 — expected error -1 or -32603");
  });

  it("treats a message pattern as advisory: wording alone warns, never fails", () => {
    const o = obs({ asked: [], answered: undefined, upstream: err(-1, "Declined by the person") });
    const v = judge([{ outcome: "error", code: -1, message: "reject" }], o);
    expect(v.status).toBe("warn");
    expect(v.reason).toBe(
      'The message "Declined by the person" does not match /reject/ (advisory: wording is not normative) — expected error -1',
    );
    expect(judge([{ outcome: "error", code: -1, message: "." }], obs({ upstream: err(-1, 42) })).status).toBe(
      "warn",
    );
  });

  it("judges the rules that are about the message by meaning: expiry named, no stacked prefixes", () => {
    for (const m of [
      "Request expired",
      "timed out waiting",
      "Timeout",
      "deadline passed (1200 ms)",
      "no answer in time",
    ]) {
      expect(
        judge([{ outcome: "error", code: -32603, means: "expiry" }], obs({ upstream: err(-32603, m) }))
          .status,
        m,
      ).toBe("pass");
    }
    const cancel = judge(
      [{ outcome: "error", code: -32603, means: "expiry" }],
      obs({ upstream: err(-32603, "the sampling request was cancel") }),
    );
    expect(cancel.status).toBe("fail");
    expect(failed(cancel)).toEqual(["error-message-means-expiry"]);
    const stacked = judge(
      [{ outcome: "error", code: -1, notStacked: true }],
      obs({ upstream: err(-1, "MCP error -1: MCP error -1: User rejected") }),
    );
    expect(failed(stacked)).toEqual(["error-message-not-stacked"]);
    expect(
      judge(
        [{ outcome: "error", code: -1, notStacked: true }],
        obs({ upstream: err(-1, "MCP error -1: User rejected") }),
      ).status,
    ).toBe("pass");
  });

  it("fails an expiry reported later than the declared deadline plus slack, with both figures", () => {
    const frames = (after: number): Frame[] => [
      {
        t: 10,
        end: "upstream",
        dir: "to-relay",
        message: { jsonrpc: "2.0", id: 4, method: "sampling/createMessage" },
      },
      {
        t: 10 + after,
        end: "upstream",
        dir: "from-relay",
        message: { jsonrpc: "2.0", id: 4, error: { code: -32603, message: "expired" } },
      },
    ];
    const e: Expectation[] = [{ outcome: "error", code: -32603, means: "expiry" }];
    const o = obs({ upstream: err(-32603, "expired") });
    const inTime = judge(e, o, { answerTimeoutMs: 1500, frames: frames(1600) });
    expect(inTime.status).toBe("pass");
    const timing = (v: typeof inTime) => v.checks.find((c) => c.id === "expiry-in-time");
    expect(timing(inTime)).toMatchObject({
      detail: "expiry was reported within the declared deadline of 1500 ms plus 1000 ms slack",
      measuredMs: 1600,
    });
    const late = judge(e, o, { answerTimeoutMs: 1500, frames: frames(3000) });
    expect(late.status).toBe("fail");
    // The reason names the declared figures only; the measured delay is the check's measuredMs.
    expect(late.reason).toMatch(/reported later than the declared deadline of 1500 ms plus 1000 ms slack/);
    expect(late.reason).not.toMatch(/3000/);
    expect(timing(late)?.measuredMs).toBe(3000);
  });

  it("does not accept a result where an error was expected", () => {
    const r = judge([{ outcome: "error", code: -1, message: "x" }], obs());
    expect(ids(r)).toEqual(["upstream-got-error", "no-cross-talk"]);
    expect(failed(r)).toEqual(["upstream-got-error"]);
    expect(r.reason).toBe('The upstream received a result (role "assistant", model "m") — expected error -1');
  });

  it("fails a refusal that asked first, and a decline nobody was asked about", () => {
    const asked = judge([{ outcome: "error", asked: false }], obs({ upstream: err(-32602, "bad") }));
    expect(failed(asked)).toEqual(["answerer-not-asked"]);
    expect(asked.checks.find((c) => c.id === "answerer-not-asked")!.detail).toBe(
      "the answerer was asked 1× about a request that had to be refused first",
    );
    expect(asked.reason).toMatch(/ — expected error \(any code\), without asking the answerer$/);
    const notAsked = judge([{ outcome: "error", asked: true }], obs({ asked: [], upstream: err(-1, "no") }));
    expect(failed(notAsked)).toEqual(["answerer-asked"]);
    expect(notAsked.checks.find((c) => c.id === "answerer-asked")!.detail).toBe(
      "the answerer was never asked",
    );
    expect(notAsked.reason).toBe(
      "The answerer was never asked — expected error (any code), after asking the answerer",
    );
    const yes = judge([{ outcome: "error", asked: true }], obs({ upstream: err(-1, "no") }));
    expect(yes.checks.find((c) => c.id === "answerer-asked")!.detail).toBe("the answerer was asked (1×)");
  });

  it("counts a question shown at the review surface as asking", () => {
    const reviews: Observation["reviews"] = [
      { stage: "request", question: {}, decision: { action: "decline" } },
    ];
    const v = judge(
      [{ outcome: "error", asked: false }],
      obs({ asked: [], reviews, upstream: err(-1, "no") }),
    );
    expect(failed(v)).toEqual(["answerer-not-asked"]);
    const responseOnly: Observation["reviews"] = [
      { stage: "response", question: {}, decision: { action: "approve" } },
    ];
    expect(
      judge(
        [{ outcome: "error", asked: false }],
        obs({ asked: [], reviews: responseOnly, upstream: err(-1, "no") }),
      ).status,
    ).toBe("pass");
  });
});

describe("judgeCase: withheld, alternatives and eras", () => {
  it("passes a withheld input and fails anything else", () => {
    const w = judge(
      [{ outcome: "withheld", asked: true }],
      obs({ upstream: { kind: "withheld", detail: "no retry" } }),
    );
    expect(w.status).toBe("pass");
    expect(ids(w)).toEqual(["upstream-withheld", "answerer-asked", "no-cross-talk"]);
    const r = judge([{ outcome: "withheld" }], obs());
    expect(failed(r)).toEqual(["upstream-withheld"]);
    expect(r.reason).toBe(
      'The upstream received a result (role "assistant", model "m") — expected no response for the input',
    );
    expect(judge([{ outcome: "withheld", asked: false }], obs()).reason).toMatch(
      /expected no response for the input, without asking the answerer$/,
    );
  });

  it("passes when any applicable expectation holds, and reports the closest one otherwise", () => {
    const o = obs({ asked: [], answered: undefined, upstream: { kind: "withheld", detail: "none" } });
    const v = judge(
      [
        { outcome: "error", code: -32602, eras: ["2025-11-25"] },
        { outcome: "withheld", eras: ["2026-07-28"] },
      ],
      o,
      {
        era: "2026-07-28",
      },
    );
    expect(v.status).toBe("pass");
    const both = judge(
      [{ outcome: "delivered" }, { outcome: "error", code: -1, asked: true }],
      obs({ upstream: { kind: "timeout", deadlineMs: 5, afterMs: 6 } }),
    );
    expect(both.status).toBe("fail");
    // delivered fails 1 check (upstream-got-result); the error fails 1 too; the first closest one is kept.
    expect(failed(both)).toEqual(["upstream-got-result"]);
    expect(both.reason).toBe(
      "The upstream received no answer within the harness's 5 ms deadline — expected the answer delivered, or error -1, after asking the answerer",
    );
    const closer = judge(
      [{ outcome: "error", code: -1, message: "x", asked: false }, { outcome: "error" }],
      obs({ upstream: { kind: "broken", detail: "d" } }),
    );
    expect(failed(closer)).toEqual(["upstream-got-error"]);
    expect(closer.checks).toHaveLength(2);
  });

  it("is an error when no expectation applies to the era", () => {
    const v = judge([{ outcome: "delivered", eras: ["2024-11-05"] }], obs());
    expect(v).toEqual({
      status: "error",
      reason: "the case states no expected outcome for 2025-11-25",
      checks: [],
    });
  });
});

describe("judgeCase: extra checks", () => {
  const err: Observation["upstream"] = { kind: "error", error: { code: -1, message: "no" } };

  it("askedWithout: the answerer never saw the pointer", () => {
    const withTools = { ...sent, tools: [] };
    const v = judge(
      [{ outcome: "delivered", askedWithout: ["/tools"] }],
      obs({ sent: withTools, asked: [withTools] }),
    );
    expect(failed(v)).toEqual(["asked-without"]);
    expect(v.checks.find((c) => c.id === "asked-without")!.detail).toBe(
      "the answerer was shown /tools (1×), which it must not receive",
    );
    const ok = judge([{ outcome: "delivered", askedWithout: ["/tools"] }], obs());
    expect(ok.checks.find((c) => c.id === "asked-without")).toEqual({
      id: "asked-without",
      ok: true,
      detail: "the answerer was never shown /tools",
    });
  });

  it("declaredUpstream: what the relay declared, present or absent as expected", () => {
    const e: Expectation = {
      outcome: "delivered",
      declaredUpstream: { "/sampling": true, "/sampling/tools": false },
    };
    const good = judge([e], obs({ declared: { sampling: {} } }));
    expect(good.status).toBe("pass");
    expect(good.checks.filter((c) => c.id === "declared-upstream").map((c) => c.detail)).toEqual([
      "the relay declared /sampling to the upstream",
      "the relay did not declare /sampling/tools to the upstream",
    ]);
    const bad = judge([e], obs({ declared: { sampling: { tools: {} } } }));
    expect(bad.checks.filter((c) => !c.ok).map((c) => c.detail)).toEqual([
      "the relay declared /sampling/tools to the upstream (expected absent)",
    ]);
    const missing = judge([e], obs({ declared: {} }));
    expect(missing.checks.filter((c) => !c.ok).map((c) => c.detail)).toEqual([
      "the relay did not declare /sampling to the upstream (expected present)",
    ]);
    const none = judge([e], obs());
    expect(none.checks.filter((c) => c.id === "declared-upstream").map((c) => [c.ok, c.detail])).toEqual([
      [false, "the relay declared no capabilities to the upstream (expected /sampling present)"],
      [true, "the relay declared no capabilities to the upstream (expected /sampling/tools absent)"],
    ]);
  });

  it("modelAsked and modelGotEdit: the model behind a review", () => {
    const denied = judge([{ outcome: "error", modelAsked: false }], obs({ upstream: err }));
    expect(failed(denied)).toEqual(["model-asked"]);
    expect(denied.checks.find((c) => c.id === "model-asked")!.detail).toBe(
      "the model downstream was asked (1×), though the reviewer had not approved",
    );
    const fine = judge([{ outcome: "error", modelAsked: false }], obs({ asked: [], upstream: err }));
    expect(fine.checks.find((c) => c.id === "model-asked")).toEqual({
      id: "model-asked",
      ok: true,
      detail: "the model downstream was never asked",
    });
    const should = judge([{ outcome: "error", modelAsked: true }], obs({ asked: [], upstream: err }));
    expect(should.checks.find((c) => c.id === "model-asked")!.detail).toBe(
      "the model downstream was never asked, though it should have been",
    );
    expect(
      judge([{ outcome: "error", modelAsked: true }], obs({ upstream: err })).checks.find(
        (c) => c.id === "model-asked",
      ),
    ).toEqual({
      id: "model-asked",
      ok: true,
      detail: "the model downstream was asked (1×)",
    });

    const edited = { ...sent, maxTokens: 2 };
    const approve: Observation["reviews"] = [
      { stage: "request", question: { request: sent }, decision: { action: "approve", params: edited } },
    ];
    const detail = (o: Observation) =>
      judge([{ outcome: "error", modelGotEdit: true }], o).checks.find((c) => c.id === "model-got-edit")!;
    expect(detail(obs({ asked: [edited], reviews: approve, upstream: err }))).toEqual({
      id: "model-got-edit",
      ok: true,
      detail: "the model was asked with the reviewer's edited request",
    });
    expect(detail(obs({ asked: [sent], reviews: approve, upstream: err }))).toMatchObject({
      ok: false,
      detail:
        "the model was asked with a request other than the reviewer's edit: /maxTokens changed (edited 2, asked 8)",
    });
    expect(detail(obs({ asked: [], reviews: approve, upstream: err }))).toMatchObject({
      ok: false,
      detail: "the model was never asked after the reviewer's edit",
    });
    expect(detail(obs({ upstream: err }))).toMatchObject({
      ok: false,
      detail: "the reviewer made no edit (the case must script one)",
    });
    const declinedEdit: Observation["reviews"] = [
      { stage: "request", question: {}, decision: { action: "decline", params: edited } },
    ];
    expect(detail(obs({ asked: [edited], reviews: declinedEdit, upstream: err })).ok).toBe(false);
  });

  it("reviewed: each stage was shown with the server, every message's text, the system prompt, the full request and a skeleton the validator accepts", () => {
    const withPrompt = { ...sent, systemPrompt: `sys ${CANARY}` };
    const question = {
      server: { name: "upstream" },
      request: withPrompt,
      show: withPrompt,
      resultSkeleton: { role: "assistant", content: { type: "text", text: "" }, model: "" },
    };
    const reviews = (
      q: Record<string, unknown>,
      response?: Record<string, unknown>,
    ): Observation["reviews"] => [
      { stage: "request", question: q, decision: { action: "approve" } },
      ...(response
        ? [{ stage: "response" as const, question: response, decision: { action: "approve" } }]
        : []),
    ];
    const e: Expectation = { outcome: "delivered", reviewed: ["request", "response"] };
    const base = { sent: withPrompt, asked: [withPrompt] };
    const response = { server: { name: "upstream" }, show: withPrompt, response: answer };
    const ok = judge(
      [e],
      obs({ ...base, reviews: reviews(question, response), modelAnswered: { result: answer } }),
    );
    expect(ok.status).toBe("pass");
    expect(
      ok.checks
        .filter((c) => c.id.startsWith("review-") && c.id !== "review-request-unchanged")
        .map((c) => c.detail),
    ).toEqual([
      "the review surface put the request to the person answering",
      "the review surface showed the request with the server, system prompt, messages and an answer skeleton the validator accepts",
      "the review surface put the response to the person answering",
      "the review surface showed the response with the server, system prompt, messages and the model's response",
    ]);

    const detailOf = (o: Observation, id: string) => judge([e], o).checks.find((c) => c.id === id)!;
    expect(detailOf(obs({ ...base, reviews: [] }), "review-asked")).toEqual({
      id: "review-asked",
      ok: false,
      detail: "the review surface never showed the request",
    });
    expect(ids(judge([e], obs({ ...base, reviews: [] })))).not.toContain("review-request");
    expect(
      judge([e], obs({ ...base, reviews: reviews(question) })).checks.filter((c) => c.id === "review-asked"),
    ).toEqual([
      { id: "review-asked", ok: true, detail: "the review surface put the request to the person answering" },
      { id: "review-asked", ok: false, detail: "the review surface never showed the response" },
    ]);
    const hidden = {
      ...question,
      server: { name: "" },
      show: { messages: [], systemPrompt: "other" },
      resultSkeleton: { role: "x" },
    };
    const hiddenDetail = detailOf(obs({ ...base, reviews: reviews(hidden) }), "review-request").detail;
    expect(hiddenDetail).toMatch(
      /^the review surface showed the request without which server asks \(shown: \{"name":""\}\); every message's text \(not shown: "Hi cnry-test-1" of message 1; messages shown: \[\]\); the system prompt \("sys cnry-test-1" not shown; shown: "other"\); an answer skeleton the reference validator accepts \(offered \{"role":"x"\}: /,
    );
    const noServer = { ...question, server: undefined, show: { messages: withPrompt.messages } };
    expect(detailOf(obs({ ...base, reviews: reviews(noServer) }), "review-request").detail).toBe(
      'the review surface showed the request without which server asks (shown: nothing); the system prompt ("sys cnry-test-1" not shown; shown: null)',
    );
    const noPrompts = judge(
      [{ outcome: "delivered", reviewed: ["request"] }],
      obs({ reviews: reviews({ ...question, request: sent, show: sent }) }),
    );
    expect(noPrompts.checks.find((c) => c.id === "review-request")!.ok).toBe(true);
    for (const skeleton of [
      {},
      { content: {}, model: "" },
      { role: "a", model: "" },
      { role: "assistant", content: {} },
    ]) {
      expect(
        detailOf(
          obs({ ...base, reviews: reviews({ ...question, resultSkeleton: skeleton }) }),
          "review-request",
        ).detail,
      ).toMatch(
        `the review surface showed the request without an answer skeleton the reference validator accepts (offered ${JSON.stringify(skeleton)}: `,
      );
    }
    expect(
      detailOf(
        obs({ ...base, reviews: reviews({ ...question, resultSkeleton: undefined }) }),
        "review-request",
      ).detail,
    ).toBe("the review surface showed the request without an answer skeleton (none offered)");
    // The full request: a question that holds only part of it fails, quoting what it held.
    expect(
      detailOf(
        obs({ ...base, reviews: reviews({ ...question, request: { maxTokens: 8 } }) }),
        "review-request",
      ).detail,
    ).toBe(
      'the review surface showed the request without the full request (shown differs from the request sent: /messages missing (sent [{"role":"user","content":{"type":"text","text":"Hi cnry-test-1"}}]), /systemPrompt missing (sent "sys cnry-test-1"))',
    );
    const otherResponse = { ...response, response: { ...answer, model: "x" } };
    expect(
      detailOf(
        obs({ ...base, reviews: reviews(question, otherResponse), modelAnswered: { result: answer } }),
        "review-response",
      ).detail,
    ).toBe(
      'the review surface showed the response without the model\'s response unchanged (shown differs from the model\'s: /model changed (answered "m", shown "x"))',
    );
    expect(
      detailOf(obs({ ...base, reviews: reviews(question, response) }), "review-response").detail,
    ).toMatch(/^the review surface showed the response without the model's response unchanged/);
    // The response question shows the request as edited, when the reviewer edited it.
    const edited = { ...withPrompt, systemPrompt: "edited" };
    const editReviews: Observation["reviews"] = [
      { stage: "request", question, decision: { action: "approve", params: edited } },
      { stage: "response", question: { ...response, show: edited }, decision: { action: "approve" } },
    ];
    expect(
      detailOf(
        obs({ ...base, asked: [edited], reviews: editReviews, modelAnswered: { result: answer } }),
        "review-response",
      ).ok,
    ).toBe(true);
  });

  it("bystanders: no other session was asked", () => {
    const ok = judge(
      [{ outcome: "delivered" }],
      obs({
        bystanders: [
          { session: "B", asked: [] },
          { session: "C", asked: [] },
        ],
      }),
    );
    expect(ok.checks.find((c) => c.id === "only-the-asker-asked")).toEqual({
      id: "only-the-asker-asked",
      ok: true,
      detail: "no other downstream session (B, C) was asked",
    });
    const leaked = judge(
      [{ outcome: "delivered" }],
      obs({
        bystanders: [
          { session: "B", asked: [sent, sent] },
          { session: "C", asked: [] },
        ],
      }),
    );
    expect(failed(leaked)).toEqual(["only-the-asker-asked"]);
    expect(leaked.checks.find((c) => c.id === "only-the-asker-asked")!.detail).toBe(
      "the sampling request also reached session B (2×), whose requests did not cause it",
    );
    expect(ids(judge([{ outcome: "delivered" }], obs()))).not.toContain("only-the-asker-asked");
  });
});

describe("applyPrerequisite", () => {
  const verdict = (status: "pass" | "fail" | "warn" | "error") => ({
    status,
    reason: "r",
    checks: [{ id: "x", ok: true, detail: "d" }],
  });

  it("leaves verdicts alone when the prerequisite is met, and failures and errors always", () => {
    const met = { met: true, what: "" };
    const unmet = { met: false, what: "no round trip" };
    expect(applyPrerequisite(verdict("pass"), met)).toEqual(verdict("pass"));
    expect(applyPrerequisite(verdict("fail"), unmet)).toEqual(verdict("fail"));
    expect(applyPrerequisite(verdict("error"), unmet)).toEqual(verdict("error"));
  });

  it("turns a pass or a warning into a failure that says why, keeping the case's own checks", () => {
    const unmet = { met: false, what: "no round trip" };
    expect(applyPrerequisite(verdict("pass"), unmet)).toEqual({
      status: "fail",
      reason:
        "Prerequisite not met: no round trip, so this case proves nothing (it would otherwise have been pass)",
      checks: [
        { id: "x", ok: true, detail: "d" },
        { id: "prerequisite", ok: false, detail: "no round trip" },
      ],
    });
    expect(applyPrerequisite(verdict("warn"), unmet).reason).toMatch(/would otherwise have been warn\)$/);
  });
});

describe("one request opens at most one question", () => {
  const declined = { kind: "error" as const, error: { code: -1, message: "User rejected sampling request" } };
  const denial: Expectation[] = [{ outcome: "error", code: -1, asked: true }];

  it("fails a denial that the relay answered only after asking again (a dropped refusal, re-asked)", () => {
    const once = judge(denial, obs({ asked: [sent], answered: undefined, upstream: declined }));
    expect(once.status).toBe("pass");
    const again = judge(denial, obs({ asked: [sent, sent], answered: undefined, upstream: declined }));
    expect(again.status).toBe("fail");
    expect(failed(again)).toEqual(["asked-once"]);
    expect(again.reason).toContain("asked 2× for one request");
  });

  it("fails a review surface that asks twice about one request", () => {
    const question = (stage: "request" | "response") => ({
      stage,
      question: {
        server: { name: "s" },
        show: { messages: sent.messages, systemPrompt: null },
        request: sent,
      },
      decision: { action: "decline" },
    });
    const twice = judge(
      [{ outcome: "error", code: -1 }],
      obs({
        asked: [],
        answered: undefined,
        upstream: declined,
        reviews: [question("request"), question("request")],
      }),
    );
    expect(failed(twice)).toEqual(["asked-once"]);
    expect(twice.reason).toContain("review surface asked about one request 2×");
  });
});

describe("dropped fields and the initialized notification", () => {
  const withContext = { ...sent, includeContext: "thisServer" };
  const dropped: Expectation = {
    outcome: "delivered",
    unchanged: ["/request"],
    dropped: { "/request/includeContext": ["none"] },
  };

  it("passes a request delivered without the field, or with an allowed value, and fails it passed on as sent", () => {
    expect(judge([dropped], obs({ sent: withContext, asked: [sent] })).status).toBe("pass");
    const none = { ...sent, includeContext: "none" };
    expect(judge([dropped], obs({ sent: withContext, asked: [none] })).status).toBe("pass");
    const v = judge([dropped], obs({ sent: withContext, asked: [withContext] }));
    expect(v.status).toBe("fail");
    expect(failed(v)).toEqual(["dropped-field"]);
  });

  it("keeps fidelity whole outside the dropped fields", () => {
    const changed = { ...sent, maxTokens: 9 };
    const v = judge([dropped], obs({ sent: withContext, asked: [changed] }));
    expect(failed(v)).toEqual(["request-unchanged"]);
  });

  it("judges afterInitialized from the answerer's wire", () => {
    const frame = (t: number, dir: Frame["dir"], method: string): Frame => ({
      t,
      end: "downstream",
      dir,
      message: { jsonrpc: "2.0", method, ...(method.startsWith("notifications/") ? {} : { id: 1 }) },
    });
    const expectation: Expectation = { outcome: "delivered", afterInitialized: true };
    const inOrder = [
      frame(1, "to-relay", "notifications/initialized"),
      frame(2, "from-relay", "sampling/createMessage"),
    ];
    expect(judge([expectation], obs(), { frames: inOrder }).status).toBe("pass");
    const early = judge([expectation], obs(), { frames: [...inOrder].reverse() });
    expect(failed(early)).toEqual(["asked-after-initialized"]);
    // The order of events, not their times: the detail is the same in every run.
    const detail = (v: typeof early) => v.checks.find((c) => c.id === "asked-after-initialized")?.detail;
    expect(detail(early)).toBe(
      "the relay sent sampling/createMessage before the answerer's initialized notification (which came 1 frame later on the answerer's wire)",
    );
    const never = judge([expectation], obs(), { frames: [frame(2, "from-relay", "sampling/createMessage")] });
    expect(failed(never)).toEqual(["asked-after-initialized"]);
    expect(detail(never)).toBe(
      "the relay sent sampling/createMessage before the answerer's initialized notification (not sent before the case ended)",
    );
    expect(ids(judge([expectation], obs(), { frames: [] }))).toContain("asked-after-initialized");
  });
});
