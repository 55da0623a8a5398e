// Broken: answers the upstream with another request's result. It caches the first result it relays (a
// "response cache" keyed on nothing, or on the method only) and returns it for every later request, so each
// upstream request after the first receives an answer to a different question.
import { runBroken } from "./lib/broken.ts";

let first: Record<string, unknown> | undefined;

await runBroken("replays-first-result", {
  rewriteResult: (result) => {
    first ??= result;
    return first;
  },
});
