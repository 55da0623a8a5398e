// Broken (2026-07-28): treats the retry as the continuation of the original request and sends it upstream
// under the original request's JSON-RPC id ("Each retry MUST use a new id"), mapping the answer back.
import { isInputRequired, isRetry, tapUpstream } from "./lib/upstream-tap.mjs";

/** id of the request that got input_required, by method + the call's name/arguments. */
const originals = new Map();
const callKey = (m) =>
  JSON.stringify([m.method, m.params?.name ?? m.params?.uri ?? null, m.params?.arguments ?? null]);
/** upstream id now in use → the relay's own id for the retry. */
const renamed = new Map();
/** relay id → call key, for requests in flight. */
const inFlight = new Map();

tapUpstream({
  up: (m) => {
    if (m.id !== undefined && typeof m.method === "string") inFlight.set(m.id, callKey(m));
    if (!isRetry(m)) return m;
    const original = originals.get(callKey(m));
    if (original === undefined) return m;
    renamed.set(original, m.id);
    return { ...m, id: original };
  },
  down: (m) => {
    if (m.id === undefined || m.method !== undefined) return m;
    let out = m;
    if (renamed.has(m.id)) {
      out = { ...m, id: renamed.get(m.id) };
      renamed.delete(m.id);
    }
    if (isInputRequired(m) && !renamed.has(m.id)) {
      const key = inFlight.get(m.id);
      if (key !== undefined) originals.set(key, m.id);
    }
    return out;
  },
});
