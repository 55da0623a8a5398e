// Broken: validates every request and result against the 2025-06-18 schema whatever era was negotiated, as relays
// do whose types predate sampling with tools. In 2025-11-25 every legal tool loop (tool_use, tool_result, array
// content, tools, toolChoice) is refused before anyone is asked. The mirror image of newest-era-schema.
import { validateRequest, validateResult } from "../../../src/validator/index.ts";
import { runBroken } from "./lib/broken.ts";

await runBroken("legacy-schema-only", {
  checkRequest: (params) => validateRequest(params, { era: "2025-06-18" }),
  checkResult: (result) => validateResult(result, { era: "2025-06-18", request: undefined }),
});
