// Broken: drops a sampling request the upstream sends while no request of the relay's is pending, so the upstream
// waits for an answer that never comes. supergateway --stateful routes a server request to the session's oldest
// pending client request, else to the standalone GET stream, and drops it when neither exists
// (dist/gateways/stdioToStatefulStreamableHttp.js); this tap drops it whenever no call is pending, GET stream or
// not. The relay in front is the reference relay, so that is the one defect.
import { tapUpstream } from "./lib/upstream-tap.mjs";

/** Ids (as JSON) of the relay's requests the upstream has not answered yet. */
const pending = new Set();

tapUpstream({
  up: (m) => {
    if (typeof m.method === "string" && m.id !== undefined) pending.add(JSON.stringify(m.id));
    return m;
  },
  down: (m) => {
    if (m.method === undefined && m.id !== undefined) pending.delete(JSON.stringify(m.id));
    if (m.method === "sampling/createMessage" && pending.size === 0) return undefined;
    return m;
  },
});
