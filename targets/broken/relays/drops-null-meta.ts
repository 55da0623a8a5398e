// Broken: drops every `_meta` entry whose value is null, at any depth inside a `_meta` object (params, messages,
// blocks, result), from what it forwards and relays — as relays do that serialise through a struct with
// `omitempty`/`skip_serializing_if = "Option::is_none"`, or "clean" metadata with a JSON replacer. {"a": null} is
// not {}: the peer that set the key to null loses it. Values outside _meta, and arrays, are left alone.
import { runBroken } from "./lib/broken.ts";

function pruneNulls(meta: unknown): unknown {
  if (Array.isArray(meta)) return meta.map((v) => (v && typeof v === "object" ? pruneNulls(v) : v));
  if (!meta || typeof meta !== "object") return meta;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta)) if (v !== null) out[k] = pruneNulls(v);
  return out;
}

function withoutNullMeta(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullMeta);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = k === "_meta" ? pruneNulls(v) : withoutNullMeta(v);
  return out;
}

await runBroken("drops-null-meta", {
  rewriteRequest: (params) => withoutNullMeta(params) as Record<string, unknown>,
  rewriteResult: (result) => withoutNullMeta(result) as Record<string, unknown>,
});
