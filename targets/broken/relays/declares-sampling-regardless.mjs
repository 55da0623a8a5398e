// Broken: declares `sampling` to the upstream whatever its downstream client declared, as FastMCP's proxy does
// (its upstream client always has a sampling handler). The relay in front is the reference relay, which then
// refuses what its answerer cannot answer: the defect is the declaration alone, a capability negotiated for the
// session that nobody behind the relay has ("Client and server capabilities establish which optional protocol
// features will be available during the session", 2025-11-25 basic/lifecycle#capability-negotiation).
import { tapUpstream } from "./lib/upstream-tap.mjs";

tapUpstream({
  up: (m) => {
    if (m.method !== "initialize" || !m.params) return m;
    const capabilities = m.params.capabilities ?? {};
    if (capabilities.sampling) return m;
    return { ...m, params: { ...m.params, capabilities: { ...capabilities, sampling: {} } } };
  },
});
