// Broken review: asks the model while the request is still under review (speculatively, to have the response
// ready), so the model sees — and spends tokens on — a request the person then denies. The denial still reaches
// the upstream; the "human in the loop" came after the model.
import { runBrokenReview } from "./lib/broken-review.ts";

await runBrokenReview("review-model-first", { askModelFirst: true });
