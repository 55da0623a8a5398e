// Broken: validates the request but not against what its downstream declared, so tools and toolChoice reach
// an answerer that never declared sampling.tools (mcpx gap #210: "tools and includeContext reach a client that
// did not declare sampling.tools or sampling.context"; and an older-era host receives them the same way, §4.5).
import { validateRequest } from "../../../src/validator/index.ts";
import { runBroken } from "./lib/broken.ts";

await runBroken("tools-to-undeclared-client", {
  // The capabilities are left out: the validator then treats them as unknown and skips the capability rules.
  checkRequest: (params, ctx) => validateRequest(params, { era: ctx.era }),
});
