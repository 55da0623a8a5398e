import type { Frame } from "../model/evidence.ts";

/**
 * Whether the upstream's sampling request got its response under its own id, read off the upstream's frames (pure).
 * JSON-RPC 2.0 §5: the response's id "MUST be the same as the value of the id member in the Request Object", type
 * included; MCP basic: "Responses MUST include the same ID as the request they correspond to" (the round-trip row).
 * Returns what went wrong, or undefined when the response paired, or when none came (the judge's verdict says that).
 */
export function pairingProblem(frames: Frame[]): string | undefined {
  const upstream = frames.filter((f) => f.end === "upstream" && f.message && typeof f.message === "object");
  const requests = upstream
    .filter(
      (f) => f.dir === "to-relay" && (f.message as { method?: unknown }).method === "sampling/createMessage",
    )
    .map((f) => (f.message as { id?: unknown }).id);
  const responses = upstream
    .filter((f) => f.dir === "from-relay")
    .map((f) => f.message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown })
    .filter((m) => m.method === undefined && ("result" in m || "error" in m));
  for (const sent of requests) {
    if (responses.some((r) => r.id === sent)) continue;
    const loose = responses.find((r) => r.id !== sent && String(r.id) === String(sent));
    if (loose)
      return `the response to request id ${JSON.stringify(sent)} came back under id ${JSON.stringify(loose.id)} (${typeof sent} → ${typeof loose.id})`;
    const stray = responses.find((r) => !requests.some((id) => id === r.id));
    if (stray)
      return `the response to request id ${JSON.stringify(sent)} came back under id ${JSON.stringify(stray.id)}, which no request of the upstream had`;
  }
  return undefined;
}
