// Broken: turns the downstream's refusal into an empty "completion". When the answerer declines (or answers
// with any error), the upstream receives a CreateMessageResult with empty text, as relays do that believe
// "sampling has no decline shape" and must always return a result (compare mcpx internal/daemon/server.go and internal/mcpserver/ask.go: a modern
// host's {"action":"decline"} is accepted as the result). The denial never reaches the server that asked.
import { runBroken } from "./lib/broken.ts";

await runBroken("decline-as-result", {
  relayDownstreamError: () => ({
    result: { role: "assistant", content: { type: "text", text: "" }, model: "none", stopReason: "endTurn" },
  }),
});
