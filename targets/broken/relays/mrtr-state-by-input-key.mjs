// Broken (2026-07-28): keeps the upstream's side of each pending exchange (the call's arguments and its requestState)
// filed under the inputRequests key it asked, and sends a retry upstream as the continuation of the exchange filed
// under the key it answers. One call at a time nothing looks wrong; with two clients' calls in flight under the same
// key, the second call's filing overwrites the first's, so the first client's answer continues the second client's
// call. inputRequests and requestState "MUST NOT be used for any other request that the client may be sending in
// parallel" (basic/patterns/mrtr.mdx): a key is unique only within one call.
//
// `--oldest`: the first exchange filed under a key keeps it (later calls do not overwrite it), so the relay continues
// the OLDEST pending exchange: right when the first client answers first, wrong when the second one does.
import { isInputRequired, isRetry, tapUpstream } from "./lib/upstream-tap.mjs";

const OLDEST = process.argv[2] === "--oldest";
if (OLDEST) process.argv.splice(2, 1);

/** The relay's tools/call (and other) requests to the upstream, by id, while unanswered. */
const calls = new Map();
/** inputRequests key → the upstream exchange that asked it last. */
const filed = new Map();

tapUpstream({
  up: (m) => {
    if (isRetry(m) && m.params.inputResponses && typeof m.params.inputResponses === "object") {
      const key = Object.keys(m.params.inputResponses)[0];
      const exchange = key === undefined ? undefined : filed.get(key);
      if (exchange) {
        filed.delete(key);
        const { requestState: _echoed, ...rest } = m.params;
        const params = { ...rest, arguments: exchange.arguments };
        if (exchange.requestState !== undefined) params.requestState = exchange.requestState;
        m = { ...m, params };
      }
    }
    if (typeof m?.method === "string" && m.id !== undefined) calls.set(m.id, m.params);
    return m;
  },
  down: (m) => {
    const params = m?.id !== undefined ? calls.get(m.id) : undefined;
    if (m?.id !== undefined && !("method" in m)) calls.delete(m.id);
    if (
      isInputRequired(m) &&
      params &&
      m.result.inputRequests &&
      typeof m.result.inputRequests === "object"
    ) {
      for (const key of Object.keys(m.result.inputRequests))
        if (!OLDEST || !filed.has(key))
          filed.set(key, { arguments: params.arguments, requestState: m.result.requestState });
    }
    return m;
  },
});
