// Broken: checks the tool_use/tool_result pairing the way the TypeScript SDK's Server.createMessage does — only
// the last message against the one before it — so an unanswered tool_use (or a stray tool_result) earlier in the
// history reaches the answerer. Every other rule of the reference validator still applies.
import { validateRequest } from "../../../src/validator/index.ts";
import type { Finding } from "../../../src/validator/types.ts";
import { runBroken, verdictOf } from "./lib/broken.ts";

const TOOL_LOOP_RULES = new Set([
  "message.tool-result-only",
  "message.tool-result-missing",
  "message.tool-result-unmatched",
  "message.duplicate-tool-id",
]);

const blocks = (m: any): any[] =>
  m === undefined ? [] : Array.isArray(m?.content) ? m.content : [m?.content];

/** @modelcontextprotocol/sdk 1.32.2 dist/esm/server/index.js createMessage, "Message structure validation". */
function sdkLastPairProblem(messages: unknown): string | null {
  if (!Array.isArray(messages) || messages.length === 0) return null;
  const last = blocks(messages[messages.length - 1]);
  const previous = blocks(messages.length > 1 ? messages[messages.length - 2] : undefined);
  const hasToolResults = last.some((c) => c?.type === "tool_result");
  const hasPreviousToolUse = previous.some((c) => c?.type === "tool_use");
  if (hasToolResults) {
    if (last.some((c) => c?.type !== "tool_result"))
      return "The last message must contain only tool_result content if any is present";
    if (!hasPreviousToolUse)
      return "tool_result blocks are not matching any tool_use from the previous message";
  }
  if (hasPreviousToolUse) {
    const uses = new Set(previous.filter((c) => c?.type === "tool_use").map((c) => c.id));
    const results = new Set(last.filter((c) => c?.type === "tool_result").map((c) => c.toolUseId));
    if (uses.size !== results.size || ![...uses].every((id) => results.has(id))) {
      return "ids of tool_result blocks and tool_use blocks from previous message do not match";
    }
  }
  return null;
}

await runBroken("pairing-last-two-only", {
  checkRequest: (params, ctx) => {
    const full = validateRequest(params, ctx);
    const errors: Finding[] = full.errors.filter((f) => !TOOL_LOOP_RULES.has(f.rule));
    const problem = sdkLastPairProblem((params as { messages?: unknown } | null)?.messages);
    if (problem) {
      errors.push({
        rule: "message.tool-result-missing",
        pointer: "/messages",
        level: "MUST",
        message: problem,
        code: -32602,
        source: "sdk",
      });
    }
    return verdictOf(errors, full.warnings);
  },
});
