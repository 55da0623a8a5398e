// Broken: adds its own `_meta` keys — a session id and a timestamp — to every request it forwards and every result
// it relays, as relays do that use _meta as their own tracing channel (it "is reserved for the peers", but not for
// a program between them). Everything else is correct: validation, codes, deadlines and every other field are
// the reference relay's. Only fidelity fails (sampling-relay-content-unchanged): no other rule is about it, and a
// verdict that fails the round trip or the validation rows for it is a false red.
import { runBroken } from "./lib/broken.ts";

const SESSION = `s-${process.pid}`;

function withOwnMeta(value: Record<string, unknown>): Record<string, unknown> {
  const meta =
    value._meta && typeof value._meta === "object" && !Array.isArray(value._meta)
      ? (value._meta as Record<string, unknown>)
      : {};
  return { ...value, _meta: { ...meta, "relay.example/session": SESSION, "relay.example/ts": Date.now() } };
}

await runBroken("adds-meta", {
  rewriteRequest: (params) => withOwnMeta(params),
  rewriteResult: (result) => withOwnMeta(result),
});
