/**
 * The rows a check counts toward whatever case it was judged in (the first is where it is counted when the case's
 * own row is none of them), and whether it is credited there when it holds (`credited`: results.json keeps its
 * outcome with the case result that carries it, so a tracking bullet can rest on it; otherwise only a failure is
 * recorded there). A check without `counts` counts toward the case's own row; validator findings count toward the
 * row of the rule they break (src/judge/attribution.ts).
 */
export interface CheckCounts {
  rows: readonly [string, ...string[]];
  side: "client" | "server";
  credited?: true;
}

/**
 * The catalogue of check ids: every check the judge records names one of these, with what it proves, the rule it
 * rests on and, when that is a fixed row, the rows it counts toward (`counts`). One id for pass and fail, so a reader
 * can grep an id from a report to the code and to this line. The judge types its checks with it and takes their rows
 * from it, matrix.html shows `proves` on each check, docs/architecture.md links here.
 */
export const CHECK_CATALOGUE = {
  "upstream-got-result": {
    proves: "the upstream received a result for its request",
    rule: "case expectation: delivered",
  },
  "answerer-answered": {
    proves: "the answerer was asked and answered with a result",
    rule: "case expectation: delivered",
  },
  "request-unchanged": {
    proves: "the request reached the answerer deep-equal where the case's rule is about it (unchanged:)",
    rule: "sampling-relay-content-unchanged and the case's own row",
  },
  "result-unchanged": {
    proves: "the result reached the upstream deep-equal where the case's rule is about it (unchanged:)",
    rule: "sampling-relay-content-unchanged and the case's own row",
  },
  "request-identified": {
    proves:
      "the request the answerer received is this case's: it carries verbatim a text of the sent request that holds the case's canary (identity, whatever else changed)",
    rule: "the case's own row (identified:), e.g. sampling-relay-unrelated-requests",
  },
  "result-identified": {
    proves:
      "the result the upstream received is the answerer's: it carries verbatim a text of the answer that holds the case's canary (not a decoy, a stand-in or another session's)",
    rule: "the case's own row (identified:), e.g. sampling-relay-answers-only-the-asker",
  },
  "review-request-unchanged": {
    proves: "the review surface showed the request the upstream sent",
    rule: "sampling-app-review-ui",
  },
  "upstream-got-error": { proves: "the upstream received a JSON-RPC error", rule: "case expectation: error" },
  "error-code": {
    proves: "the error code is one the rule assigns",
    rule: "the case's row (codes are normative)",
  },
  "error-message": {
    proves: "the message reads as the case expected (advisory: wording is not normative)",
    rule: "none (advisory)",
  },
  "error-message-means-expiry": {
    proves: "the message names expiry, by meaning (src/judge/meanings.ts)",
    rule: "sampling-relay-expiry-reported",
  },
  "error-message-not-stacked": {
    proves: "the message carries at most one error-code prefix",
    rule: "sampling-relay-error-not-stacked",
  },
  "upstream-withheld": {
    proves: "2026-07-28: the upstream got no response for the input",
    rule: "sampling-mrtr-no-per-input-error",
  },
  "call-error": {
    proves:
      "the relay answered the answerer's own call with the error the rule assigns (its code and data members)",
    rule: "sampling-mrtr-server-missing-capability-error",
  },
  "answerer-asked": { proves: "the answerer (or the reviewer) was asked", rule: "case expectation: asked" },
  "answerer-not-asked": {
    proves: "nobody on the answering side was asked about a request that had to be refused first",
    rule: "sampling-relay-validate-before-asking",
  },
  "review-asked": {
    proves:
      "the review surface (or broker) put the stage the case names (request, response) to the person at all",
    rule: "the case's own row (e.g. sampling-human-in-loop-can-deny: a person never asked cannot deny)",
  },
  "review-request": {
    proves:
      "the review surface (or broker) showed the request with the server, system prompt, every message's text, the full request and an answer skeleton the validator accepts",
    rule: "sampling-app-review-ui (or sampling-app-view-edit-prompts in its own cases), from whichever case it was seen in",
    counts: {
      rows: ["sampling-app-review-ui", "sampling-app-view-edit-prompts"],
      side: "client",
      credited: true,
    },
  },
  "review-response": {
    proves: "the review surface showed the model's response unchanged before delivery",
    rule: "sampling-app-review-responses, from whichever case it was seen in",
    counts: { rows: ["sampling-app-review-responses"], side: "client", credited: true },
  },
  "model-asked": {
    proves: "the model downstream was (not) asked, as the review decision demands",
    rule: "sampling-client-user-approval-controls",
  },
  "model-got-edit": {
    proves: "the model was asked with exactly the reviewer's edited request",
    rule: "sampling-app-view-edit-prompts",
  },
  "asked-without": { proves: "the answerer never saw a field it must not receive", rule: "the case's row" },
  "dropped-field": {
    proves:
      "the answerer received a field it did not declare support for only dropped or set to a value the rule allows",
    rule: "the case's row (e.g. sampling-server-includecontext-only-with-context-capability)",
  },
  "asked-after-initialized": {
    proves:
      "the relay sent no sampling request to the answerer before the answerer's notifications/initialized (it held it back)",
    rule: "sampling-server-not-before-initialized",
  },
  "declared-upstream": {
    proves: "the relay declared (or did not declare) a capability to the upstream",
    rule: "the capability-declaration rows",
  },
  "no-cross-talk": {
    proves: "every request the answerer saw came from this case",
    rule: "sampling-relay-answers-only-the-asker",
  },
  "asked-once": {
    proves: "one request opened at most one question on each side",
    rule: "sampling-human-in-loop-can-deny",
  },
  "only-the-asker-asked": {
    proves:
      "no other downstream session received the sampling request (2026-07-28, two askers: each session was asked its own request only)",
    rule: "sampling-relay-answers-only-the-asker",
  },
  "answer-to-its-own-call": {
    proves:
      "2026-07-28, two sessions calling at once: each upstream call's retry carried only its own session's answer, under the requestState issued for that call",
    rule: "sampling-relay-answers-only-the-asker",
  },
  "expiry-in-time": {
    proves: "expiry was reported within the declared answerTimeoutMs plus slack",
    rule: "sampling-relay-expiry-reported",
  },
  "valid-request-delivered": {
    proves: "every request the answerer received is legal for its era and declared capabilities",
    rule: "the row of the validator rule broken (src/judge/attribution.ts)",
  },
  "valid-result-delivered": {
    proves: "every result the upstream received is legal for its era and request",
    rule: "the row of the validator rule broken (src/judge/attribution.ts)",
  },
  "mrtr-retry-new-id": {
    proves: "2026-07-28: the retry reached the upstream with a new JSON-RPC id",
    rule: "sampling-mrtr-retry-new-id",
    counts: { rows: ["sampling-mrtr-retry-new-id"], side: "client" },
  },
  "mrtr-request-state-echoed": {
    proves: "2026-07-28: the retry echoed requestState exactly (and invented none when none was given)",
    rule: "sampling-mrtr-request-state-echoed",
    counts: { rows: ["sampling-mrtr-request-state-echoed"], side: "client" },
  },
  "mrtr-retry-arguments-unchanged": {
    proves: "2026-07-28: the retry kept the original call's arguments",
    rule: "sampling-mrtr-carried-in-input-requests",
    counts: { rows: ["sampling-mrtr-retry-new-id"], side: "client" },
  },
  "not-retained": {
    proves:
      "two separate sampling requests in a row: the later one reached the answerer without the earlier one's messages",
    rule: "sampling-messages-not-retained-between-requests",
  },
  "burst-limited": {
    proves:
      "a burst of sampling requests at once: some reached the answerer, the excess was refused (legacy: an error; 2026-07-28: withheld) without asking it",
    rule: "sampling-client-rate-limit",
  },
  "loop-refused": {
    proves:
      "an endless tool loop was cut within the case's bound: the upstream got an error (2026-07-28: no response for the input)",
    rule: "sampling-both-iteration-limits-tool-loops",
  },
  "loop-not-asked": {
    proves:
      "an endless tool loop was cut within the case's bound: the answerer was not asked about the round cut",
    rule: "sampling-both-iteration-limits-tool-loops",
  },
  "input-keys-own-answer": {
    proves:
      "2026-07-28: several sampling inputRequests at once; each key's answer reached the upstream under that key (no swap, no overwrite)",
    rule: "sampling-mrtr-input-request-keys-unique",
  },
  "relied-check-ran": {
    proves: "every check the case names as its rule's evidence was evaluated on this exchange",
    rule: "the case's own row",
  },
  prerequisite: {
    proves: "the era's round trip passed, so this case's verdict counts",
    rule: "sampling-relay-roundtrip",
  },
  "fuzz-request-fidelity": {
    proves: "fuzzing: a legal generated request reached the answerer deep-equal",
    rule: "sampling-relay-content-unchanged",
  },
  "fuzz-result-fidelity": {
    proves: "fuzzing: a legal generated result reached the upstream deep-equal",
    rule: "sampling-relay-content-unchanged",
  },
  "upstream-response-id-paired": {
    proves:
      "the response to the upstream's sampling request came back under that request's JSON-RPC id, value and type unchanged (a large integer, a string shaped like a relay's own ids, unicode)",
    rule: "sampling-relay-answers-only-the-asker (JSON-RPC 2.0 §5: the response's id MUST be the same as the request's)",
  },
  "fuzz-response-id-unchanged": {
    proves: "fuzzing: the response reached the upstream under its request's JSON-RPC id, type included",
    rule: "sampling-relay-roundtrip",
  },
} as const satisfies Record<string, { proves: string; rule: string; counts?: CheckCounts }>;

export type CheckId = keyof typeof CHECK_CATALOGUE;

export const isCheckId = (id: string): id is CheckId => Object.hasOwn(CHECK_CATALOGUE, id);

/** The fixed rows a check counts toward (CheckCounts), or undefined: the case's own row. */
export function countsOf(id: CheckId): CheckCounts | undefined {
  const entry = CHECK_CATALOGUE[id];
  return "counts" in entry ? entry.counts : undefined;
}

/**
 * Checks credited toward their row from whichever case they were judged in, held or not (what a review question
 * showed, src/judge/review-shown.ts): results.json keeps their outcome with the case result that carries them
 * (`checks`), so a tracking bullet can rest on them (`checks:` in matrix/tracking/).
 */
export const CREDITED_CHECKS: readonly CheckId[] = (Object.keys(CHECK_CATALOGUE) as CheckId[]).filter(
  (id) => countsOf(id)?.credited === true,
);
