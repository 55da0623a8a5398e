import { check, family, recorded } from "./check.ts";

/**
 * The fuzzer's own checks, recorded by src/fuzz/differential.ts on a generated exchange where the relay disagreed
 * with the reference validator's verdict (the fuzzer computes them from its oracle and the wire's id pairing).
 */
const REQUEST_FIDELITY = check({
  id: "fuzz-request-fidelity",
  proves: "fuzzing: a legal generated request reached the answerer deep-equal",
  rule: "sampling-relay-content-unchanged",
});
const RESULT_FIDELITY = check({
  id: "fuzz-result-fidelity",
  proves: "fuzzing: a legal generated result reached the upstream deep-equal",
  rule: "sampling-relay-content-unchanged",
});
const RESPONSE_ID = check({
  id: "fuzz-response-id-unchanged",
  proves: "fuzzing: the response reached the upstream under its request's JSON-RPC id, type included",
  rule: "sampling-relay-roundtrip",
});

export const FUZZ = family({ checks: [REQUEST_FIDELITY, RESULT_FIDELITY, RESPONSE_ID] });

/** A legal generated document that did not reach the other end deep-equal (`detail`: how it differs). */
export const fidelityBroken = (document: "request" | "result", detail: string) =>
  recorded(document === "request" ? REQUEST_FIDELITY : RESULT_FIDELITY, { ok: false, detail });

/** A response that came back under another id than its request's. */
export const responseIdChanged = (detail: string) => recorded(RESPONSE_ID, { ok: false, detail });
