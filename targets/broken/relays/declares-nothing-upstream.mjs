// Broken: declares no client capabilities to the upstream — initialize goes out with `capabilities: {}` (and in
// 2026-07-28 each request's _meta clientCapabilities is {}), as from an SDK Client constructed without them —
// yet relays the sampling requests the upstream sends anyway. The upstream was never told sampling (or
// sampling.tools) is supported ("Clients that support sampling MUST declare the sampling capability").
import { tapUpstream } from "./lib/upstream-tap.mjs";

const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

tapUpstream({
  up: (m) => {
    if (m.method === "initialize" && m.params) return { ...m, params: { ...m.params, capabilities: {} } };
    const meta = m.params?._meta;
    if (typeof m.method === "string" && meta && typeof meta === "object" && CLIENT_CAPABILITIES in meta) {
      return { ...m, params: { ...m.params, _meta: { ...meta, [CLIENT_CAPABILITIES]: {} } } };
    }
    return m;
  },
});
