// Broken: reviews the request but delivers the model's response straight to the server, with no second look
// ("Present generated responses for review before delivery" is not honoured). Everything else is the reference.
import { runBrokenReview } from "./lib/broken-review.ts";

await runBrokenReview("review-skips-response", { reviewResponse: false });
