// Broken: sends sampling/createMessage to a downstream client that declared no `sampling` capability, as
// @civic/passthrough-mcp-server does with the SDK's capability assertions switched off
// (passthroughBaseProtocol.js). "Both parties MUST: … Only use capabilities that were successfully negotiated"
// (2025-11-25 basic/lifecycle#operation). Everything else is the reference relay.
import { runBroken } from "./lib/broken.ts";

await runBroken("asks-undeclared-client", { asksUndeclared: true });
