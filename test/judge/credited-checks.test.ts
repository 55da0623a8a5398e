/**
 * What a review question showed (review-request, review-response) counts toward the rows about what a question shows
 * from whichever case it was seen in, held or not: results.json keeps each outcome with the case result that carries
 * it (`checks`), in the case's own cell or as an entry `<row>/<case>` in the row it counts toward, so the #256 review
 * bullet can rest on the questions that were put (matrix/tracking/, src/matrix/completion.ts).
 */
import { describe, expect, it } from "vitest";
import { judgeRuns } from "../../src/judge/judge-runs.ts";
import type { CaseRun } from "../../src/model/case-run.ts";
import type { Observation } from "../../src/model/evidence.ts";
import { loadCases, loadRegister } from "../../src/model/load.ts";
import type { Era } from "../../src/protocol/eras.ts";
import { recordJudged } from "../../src/run/record.ts";
import { caseRun } from "../helpers/case-run.ts";
import { tempDir } from "../helpers/paths.ts";

const register = loadRegister();
const corpus = loadCases(register);
const ERA: Era = "2025-11-25";
const CANARY = "Cnry-credited-ÄΩ";
const CAN_DENY = "sampling-human-in-loop-can-deny";
const REVIEW_UI = "sampling-app-review-ui";
const SKELETON = { role: "assistant", content: { type: "text", text: "" }, model: "", stopReason: "endTurn" };

function kase(row: string, id: string) {
  const found = corpus.find((c) => c.row === row && c.id === id);
  if (!found) throw new Error(`no case ${row}/${id}`);
  return found;
}

/** A broker question showing everything (`whole`), or the system prompt and `{}` only. */
function question(sent: Record<string, any>, whole: boolean) {
  return whole
    ? {
        server: { name: "upstream" },
        shown: {},
        show: { systemPrompt: sent.systemPrompt ?? null, messages: sent.messages },
        request: sent,
        resultSkeleton: SKELETON,
      }
    : {
        server: { name: "upstream" },
        shown: {},
        show: { systemPrompt: sent.systemPrompt ?? null },
        resultSkeleton: {},
      };
}

function run(row: string, id: string, whole: boolean): CaseRun {
  const k = kase(row, id);
  const sent = JSON.parse(JSON.stringify(k.request).replaceAll("{{canary}}", CANARY));
  const expect = JSON.parse(JSON.stringify(k.expect).replaceAll("{{canary}}", CANARY));
  const script = k.review?.request;
  const answer =
    script?.action === "answer"
      ? JSON.parse(
          JSON.stringify(k.answer.action === "accept" ? k.answer.result : {}).replaceAll(
            "{{canary}}",
            CANARY,
          ),
        )
      : undefined;
  const observation: Observation = answer
    ? {
        sent,
        asked: [],
        answered: { result: answer },
        reviews: [
          {
            stage: "request",
            question: question(sent, whole),
            decision: { action: "answer", result: answer },
          },
        ],
        upstream: { kind: "result", result: answer },
      }
    : {
        sent,
        asked: [],
        reviews: [{ stage: "request", question: question(sent, whole), decision: { action: "decline" } }],
        upstream: { kind: "error", error: { code: -1, message: "User rejected sampling request" } },
      };
  return caseRun(
    row,
    ERA,
    true,
    { observation, expect, canary: CANARY, capabilities: k.capabilities ?? {} },
    k,
  );
}

const roundtrip = (ok: boolean) => caseRun("sampling-relay-roundtrip", ERA, ok);

describe("credited checks: what a question showed, kept where it counts", () => {
  it("a question that showed everything in a can-deny case is credited to sampling-app-review-ui as a pass", () => {
    const [, denied] = judgeRuns(register, [roundtrip(true), run(CAN_DENY, "person-denies-at-review", true)]);
    expect(denied!.verdict.status, denied!.verdict.reason).toBe("pass");
    expect(denied!.credited).toBeUndefined(); // it does not count toward can-deny
    expect(denied!.attributed).toEqual([
      {
        row: REVIEW_UI,
        side: "client",
        status: "pass",
        reason: expect.stringMatching(
          /^The broker showed the request with the server, system prompt, messages and an answer skeleton the validator accepts \(seen in case sampling-human-in-loop-can-deny\/person-denies-at-review\)$/,
        ),
        checks: { "review-request": true },
      },
    ]);
  });

  it("one that hid the messages and offered {} is credited as held false (a warning: the row is a SHOULD)", () => {
    const [, denied] = judgeRuns(register, [
      roundtrip(true),
      run(CAN_DENY, "person-denies-at-review", false),
    ]);
    expect(denied!.verdict.status).toBe("pass");
    expect(denied!.attributed).toMatchObject([
      { row: REVIEW_UI, status: "warn", checks: { "review-request": false } },
    ]);
  });

  it("a case of the row itself carries its own outcome; nothing is credited without the round trip", () => {
    const [, own] = judgeRuns(register, [
      roundtrip(true),
      run(REVIEW_UI, "reviewer-answers-without-a-model", true),
    ]);
    expect(own!.verdict.status, own!.verdict.reason).toBe("pass");
    expect(own!.credited).toEqual({ "review-request": true });
    expect(own!.attributed).toEqual([]);
    const [, blind] = judgeRuns(register, [
      roundtrip(true),
      run(REVIEW_UI, "reviewer-answers-without-a-model", false),
    ]);
    expect(blind!.credited).toEqual({ "review-request": false });
    for (const r of [
      run(REVIEW_UI, "reviewer-answers-without-a-model", true),
      run(CAN_DENY, "person-denies-at-review", true),
    ]) {
      const [, j] = judgeRuns(register, [roundtrip(false), r]);
      expect(j!.credited).toBeUndefined();
      expect(j!.attributed).toEqual([]);
    }
  });

  it("results.json keeps them with the case results, in the case's cell and in the row they count toward", () => {
    const judged = judgeRuns(register, [
      roundtrip(true),
      run(REVIEW_UI, "reviewer-answers-without-a-model", true),
      run(CAN_DENY, "person-denies-at-review", false),
    ]);
    const meta = { tool: { name: "mcpx-conform", version: "0" }, target: { name: "t" }, seed: 1 };
    const { judgedCases } = recordJudged(judged, tempDir(), meta, undefined);
    const at = (row: string, id: string) =>
      judgedCases.find((j) => j.row === row && j.result.id === id)!.result;
    expect(at(REVIEW_UI, "reviewer-answers-without-a-model").checks).toEqual({ "review-request": true });
    expect(at(REVIEW_UI, `${CAN_DENY}/person-denies-at-review`)).toMatchObject({
      status: "warn",
      checks: { "review-request": false },
    });
    expect(at(CAN_DENY, "person-denies-at-review").checks).toBeUndefined();
    expect(at("sampling-relay-roundtrip", "sampling-relay-roundtrip-case").checks).toBeUndefined();
  });
});
