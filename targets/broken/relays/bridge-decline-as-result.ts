// Broken bridge (legacy downstream, 2026-07-28 upstream): "the retry must answer every key", so a question the
// legacy answerer declined (-1), failed or let expire goes up as an empty assistant message under its key. The
// 2026-07-28 server receives a completion nobody gave instead of an absent input.
import { runBroken } from "./lib/broken.ts";

await runBroken("bridge-decline-as-result", {
  inputForUnanswered: () => ({
    role: "assistant",
    content: { type: "text", text: "" },
    model: "none",
    stopReason: "endTurn",
  }),
});
