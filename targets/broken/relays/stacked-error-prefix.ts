// Broken: wraps the downstream's error in a new McpError built from the caught one's message, which already
// carries the SDK's "MCP error <code>: " prefix; the constructor adds another. The upstream receives
// "MCP error -1: MCP error -1: User rejected …" (and its own SDK shows a third). The code is kept.
import { runBroken } from "./lib/broken.ts";

const sdkPrefixed = (code: number, message: string) => `MCP error ${code}: ${message}`;

await runBroken("stacked-error-prefix", {
  relayDownstreamError: (error) => ({
    ...error,
    message: sdkPrefixed(error.code, sdkPrefixed(error.code, error.message)),
  }),
});
