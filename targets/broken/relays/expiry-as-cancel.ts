// Broken: reports expiry with the right code (-32603) but a message that does not name it: mcpx's daemon
// says "the sampling request was cancel" for a cancel and for an expiry alike (mcpx internal/daemon/hooks.go sampleViaBroker
// step 3), so the upstream cannot tell a timeout from a cancellation.
import { runBroken } from "./lib/broken.ts";

await runBroken("expiry-as-cancel", {
  expired: () => ({ code: -32603, message: "the sampling request was cancel" }),
});
