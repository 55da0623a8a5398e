// Broken: pairs tool_result.toolUseId with the tool_use id ignoring letter case. It validates a copy of the
// request whose tool ids are lower-cased, so "toolu_01AbC" answered by "toolu_01abc" counts as a match — as
// relays do that normalise ids (lower-casing keys of a lookup map, case-insensitive database collation, or a
// `localeCompare(…, { sensitivity: "base" })`). Ids are opaque strings matched exactly; the real tool use stays
// unanswered. Everything else is the reference relay, which forwards the original ids.
import { validateRequest } from "../../../src/validator/index.ts";
import { runBroken } from "./lib/broken.ts";

function lowerIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(lowerIds);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = lowerIds(v);
  const o = value as Record<string, unknown>;
  if (o.type === "tool_use" && typeof o.id === "string") out.id = o.id.toLowerCase();
  if (o.type === "tool_result" && typeof o.toolUseId === "string") out.toolUseId = o.toolUseId.toLowerCase();
  return out;
}

await runBroken("case-insensitive-ids", {
  checkRequest: (params, ctx) => {
    if (!params || typeof params !== "object" || Array.isArray(params)) return validateRequest(params, ctx);
    const p = params as Record<string, unknown>;
    return validateRequest({ ...p, messages: lowerIds(p.messages) }, ctx);
  },
});
