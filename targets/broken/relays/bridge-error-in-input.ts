// Broken bridge (legacy downstream, 2026-07-28 upstream): carries the legacy error over as it was, inventing an
// error object for the input: inputResponses[key] = {error: {code, message}}. 2026-07-28 has no error shape for
// an input (InputResponse admits results only); the server gets a malformed answer instead of an absent input.
import { runBroken } from "./lib/broken.ts";

await runBroken("bridge-error-in-input", {
  inputForUnanswered: (error) => ({ error: { code: error.code, message: error.message } }),
});
