// Broken (2026-07-28): files inputResponses under JSON-Pointer-unescaped keys. The relay addresses each input
// by a pointer built from its key and reads the key back from the pointer, so "~0" becomes "~" and "~1" becomes
// "/": an answer to the input "q/1~0.x" goes upstream under "q/1~.x", a key the upstream never asked for.
import { isRetry, tapUpstream } from "./lib/upstream-tap.mjs";

const unescaped = (key) => key.replaceAll("~1", "/").replaceAll("~0", "~");

tapUpstream({
  up: (m) => {
    if (!isRetry(m) || !m.params.inputResponses || typeof m.params.inputResponses !== "object") return m;
    const inputResponses = Object.fromEntries(
      Object.entries(m.params.inputResponses).map(([k, v]) => [unescaped(k), v]),
    );
    return { ...m, params: { ...m.params, inputResponses } };
  },
});
