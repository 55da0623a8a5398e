// Broken: opens the question first and validates afterwards. The answerer is shown a malformed (possibly
// hostile) request; only once the answer is back does the relay check the request and refuse it, with the
// right code. The upstream sees the same error as from the reference relay — only the answerer's side differs.
import { validateRequest, validateResult } from "../../../src/validator/index.ts";
import { runBroken } from "./lib/broken.ts";

await runBroken("asks-before-validating", {
  checkRequest: () => null,
  refuseResult: (verdict) => ({
    code: verdict.code ?? -32603,
    message: `Invalid sampling ${verdict.errors[0]?.rule.startsWith("result.") ? "result" : "request"}: ${verdict.errors[0]?.message ?? "invalid"}`,
  }),
  checkResult: (result, ctx) => {
    const request = validateRequest(ctx.request, { era: ctx.era });
    return request.legal ? validateResult(result, ctx) : request;
  },
});
