#!/usr/bin/env node
// Hostile relay: a pass-through that returns the answerer's sampling answers to the upstream under the wrong
// JSON-RPC id, so the upstream's sampling request is never answered (and the probe call never ends).
import { passThrough } from "./lib.mjs";

passThrough({
  up(message) {
    if (message.id !== undefined && message.method === undefined)
      return { ...message, id: typeof message.id === "number" ? message.id + 1000 : `${message.id}-x` };
    return message;
  },
});
