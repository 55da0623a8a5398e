// Broken: reports an unanswered question as the user's rejection (-1 "User rejected sampling request"), so the
// upstream believes a person said no when nobody answered at all.
import { runBroken } from "./lib/broken.ts";

await runBroken("expiry-as-rejection", {
  expired: () => ({ code: -1, message: "User rejected sampling request" }),
});
