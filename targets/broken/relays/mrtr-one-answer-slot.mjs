// Broken (2026-07-28): keeps one answer slot per call. When the downstream's retry answers several inputRequests at
// once, the relay files the last answer it read under every key, so each question but the last goes upstream with
// the answer to another question (an overwrite; with distinct keys on both sides nothing looks wrong on the wire).
import { isRetry, tapUpstream } from "./lib/upstream-tap.mjs";

tapUpstream({
  up: (m) => {
    if (!isRetry(m) || !m.params.inputResponses || typeof m.params.inputResponses !== "object") return m;
    const entries = Object.entries(m.params.inputResponses);
    if (entries.length < 2) return m;
    const last = entries[entries.length - 1][1];
    const inputResponses = Object.fromEntries(entries.map(([k]) => [k, last]));
    return { ...m, params: { ...m.params, inputResponses } };
  },
});
