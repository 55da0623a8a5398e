// Broken: takes "structuredContent SHOULD conform to the tool's outputSchema" as advice for someone else. It
// validates every request as the reference relay does but never acts on the outputSchema finding, so a
// tool_result whose structuredContent lacks a required property or has the wrong type reaches the answerer — as
// relays do that check a request's shape and pairing but never read the tools' outputSchemas.
import { validateRequest } from "../../../src/validator/index.ts";
import { runBroken } from "./lib/broken.ts";

await runBroken("structured-content-unchecked", {
  checkRequest: (params, ctx) => validateRequest(params, ctx),
});
