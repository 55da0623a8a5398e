// Broken: repairs a result instead of refusing it. A result without role or model gets role "assistant" and
// model "unknown" (mcpx's daemon, internal/daemon/hooks.go sampleViaBroker),
// so the upstream receives an answer the client never gave. Everything else is the reference relay.
import { validateResult } from "../../../src/validator/index.ts";
import { runBroken } from "./lib/broken.ts";

function filled(result: unknown): unknown {
  if (!result || typeof result !== "object" || Array.isArray(result)) return result;
  const out = { ...(result as Record<string, unknown>) };
  if (!("role" in out)) out.role = "assistant";
  if (!("model" in out)) out.model = "unknown";
  return out;
}

await runBroken("fills-role-model", {
  checkResult: (result, ctx) => validateResult(filled(result), ctx),
  rewriteResult: (result) => filled(result) as Record<string, unknown>,
});
