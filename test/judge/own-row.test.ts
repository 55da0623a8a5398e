import { describe, expect, it } from "vitest";
import { expirySlackMs } from "../../src/judge/case.ts";
import {
  judgeOne,
  judgeRuns,
  ROUNDTRIP_ROW,
  rowIndexOf,
  withEraPrerequisite,
} from "../../src/judge/judge-runs.ts";
import type { CaseRun } from "../../src/model/case-run.ts";
import type { Observation } from "../../src/model/evidence.ts";
import { type LoadedCase, loadCases, loadRegister, loadTarget } from "../../src/model/load.ts";
import { caseTimeoutMsFor } from "../../src/model/target.ts";
import type { Era } from "../../src/protocol/eras.ts";

/**
 * Issue #37: each check counts toward its own row only, a row whose prerequisite failed keeps its own severity, and a
 * profile's declared deadline is the one the expiry cases wait for. Judged on the corpus cases as committed, with the
 * observations the published relays produced (docs/real-relays.md cites the source of each).
 */

const ROOT = new URL("../..", import.meta.url).pathname;
const register = loadRegister();
const corpus = loadCases(register);
const rows = rowIndexOf(register);
const CANARY = "Cnry-own-row-1";

const sub = <T>(v: T): T => JSON.parse(JSON.stringify(v).replaceAll("{{canary}}", CANARY)) as T;

function kase(row: string, id: string): LoadedCase {
  const k = corpus.find((c) => c.row === row && c.id === id);
  if (!k) throw new Error(`no case ${row}/${id}`);
  return k;
}

function runOf(
  k: LoadedCase,
  era: Era,
  observation: Partial<Observation>,
  over: Partial<CaseRun> = {},
): CaseRun {
  const sent = sub(k.request);
  return {
    kase: k,
    era,
    canary: CANARY,
    expect: sub(k.expect),
    capabilities: k.capabilities ?? { sampling: {} },
    answerTimeoutMs: 1500,
    startedAt: "2026-01-01T00:00:00Z",
    durationMs: 1,
    observation: { sent, asked: [sent], upstream: { kind: "broken", detail: "unset" }, ...observation },
    frames: [],
    negotiated: { upstream: era, downstream: era },
    ...over,
  };
}

/** FastMCP 4.0.10 declares this to its backend (fastmcp/client/client.py:566-574): sampling without context or tools. */
const FASTMCP_DECLARED = { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } };

