// Broken: rebuilds each request from the fields it knows it needs (messages, maxTokens, tools) before asking, as
// relays do that map the request into their own type and back. The system prompt, toolChoice, model preferences,
// includeContext, temperature, stop sequences, metadata and _meta never reach the answerer, so a person reviewing
// the request cannot see what the server asked the model to be, and a model told to use no tool may use one.
import { runBroken } from "./lib/broken.ts";

const KEPT = ["messages", "maxTokens", "tools"];

await runBroken("rebuilds-params", {
  rewriteRequest: (params) => Object.fromEntries(Object.entries(params).filter(([k]) => KEPT.includes(k))),
});
