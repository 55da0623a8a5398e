import { describeDifferences, differences } from "../json-diff.ts";
import { check, family } from "./check.ts";
import { requestEdit } from "./observed.ts";

/**
 * The review decision honoured (`modelAsked:`, `modelGotEdit:`): the model downstream was asked only after an
 * approval, and with exactly the request the reviewer approved.
 */
export const APPROVAL = family({
  checks: [
    check({
      id: "model-asked",
      proves: "the model downstream was (not) asked, as the review decision demands",
      rule: "sampling-client-user-approval-controls",
      judge: ({ e, o }) => {
        if (e.modelAsked === undefined) return [];
        const n = o.asked.length;
        return [
          {
            ok: n > 0 === e.modelAsked,
            detail:
              n > 0
                ? `the model downstream was asked (${n}×)${e.modelAsked ? "" : ", though the reviewer had not approved"}`
                : `the model downstream was never asked${e.modelAsked ? ", though it should have been" : ""}`,
          },
        ];
      },
    }),
    check({
      id: "model-got-edit",
      proves: "the model was asked with exactly the reviewer's edited request",
      rule: "sampling-app-view-edit-prompts",
      judge: ({ e, o }) => {
        if (!e.modelGotEdit) return [];
        const edit = requestEdit(o);
        const diffs = edit !== undefined && o.asked.length > 0 ? differences(edit, o.asked[0]) : [];
        const ok = edit !== undefined && o.asked.length > 0 && diffs.length === 0;
        return [
          {
            ok,
            detail: ok
              ? "the model was asked with the reviewer's edited request"
              : edit === undefined
                ? "the reviewer made no edit (the case must script one)"
                : o.asked.length === 0
                  ? "the model was never asked after the reviewer's edit"
                  : `the model was asked with a request other than the reviewer's edit: ${describeDifferences(diffs, { sent: "edited", received: "asked" })}`,
          },
        ];
      },
    }),
  ],
});
