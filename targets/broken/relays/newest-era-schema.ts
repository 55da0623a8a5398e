// Broken: validates every request and result against the newest legacy era's schema (2025-11-25) whatever era
// was negotiated, as relays built on one SDK type set do. Array content, tool_use and tool_result then pass in
// 2024-11-05 .. 2025-06-18, where SamplingMessage.content is a single block.
import { validateRequest, validateResult } from "../../../src/validator/index.ts";
import { runBroken } from "./lib/broken.ts";

await runBroken("newest-era-schema", {
  checkRequest: (params, ctx) => validateRequest(params, { ...ctx, era: "2025-11-25" }),
  checkResult: (result, ctx) => validateResult(result, { ...ctx, era: "2025-11-25" }),
});
