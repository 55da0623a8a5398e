// Broken (2026-07-28): sends its own continuation token upstream instead of the upstream's requestState. The
// relay keeps the upstream's state "on its side" and puts its session token in every retry — so the upstream
// gets a requestState it never issued, and one even when it issued none.
import { isRetry, tapUpstream } from "./lib/upstream-tap.mjs";

const token = `relay-session-${process.pid}`;

tapUpstream({
  up: (m) => (isRetry(m) ? { ...m, params: { ...m.params, requestState: token } } : m),
});
