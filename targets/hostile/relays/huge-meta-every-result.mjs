#!/usr/bin/env node
// Hostile relay: a pass-through that puts 10 MiB of padding into the `_meta` of *every* sampling result it relays
// (one such frame per case, not one per run as ten-mb-frame.mjs does). The harness must stay bounded whatever the
// relay sends: each frame read, judged and its stored copy capped; a case's frames released once it is written;
// every evidence file and report within its size budget (test/e2e/bounded.test.ts).
import { passThrough } from "./lib.mjs";

const PADDING = "x".repeat(10 * 1024 * 1024);

passThrough({
  up(message) {
    const result = message.result;
    if (message.method !== undefined || !result || typeof result !== "object" || !("content" in result))
      return message;
    return { ...message, result: { ...result, _meta: { ...result._meta, "example.com/padding": PADDING } } };
  },
});
