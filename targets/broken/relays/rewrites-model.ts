// Broken: normalises the model name of every result it relays — lower-cased and trimmed — as relays do that use
// the name as a key into a pricing or routing table and send back the key instead of what the client reported
// ("Claude-3.5-Sonnet " becomes "claude-3.5-sonnet"). CreateMessageResult.model is an opaque string: the upstream
// receives a name the answerer never gave. Everything else is the reference relay.
import { runBroken } from "./lib/broken.ts";

await runBroken("rewrites-model", {
  rewriteResult: (result) =>
    typeof result.model === "string" ? { ...result, model: result.model.trim().toLowerCase() } : result,
});
