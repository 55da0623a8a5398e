// Broken: stamps its own provenance into every result it relays (`_meta["example.org/relayed-by"]`), as relays do
// that want the server to know an answer came through them. The answer the server receives is no longer the one
// the client gave — every delivered result differs, the round trip included.
import { runBroken } from "./lib/broken.ts";

await runBroken("stamps-result-meta", {
  rewriteResult: (result) => {
    const meta =
      result._meta && typeof result._meta === "object" ? (result._meta as Record<string, unknown>) : {};
    return { ...result, _meta: { ...meta, "example.org/relayed-by": "stamps-result-meta" } };
  },
});
