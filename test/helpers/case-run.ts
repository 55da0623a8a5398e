import type { CaseRun } from "../../src/model/case-run.ts";
import type { LoadedCase } from "../../src/model/load.ts";
import type { Era } from "../../src/protocol/eras.ts";

/** A delivered answer and the one-message request it answers, as the judge's unit tests use them. */
export const ANSWER = { role: "assistant", content: { type: "text", text: "x" }, model: "m" };
export const SENT = { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 8 };

/**
 * A recorded case run for judge tests: a `delivered` case of `row` whose upstream got the answer (`ok`) or an error;
 * `over` replaces fields of the run, `kase` fields of the case.
 */
export function caseRun(
  row: string,
  era: Era,
  ok: boolean,
  over: Partial<CaseRun> = {},
  kase: Partial<LoadedCase> = {},
): CaseRun {
  const expect: LoadedCase["expect"] = [{ outcome: "delivered" }];
  return {
    kase: {
      id: `${row}-case`,
      row,
      title: "t",
      why: "w",
      request: SENT,
      answer: { action: "accept", result: ANSWER },
      expect,
      file: "cases/x.yaml",
      ...kase,
    },
    era,
    canary: "c",
    expect,
    capabilities: { sampling: {} },
    answerTimeoutMs: 1500,
    startedAt: "2026-01-01T00:00:00Z",
    durationMs: 3,
    observation: {
      sent: SENT,
      asked: [SENT],
      answered: { result: ANSWER },
      upstream: ok
        ? { kind: "result", result: ANSWER }
        : { kind: "error", error: { code: -32603, message: "no" } },
    },
    frames: [],
    negotiated: { upstream: era, downstream: era },
    ...over,
  };
}
