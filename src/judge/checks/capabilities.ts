import type { Expectation } from "../../model/case.ts";
import type { Observation } from "../../model/evidence.ts";
import { hasPointer } from "../json-diff.ts";
import { check, family, type Outcome } from "./check.ts";
import { clip } from "./observed.ts";

/**
 * Capabilities: what the answerer must not have been shown (`askedWithout:`), what the relay must (not) have declared
 * upstream (`declaredUpstream:`), and the relay's own answer to an answerer's call it cannot serve (`callError:`).
 */

/** The relay's own answer to the answerer's probe call: an error with the rule's code and data members. */
function callError(expected: NonNullable<Expectation["callError"]>, o: Observation): Outcome {
  const response = o.callResponse as { error?: { code?: unknown; data?: unknown } } | undefined;
  const error = response?.error;
  const missing = (expected.dataHas ?? []).filter(
    (p) => error?.data === undefined || !hasPointer(error.data, p),
  );
  const ok = error?.code === expected.code && missing.length === 0;
  const got =
    response === undefined
      ? "no response to its call"
      : error === undefined
        ? "a result, not an error"
        : `error ${String(error.code)}${error.data === undefined ? " without data" : ` with data ${clip(JSON.stringify(error.data))}`}`;
  return {
    ok,
    detail: ok
      ? `the answerer's call was answered with error ${expected.code}, data naming ${(expected.dataHas ?? []).join(", ") || "nothing required"}`
      : `the answerer's call got ${got}; expected error ${expected.code}${missing.length ? ` with ${missing.join(", ")} in its data` : ""}`,
  };
}

export const CAPABILITIES = family({
  checks: [
    check({
      id: "asked-without",
      proves: "the answerer never saw a field it must not receive",
      rule: "the case's row",
      judge: ({ e, o }) =>
        (e.askedWithout ?? []).map((pointer) => {
          const leaked = o.asked.filter((a) => hasPointer(a, pointer)).length;
          return {
            ok: leaked === 0,
            detail:
              leaked === 0
                ? `the answerer was never shown ${pointer}`
                : `the answerer was shown ${pointer} (${leaked}×), which it must not receive`,
          };
        }),
    }),
    check({
      id: "declared-upstream",
      proves: "the relay declared (or did not declare) a capability to the upstream",
      rule: "the capability-declaration rows",
      judge: ({ e, o }) =>
        Object.entries(e.declaredUpstream ?? {}).map(([pointer, present]) => {
          const declared = o.declared !== undefined && hasPointer(o.declared, pointer);
          return {
            ok: declared === present,
            detail:
              o.declared === undefined
                ? `the relay declared no capabilities to the upstream (expected ${pointer} ${present ? "present" : "absent"})`
                : `the relay ${declared ? "declared" : "did not declare"} ${pointer} to the upstream${declared === present ? "" : ` (expected ${present ? "present" : "absent"})`}`,
          };
        }),
    }),
    check({
      id: "call-error",
      proves:
        "the relay answered the answerer's own call with the error the rule assigns (its code and data members)",
      rule: "sampling-mrtr-server-missing-capability-error",
      judge: ({ e, o }) => (e.callError ? [callError(e.callError, o)] : []),
    }),
  ],
});
