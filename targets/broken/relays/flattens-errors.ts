// Broken: validates like the reference relay but sends every error upstream as -32603 (mcpx's mcpclient:
// "Every sampling failure is -32603", internal/mcpclient/modern.go Client.answer): an invalid request is not -32602 and the
// user's rejection is not -1, so the upstream cannot tell a refusal from a crash. Messages are kept.
import { REFERENCE_POLICY } from "../../../src/relay/policy.ts";
import { runBroken } from "./lib/broken.ts";

const INTERNAL = -32603;

await runBroken("flattens-errors", {
  refuseRequest: (verdict) => ({ ...REFERENCE_POLICY.refuseRequest(verdict), code: INTERNAL }),
  refuseForDownstream: (verdict, era) => ({
    ...REFERENCE_POLICY.refuseForDownstream(verdict, era),
    code: INTERNAL,
  }),
  refuseResult: (verdict) => ({ ...REFERENCE_POLICY.refuseResult(verdict), code: INTERNAL }),
  relayDownstreamError: (error) => ({ code: INTERNAL, message: error.message }),
});
