// Broken: coerces stopReason to the four values the spec names (endTurn, stopSequence, maxTokens, toolUse),
// turning a provider-specific value into "endTurn", as relays do that model the field as a closed enum. The spec
// says stopReason "is an open string to allow for provider-specific stop reasons".
import { runBroken } from "./lib/broken.ts";

const KNOWN = new Set(["endTurn", "stopSequence", "maxTokens", "toolUse"]);

await runBroken("coerces-stop-reason", {
  rewriteResult: (result) =>
    typeof result.stopReason === "string" && !KNOWN.has(result.stopReason)
      ? { ...result, stopReason: "endTurn" }
      : result,
});
