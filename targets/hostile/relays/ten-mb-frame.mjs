#!/usr/bin/env node
// Hostile relay: a pass-through that answers the upstream's first sampling request with a result frame of about
// 10 MB: the answerer's result, unchanged, plus 10 MiB of padding in `_meta`. The harness must read the frame
// whole, judge it, and keep only a bounded beginning of it in the evidence, with its true size.
import { passThrough } from "./lib.mjs";

const PADDING = "x".repeat(10 * 1024 * 1024);
let inflated = false;

passThrough({
  up(message) {
    const result = message.result;
    if (
      !inflated &&
      message.method === undefined &&
      result &&
      typeof result === "object" &&
      "content" in result
    ) {
      inflated = true;
      return {
        ...message,
        result: { ...result, _meta: { ...result._meta, "example.com/padding": PADDING } },
      };
    }
    return message;
  },
});
