// Broken: opens the question first and validates afterwards. The answerer is shown a malformed (possibly
// hostile) request; only once the answer is back does the relay check the request — with the same rules and
// capabilities as the reference relay — and refuse it with the right code. The upstream sees the same error as
// from the reference relay; only the answerer's side differs.
import type { SamplingCapabilities } from "../../../src/validator/index.ts";
import { validateRequest, validateResult } from "../../../src/validator/index.ts";
import { runBroken } from "./lib/broken.ts";

/** The capabilities each request was received under, so the late check is the reference relay's check. */
const receivedUnder = new WeakMap<object, SamplingCapabilities>();

await runBroken("asks-before-validating", {
  checkRequest: (params, ctx) => {
    if (params && typeof params === "object") receivedUnder.set(params, ctx.capabilities);
    return null;
  },
  refuseResult: (verdict) => ({
    code: verdict.code ?? -32603,
    message: `Invalid sampling ${verdict.errors[0]?.rule.startsWith("result.") ? "result" : "request"}: ${verdict.errors[0]?.message ?? "invalid"}`,
  }),
  checkResult: (result, ctx) => {
    const capabilities =
      ctx.request && typeof ctx.request === "object" ? receivedUnder.get(ctx.request) : undefined;
    const request = validateRequest(ctx.request, { era: ctx.era, ...(capabilities ? { capabilities } : {}) });
    return request.legal ? validateResult(result, ctx) : request;
  },
});
