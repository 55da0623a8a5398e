// Broken: the review question shows only the last message and no system prompt (like mcpx's renderQuestion,
// which prints nothing of a sampling request's messages: internal/cli/elicit.go renderQuestion), so the reviewer approves blind.
import { runBrokenReview } from "./lib/broken-review.ts";

await runBrokenReview("review-hides-prompt", {
  present: (request) => {
    const messages = Array.isArray(request.messages) ? request.messages : [];
    const { systemPrompt: _hidden, ...rest } = request;
    return { ...rest, messages: messages.slice(-1) };
  },
});
