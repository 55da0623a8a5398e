// Broken review: accepts whatever the reviewer edits the prompt into and sends it to the model unchecked — an
// edit that drops maxTokens reaches the model as an illegal request, where the reference relay refuses the edit
// and keeps the question open. Everything else is the reference relay with review.
import { runBrokenReview } from "./lib/broken-review.ts";

await runBrokenReview("review-unchecked-edit", { checkEdits: false });
