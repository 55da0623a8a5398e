// Broken: declares no client capabilities to the upstream — initialize goes out with `capabilities: {}`, as from
// an SDK Client constructed without them — yet relays the sampling requests the upstream sends anyway. The
// upstream was never told sampling (or sampling.tools) is supported ("Clients that support sampling MUST declare
// the sampling capability during initialization").
import { tapUpstream } from "./lib/upstream-tap.mjs";

tapUpstream({
  up: (m) =>
    m.method === "initialize" && m.params ? { ...m, params: { ...m.params, capabilities: {} } } : m,
});
