// Broken: validates the request for the upstream's era only and never asks whether its downstream's (older) era
// can carry it, so array content (and tool blocks) reach a 2025-06-18 answerer (mcpx: "Sampling is never
// downgraded: array content, tools and toolChoice reach a 2025-06-18 host unchanged", internal/mcpserver/ask.go).
import { runBroken } from "./lib/broken.ts";

await runBroken("ignores-downstream-era", {
  checkDownstreamCarries: () => null,
});
