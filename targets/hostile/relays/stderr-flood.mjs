#!/usr/bin/env node
// Hostile relay: a working pass-through that floods stderr (64 KiB lines, as fast as the pipe takes them), with
// a secret-looking line among them. The harness must keep reading (a full pipe would block the relay) and
// keep only a bounded, redacted tail.
import { passThrough } from "./lib.mjs";

passThrough();
const line = `${"flood ".repeat(10_922)}\n`;
let n = 0;
function pump() {
  while (n < 2000) {
    n++;
    if (n % 100 === 0) process.stderr.write("debug: API_TOKEN=sk-hostile-0123456789abcdef\n");
    if (!process.stderr.write(line)) return process.stderr.once("drain", pump);
  }
}
pump();
