/**
 * Each check counts toward its own row: what a review question shows counts toward the rows about what a question
 * shows (sampling-app-review-ui, sampling-app-view-edit-prompts, sampling-app-review-responses), never toward
 * sampling-human-in-loop-can-deny or sampling-client-user-approval-controls, whose rules are about the decision being
 * honoured. A broker that lets a person deny but shows no messages passes can-deny and fails the review rows.
 */
import { describe, expect, it } from "vitest";
import { judgeCase } from "../../src/judge/case.ts";
import { SHOWN_ROWS, shownRowFor } from "../../src/judge/checks/review.ts";
import { judgeRuns } from "../../src/judge/judge-runs.ts";
import type { CaseRun } from "../../src/model/case-run.ts";
import type { Observation } from "../../src/model/evidence.ts";
import { loadCases, loadRegister } from "../../src/model/load.ts";
import type { Era } from "../../src/protocol/eras.ts";
import { caseRun } from "../helpers/case-run.ts";

const register = loadRegister();
const corpus = loadCases(register);
const ERA: Era = "2025-11-25";
const CANARY = "Cnry-review-rows-ÄΩ";

const CAN_DENY = "sampling-human-in-loop-can-deny";
const APPROVAL = "sampling-client-user-approval-controls";
const REVIEW_UI = "sampling-app-review-ui";

function kase(row: string, id: string) {
  const found = corpus.find((c) => c.row === row && c.id === id);
  if (!found) throw new Error(`no case ${row}/${id}`);
  return found;
}

/** The request of a case with its canary. */
function sentOf(row: string, id: string): Record<string, unknown> {
  return JSON.parse(JSON.stringify(kase(row, id).request).replaceAll("{{canary}}", CANARY));
}

/**
 * A broker question in mcpx's manner (targets/broken/broker-shows-schema.yaml): the server's name and the system
 * prompt as its message, the request as a schema with no messages, `{}` to answer with.
 */
function blindQuestion(sent: Record<string, unknown>): Record<string, unknown> {
  return {
    server: { name: "upstream" },
    shown: {},
    show: { systemPrompt: sent.systemPrompt ?? null },
    request: { type: "object", properties: {} },
    resultSkeleton: {},
  };
}

/** The person denies at the broker: nobody else is asked and the upstream gets -1. */
function deniedBlind(sent: Record<string, unknown>): Observation {
  return {
    sent,
    asked: [],
    reviews: [{ stage: "request", question: blindQuestion(sent), decision: { action: "decline" } }],
    upstream: { kind: "error", error: { code: -1, message: "User rejected sampling request" } },
  };
}

function run(row: string, id: string, observation: Observation): CaseRun {
  const k = kase(row, id);
  return caseRun(row, ERA, true, { observation, expect: k.expect, canary: CANARY }, k);
}

describe("the rows a review question's content counts toward", () => {
  it("are the review rows, by stage; every other row's case counts it there", () => {
    expect(SHOWN_ROWS).toEqual({
      request: ["sampling-app-review-ui", "sampling-app-view-edit-prompts"],
      response: ["sampling-app-review-responses"],
    });
    for (const row of [...SHOWN_ROWS.request, ...SHOWN_ROWS.response])
      expect(register.rows.some((r) => r.id === row)).toBe(true);
    expect(shownRowFor("request", { row: REVIEW_UI, side: "client" })).toBeUndefined();
    expect(shownRowFor("request", { row: "sampling-app-view-edit-prompts", side: "client" })).toBeUndefined();
    expect(shownRowFor("request", { row: CAN_DENY, side: "client" })).toEqual({
      row: REVIEW_UI,
      side: "client",
    });
    expect(shownRowFor("request", { row: "sampling-app-review-responses", side: "client" })).toEqual({
      row: REVIEW_UI,
      side: "client",
    });
    expect(shownRowFor("response", { row: APPROVAL, side: "client" })).toEqual({
      row: "sampling-app-review-responses",
      side: "client",
    });
    expect(shownRowFor("request", undefined)).toBeUndefined();
  });
});

