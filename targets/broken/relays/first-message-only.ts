// Broken: validates only the first message. Role, content and block types are checked on messages[0] (with every
// params-level rule: maxTokens, tools, …), and the rest of the history reaches the answerer unchecked — as relays
// do that validate "the prompt" (messages[0], or the one message their UI shows) and treat the rest as context to
// pass along. A role "system", a missing content or a malformed image in messages[2] or in the last message gets
// through. Everything else is the reference relay.
import { validateRequest } from "../../../src/validator/index.ts";
import { runBroken } from "./lib/broken.ts";

function firstMessageOnly(params: unknown): unknown {
  if (!params || typeof params !== "object" || Array.isArray(params)) return params;
  const p = params as Record<string, unknown>;
  return Array.isArray(p.messages) ? { ...p, messages: p.messages.slice(0, 1) } : p;
}

await runBroken("first-message-only", {
  checkRequest: (params, ctx) => validateRequest(firstMessageOnly(params), ctx),
});
