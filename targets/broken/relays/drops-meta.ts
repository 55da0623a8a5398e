// Broken: strips every `_meta` — of the request params, of each message and content block, of the result — from
// what it forwards and relays, as relays do that rebuild messages from the fields they know and treat _meta as
// their own transport detail. Progress tokens, trace ids, provider metadata and the tool_use/tool_result _meta
// the spec asks clients to preserve are lost.
import { runBroken } from "./lib/broken.ts";

function withoutMeta(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMeta);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== "_meta") out[k] = withoutMeta(v);
  return out;
}

await runBroken("drops-meta", {
  rewriteRequest: (params) => withoutMeta(params) as Record<string, unknown>,
  rewriteResult: (result) => withoutMeta(result) as Record<string, unknown>,
});