describe("a check counts toward its own row only", () => {
  it("a wrong error code is the code row's: the not-stacked case passes a verbatim, unstacked message", () => {
    const k = kase("sampling-relay-error-not-stacked", "message-relayed-verbatim");
    const message = `User rejected sampling request ${CANARY}`;
    // FastMCP: the answerer's message word for word, under -32603 (fastmcp/client/sampling/__init__.py:65-69).
    const fastmcp = runOf(k, "2025-11-25", {
      answered: { error: { code: -1, message } },
      upstream: { kind: "error", error: { code: -32603, message } },
    });
    const verdict = judgeOne(rows, fastmcp).verdict;
    expect(verdict.status, verdict.reason).toBe("pass");
    expect(verdict.checks.map((c) => c.id)).not.toContain("error-code");
    // A stacked message still fails the row (SHOULD: warn).
    const stacked = runOf(k, "2025-11-25", {
      answered: { error: { code: -1, message } },
      upstream: { kind: "error", error: { code: -1, message: `MCP error -1: MCP error -1: ${message}` } },
    });
    expect(judgeOne(rows, stacked).verdict.status).toBe("warn");
  });

  it("a task-augmented request answered with the answerer's CreateMessageResult passes, whatever else changed", () => {
    const k = kase("sampling-task-augmented-processed-normally", "task-ttl-plain-result");
    const answer = sub((k.answer as { result: Record<string, unknown> }).result);
    // FastMCP rebuilds the result: its own model, no stopReason, the text kept (fastmcp/server/providers/proxy.py:1569-1577).
    const rebuilt = { role: "assistant", model: "fastmcp-client", content: answer.content };
    const fastmcp = runOf(k, "2025-11-25", {
      asked: [{ messages: sub(k.request).messages, maxTokens: 64 }],
      answered: { result: answer },
      upstream: { kind: "result", result: rebuilt },
      declared: FASTMCP_DECLARED,
    });
    const verdict = judgeOne(rows, fastmcp).verdict;
    expect(verdict.status, verdict.reason).toBe("pass");
    // A CreateTaskResult instead of the answerer's result still fails the row.
    const task = { task: { taskId: "t1", status: "working", createdAt: "2026-01-01T00:00:00Z", ttl: 60000 } };
    const taskResult = runOf(k, "2025-11-25", {
      answered: { result: answer },
      upstream: { kind: "result", result: task },
      declared: FASTMCP_DECLARED,
    });
    expect(judgeOne(rows, taskResult).verdict.status).toBe("fail");
  });

  it("a tool-enabled task case does not apply to a relay that declared no sampling.tools upstream", () => {
    const k = kase("sampling-task-augmented-processed-normally", "task-with-tools-plain-result");
    const run = runOf(k, "2025-11-25", {
      asked: [{ messages: sub(k.request).messages, maxTokens: 64 }],
      upstream: {
        kind: "error",
        error: { code: -32603, message: "3 validation errors for CreateMessageResult" },
      },
      declared: FASTMCP_DECLARED,
    });
    const verdict = judgeOne(rows, run).verdict;
    expect(verdict).toMatchObject({ status: "skip", na: true });
    expect(verdict.reason).toMatch(/declared no \/sampling\/tools to the upstream/);
    // Declared: the case is judged (and fails on what reached the upstream).
    const declared = runOf(k, "2025-11-25", { ...run.observation, declared: { sampling: { tools: {} } } });
    expect(judgeOne(rows, declared).verdict.status).toBe("fail");
  });

  it("a relay that carries no context at either hop keeps includeContext's SHOULD NOT: what is left is fidelity", () => {
    const k = kase(
      "sampling-server-includecontext-only-with-context-capability",
      "delivered-with-context-capability",
    );
    const sent = sub(k.request);
    const { includeContext: _dropped, ...withoutContext } = sent;
    const answer = sub((k.answer as { result: Record<string, unknown> }).result);
    const base = {
      asked: [withoutContext],
      answered: { result: answer },
      upstream: { kind: "result" as const, result: answer },
    };
    // FastMCP: no sampling.context upstream (client.py:566-574), includeContext never passed on (proxy.py:1560-1567).
    const fastmcp = judgeOne(rows, runOf(k, "2025-11-25", { ...base, declared: FASTMCP_DECLARED })).verdict;
    expect(fastmcp.status, fastmcp.reason).toBe("pass");
    // Declaring sampling.context upstream and then dropping includeContext is not what the rule allows (SHOULD: warn).
    const claims = { ...base, declared: { sampling: { context: {} } } };
    expect(judgeOne(rows, runOf(k, "2025-11-25", claims)).verdict.status).toBe("warn");
    // Declaring nothing but passing it on mixes the two: still caught.
    const mixed = { ...base, asked: [sent], declared: {} };
    expect(judgeOne(rows, runOf(k, "2025-11-25", mixed)).verdict.status).toBe("warn");
  });
});

