// Broken: never looks inside image blocks. Before validating a request or a result it swaps every image block
// (top-level content, array content, tool_result content) for a valid text block, so an image whose data is not
// base64 or that has no mimeType passes in both directions — as relays do that treat images as opaque
// attachments to forward (or whose schema types ImageContent.data as any string). Everything else is the
// reference relay, which still forwards the original blocks.
import { validateRequest, validateResult } from "../../../src/validator/index.ts";
import { runBroken } from "./lib/broken.ts";

const STAND_IN = { type: "text", text: "[image]" };

function block(b: unknown): unknown {
  if (!b || typeof b !== "object" || Array.isArray(b)) return b;
  const o = b as Record<string, unknown>;
  if (o.type === "image") return STAND_IN;
  if (o.type === "tool_result" && Array.isArray(o.content)) return { ...o, content: o.content.map(block) };
  return o;
}

function content(c: unknown): unknown {
  return Array.isArray(c) ? c.map(block) : block(c);
}

function withoutImages<T>(value: T): T {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const o = value as Record<string, unknown>;
  const out: Record<string, unknown> = { ...o };
  if ("content" in o) out.content = content(o.content);
  if (Array.isArray(o.messages))
    out.messages = o.messages.map((m) =>
      m && typeof m === "object" && !Array.isArray(m) && "content" in m
        ? { ...(m as Record<string, unknown>), content: content((m as Record<string, unknown>).content) }
        : m,
    );
  return out as T;
}

await runBroken("image-unchecked", {
  checkRequest: (params, ctx) => validateRequest(withoutImages(params), ctx),
  checkResult: (result, ctx) =>
    validateResult(withoutImages(result), { ...ctx, request: withoutImages(ctx.request) }),
});