describe("a broker that shows no messages but honours a denial", () => {
  const denySent = sentOf(CAN_DENY, "person-denies-at-review");
  const denied = deniedBlind(denySent);

  it("passes sampling-human-in-loop-can-deny: the denial works; what it showed is recorded for sampling-app-review-ui", () => {
    const v = judgeCase({
      expect: kase(CAN_DENY, "person-denies-at-review").expect,
      era: ERA,
      severity: "failure",
      observation: denied,
      canary: CANARY,
      cell: { row: CAN_DENY, side: "client" },
    });
    expect(v.status, v.reason).toBe("pass");
    expect(v.checks.find((c) => c.id === "review-asked")).toEqual({
      id: "review-asked",
      ok: true,
      detail: "the broker put the request to the person answering",
    });
    const shown = v.checks.find((c) => c.id === "review-request")!;
    expect(shown).toMatchObject({ ok: false, level: "info", countsFor: { row: REVIEW_UI, side: "client" } });
    expect(shown.detail).toMatch(
      /^the broker showed the request without every message's text \(not shown: "Delete the repository Cnry-review-rows-ÄΩ" of message 1; messages shown: nothing\); the full request \(shown differs from the request sent: .*\); an answer skeleton the reference validator accepts \(offered \{\}: .*\(counted under sampling-app-review-ui, client side\)$/,
    );
  });

  it("the same question fails in a case of a review row, and the denial without asking anyone fails can-deny", () => {
    const own = judgeCase({
      expect: kase(CAN_DENY, "person-denies-at-review").expect,
      era: ERA,
      severity: "failure",
      observation: denied,
      canary: CANARY,
      cell: { row: REVIEW_UI, side: "client" },
    });
    expect(own.status).toBe("fail");
    expect(own.checks.filter((c) => !c.ok).map((c) => c.id)).toEqual(["review-request"]);
    // A relay that refuses on its own, never putting the question to a person: no human could deny.
    const unasked = judgeCase({
      expect: kase(CAN_DENY, "person-denies-at-review").expect,
      era: ERA,
      severity: "failure",
      observation: { ...denied, reviews: [] },
      canary: CANARY,
      cell: { row: CAN_DENY, side: "client" },
    });
    expect(unasked.status).toBe("fail");
    expect(unasked.reason).toMatch(/^The review surface never showed the request — expected error/);
  });

  it("in a run: can-deny and approval-controls pass, the review rows fail, the question's failure counted under review-ui", () => {
    const approvalSent = sentOf(APPROVAL, "denied-before-the-model");
    const uiSent = sentOf(REVIEW_UI, "review-shows-the-whole-request");
    const model = { role: "assistant", content: { type: "text", text: `Booked. ${CANARY}` }, model: "m" };
    const judged = judgeRuns(register, [
      caseRun("sampling-relay-roundtrip", ERA, true),
      run(CAN_DENY, "person-denies-at-review", denied),
      run(APPROVAL, "denied-before-the-model", deniedBlind(approvalSent)),
      run(REVIEW_UI, "review-shows-the-whole-request", {
        sent: uiSent,
        asked: [uiSent],
        answered: { result: model },
        modelAnswered: { result: model },
        reviews: [
          { stage: "request", question: blindQuestion(uiSent), decision: { action: "approve" } },
          {
            stage: "response",
            question: { ...blindQuestion(uiSent), response: model },
            decision: { action: "approve" },
          },
        ],
        upstream: { kind: "result", result: model },
      }),
    ]);
    const status = (row: string) => judged.find((j) => j.row.id === row)!.verdict.status;
    expect(status(CAN_DENY)).toBe("pass");
    expect(status(APPROVAL)).toBe("pass");
    // sampling-app-review-ui is a SHOULD (a warning row): its own case warns, the question seen elsewhere too.
    expect(status(REVIEW_UI)).toBe("warn");
    const canDeny = judged.find((j) => j.row.id === CAN_DENY)!;
    expect(canDeny.attributed.map(({ row, side, status }) => ({ row, side, status }))).toEqual([
      { row: REVIEW_UI, side: "client", status: "warn" },
    ]);
    expect(canDeny.attributed[0]!.reason).toMatch(
      /^The broker showed the request without every message's text .* \(seen in case sampling-human-in-loop-can-deny\/person-denies-at-review\)$/,
    );
    expect(judged.find((j) => j.row.id === APPROVAL)!.attributed.map((a) => a.row)).toEqual([REVIEW_UI]);
  });
});
