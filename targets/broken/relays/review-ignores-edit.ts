// Broken: accepts the reviewer's edit of the prompt but sends the server's original request to the model, so
// "view and edit prompts before sending" is theatre. Everything else is the reference relay with review.
import { runBrokenReview } from "./lib/broken-review.ts";

await runBrokenReview("review-ignores-edit", { applyEdit: false });
