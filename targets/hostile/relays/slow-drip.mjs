#!/usr/bin/env node
// Hostile relay: a working pass-through that writes everything it sends the harness one byte at a time, a few
// milliseconds apart, so one frame takes a second or more to arrive. The harness must reassemble frames from
// single bytes and keep to its deadlines while they trickle in.
import { passThrough } from "./lib.mjs";

const BYTE_GAP_MS = 3;
const queue = [];
let dripping = false;

function drip() {
  const byte = queue.shift();
  if (byte === undefined) {
    dripping = false;
    return;
  }
  process.stdout.write(Buffer.from([byte]));
  setTimeout(drip, BYTE_GAP_MS);
}

passThrough({
  out(text) {
    queue.push(...Buffer.from(text, "utf8"));
    if (!dripping) {
      dripping = true;
      drip();
    }
  },
});
