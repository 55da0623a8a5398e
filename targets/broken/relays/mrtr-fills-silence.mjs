// Broken (2026-07-28): never leaves the upstream waiting. When no answer to a sampling input comes back within
// its short deadline (the person declined, the answerer failed, nobody answered — in this era all three are
// silence, and a slow answer looks the same until it arrives), the relay retries upstream itself with an empty
// assistant message under the input's key, so the server receives a "completion" nobody gave.
import { isInputRequired, isRetry, tapUpstream } from "./lib/upstream-tap.mjs";

const DEADLINE_MS = 250;
const PLACEHOLDER = {
  role: "assistant",
  content: { type: "text", text: "" },
  model: "none",
  stopReason: "endTurn",
};
const callKey = (m) =>
  JSON.stringify([m.method, m.params?.name ?? m.params?.uri ?? null, m.params?.arguments ?? null]);

/** relay id → the request, while in flight */
const inFlight = new Map();
/** call key → timer of an input_required round nobody has answered yet */
const waiting = new Map();
let ownIds = 0;

tapUpstream({
  up: (m) => {
    if (m.id !== undefined && typeof m.method === "string") inFlight.set(m.id, m);
    if (isRetry(m)) {
      clearTimeout(waiting.get(callKey(m)));
      waiting.delete(callKey(m));
    }
    return m;
  },
  down: (m, io) => {
    if (typeof m.id === "string" && m.id.startsWith("fills-silence-")) return undefined; // our own retry's answer
    const request = m.method === undefined ? inFlight.get(m.id) : undefined;
    if (request) inFlight.delete(m.id);
    if (request && isInputRequired(m)) {
      const keys = Object.entries(m.result.inputRequests ?? {})
        .filter(([, r]) => r?.method === "sampling/createMessage")
        .map(([k]) => k);
      if (keys.length > 0) {
        const key = callKey(request);
        const timer = setTimeout(() => {
          waiting.delete(key);
          const { _meta, inputResponses, requestState, ...call } = request.params ?? {};
          io.toUpstream({
            jsonrpc: "2.0",
            id: `fills-silence-${++ownIds}`,
            method: request.method,
            params: {
              ...call,
              ...(_meta ? { _meta } : {}),
              inputResponses: Object.fromEntries(keys.map((k) => [k, PLACEHOLDER])),
              ...(m.result.requestState !== undefined ? { requestState: m.result.requestState } : {}),
            },
          });
        }, DEADLINE_MS);
        waiting.set(key, timer);
      }
    }
    return m;
  },
});
