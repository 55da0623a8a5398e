// Broken: checks structuredContent against its tool's outputSchema only in the last message of the history (the
// tool results the request is about to be answered on), so a non-conforming result of an earlier round reaches
// the answerer. Everything else is the reference relay.
import { refusalVerdict, validateRequest } from "../../../src/validator/index.ts";
import { runBroken, verdictOf } from "./lib/broken.ts";

const RULE = "message.structured-content-schema";

await runBroken("structured-content-last-message-only", {
  checkRequest: (params, ctx) => {
    const full = validateRequest(params, ctx);
    const messages = (params as { messages?: unknown } | null)?.messages;
    const last = `/messages/${Array.isArray(messages) ? messages.length - 1 : -1}/`;
    const earlier = full.warnings.filter((f) => f.rule === RULE && !f.pointer.startsWith(last));
    return refusalVerdict(
      verdictOf(
        full.errors,
        full.warnings.filter((f) => !earlier.includes(f)),
      ),
    );
  },
});
