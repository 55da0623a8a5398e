// Broken: strips `_meta` from the request it forwards and from the result it relays, as relays do that rebuild
// messages from the fields they know, treating _meta as their own transport detail. Progress tokens, trace ids
// and provider metadata of the peers are lost.
import { runBroken } from "./lib/broken.ts";

function withoutMeta(value: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _dropped, ...rest } = value;
  return rest;
}

await runBroken("drops-meta", {
  rewriteRequest: withoutMeta,
  rewriteResult: withoutMeta,
});
