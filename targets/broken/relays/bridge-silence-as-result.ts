// Broken bridge (2026-07-28 downstream, legacy upstream): "a legacy server must get a response", so when the
// 2026-07-28 client never retries (it declined, or nobody answered) the relay answers the upstream's
// sampling/createMessage with an empty assistant message when its deadline passes, instead of an error.
import { runBroken } from "./lib/broken.ts";

await runBroken("bridge-silence-as-result", {
  silenceUpstream: () => ({
    result: { role: "assistant", content: { type: "text", text: "" }, model: "none", stopReason: "endTurn" },
  }),
});