describe("a failed prerequisite keeps the row's own severity", () => {
  const failedRoundTrip = (era: Era) => {
    const k = kase(ROUNDTRIP_ROW, "text-roundtrip");
    return runOf(k, era, {
      asked: [],
      declared: {},
      upstream: {
        kind: "error",
        error: { code: -32601, message: "Server-to-client requests are not supported in stateless mode" },
      },
    });
  };

  it("a SHOULD row warns and a MUST row fails, saying the case did not run and why", () => {
    const notRun = "the era's round trip failed";
    const runs = [
      failedRoundTrip("2025-11-25"),
      runOf(kase("sampling-client-rate-limit", "burst-of-forty-eight"), "2025-11-25", {}, { notRun }),
      runOf(kase("sampling-relay-expiry-reported", "no-answer-expires"), "2025-11-25", {}, { notRun }),
      runOf(
        kase("sampling-task-augmented-processed-normally", "task-ttl-plain-result"),
        "2025-11-25",
        {},
        { notRun },
      ),
    ];
    const judged = judgeRuns(register, runs);
    expect(judged.map((j) => j.verdict.status)).toEqual(["fail", "warn", "warn", "fail"]);
    for (const j of judged.slice(1))
      expect(j.verdict.reason).toMatch(/^Prerequisite not met: .*so this case was not run/);
  });

  it("a SHOULD case that ran and passed without the round trip earns a warning, not a pass or a failure", () => {
    const k = kase("sampling-relay-error-not-stacked", "message-relayed-verbatim");
    const message = `User rejected sampling request ${CANARY}`;
    const ran = runOf(k, "2025-11-25", { upstream: { kind: "error", error: { code: -1, message } } });
    const pre = { met: false, what: "no round trip" };
    const verdict = withEraPrerequisite(judgeOne(rows, ran), pre).verdict;
    expect(verdict.status).toBe("warn");
    expect(verdict.reason).toMatch(/^Prerequisite not met: no round trip/);
  });

  it("a round trip against a relay that declared no sampling upstream says so first", () => {
    const verdict = judgeOne(rows, failedRoundTrip("2025-11-25")).verdict;
    expect(verdict.status).toBe("fail");
    expect(verdict.reason).toMatch(
      /^The relay declared no sampling capability to the upstream \(capabilities \{\}\), so it does not carry sampling in this mode: the upstream received error -32601/,
    );
    // Declared: the reason is the failure alone.
    const declared = failedRoundTrip("2025-11-25");
    declared.observation.declared = { sampling: {} };
    expect(judgeOne(rows, declared).verdict.reason).toMatch(/^The upstream received error -32601/);
  });
});

describe("a profile's declared deadline is the one the expiry cases wait for", () => {
  const civic = loadTarget(`${ROOT}targets/real/civic-passthrough.yaml`);
  const expire = kase("sampling-relay-expiry-reported", "no-answer-expires");
  const silent = kase("sampling-client-user-approval-controls", "answerer-silent-not-approved");
  const accept = kase(ROUNDTRIP_ROW, "text-roundtrip");

  it("waits past a deadline longer than the case's default, for expiry cases only", () => {
    // civic: the SDK's 60 s default request timeout (passthroughBaseProtocol.js:114, sdk shared/protocol.js:8).
    expect(civic.answerTimeoutMs).toBe(60_000);
    expect(civic.caseTimeoutMs).toBeLessThan(civic.answerTimeoutMs);
    for (const k of [expire, silent]) {
      // The harness upstream waits the case's timeout less its margin (src/harness/waits.ts: 500 ms).
      const wait = caseTimeoutMsFor(civic, k.answer) - 500;
      expect(wait).toBeGreaterThanOrEqual(civic.answerTimeoutMs + expirySlackMs(civic.answerTimeoutMs));
    }
    // The rest of the run keeps the profile's caseTimeoutMs.
    expect(caseTimeoutMsFor(civic, accept.answer)).toBe(civic.caseTimeoutMs);
    // A deadline the case's timeout already covers changes nothing.
    const short = { caseTimeoutMs: 6000, answerTimeoutMs: 1500 };
    expect(caseTimeoutMsFor(short, expire.answer)).toBe(6000);
  });

  it('judges what arrived at the relay\'s deadline: -32001 "Request timed out" names expiry, in time', () => {
    const message = "MCP error -32001: MCP error -32001: Request timed out";
    const sentFrame = {
      t: 0,
      end: "upstream" as const,
      dir: "to-relay" as const,
      message: { jsonrpc: "2.0", id: "up-1", method: "sampling/createMessage", params: {} },
    };
    const reply = {
      t: 60_012,
      end: "upstream" as const,
      dir: "from-relay" as const,
      message: { jsonrpc: "2.0", id: "up-1", error: { code: -32001, message } },
    };
    const observed = { upstream: { kind: "error" as const, error: { code: -32001, message } } };
    const over = { answerTimeoutMs: civic.answerTimeoutMs, frames: [sentFrame, reply] };
    const expiry = judgeOne(rows, runOf(expire, "2025-11-25", observed, over)).verdict;
    const ok = Object.fromEntries(expiry.checks.map((c) => [c.id, c.ok]));
    expect(ok).toMatchObject({
      "error-message-means-expiry": true,
      "expiry-in-time": true,
      "error-code": false,
    });
    expect(expiry.status).toBe("warn");
    expect(expiry.reason).toMatch(/^Error code -32001, expected -32603/);
    const approval = judgeOne(rows, runOf(silent, "2025-11-25", observed, over)).verdict;
    expect(approval.status, approval.reason).toBe("pass");
  });
});
