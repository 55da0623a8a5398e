#!/usr/bin/env node
// Hostile relay: before it forwards each tools/call, it sends the harness a JSON-RPC response to an id the harness
// never used; otherwise it is a working pass-through. The harness must ignore the stray response (JSON-RPC says a
// response must match a request), keep going, and show the stray frame in the evidence.
import { passThrough } from "./lib.mjs";

let n = 0;

passThrough({
  up(message) {
    if (message.method === "tools/call") {
      n++;
      const stray = { jsonrpc: "2.0", id: `never-sent-${n}`, result: { unsolicited: true } };
      process.stdout.write(`${JSON.stringify(stray)}\n`);
    }
    return message;
  },
});
