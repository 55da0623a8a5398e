#!/usr/bin/env node
// A stdio front in the shape of the line pipes that wait for the client's `initialize` before they relay anything
// (PyPI's mcp-sse-proxy 0.1.4 drops every line read before it, mcp_sse_proxy.py:139-151): it launches COMMAND (a
// correct relay) and copies stdout through unchanged, but drops, without a word, every stdin line that comes before a
// line whose method is `initialize`; from then on it copies every line. A legacy client is served as the relay behind
// it serves it; a 2026-07-28 client, which sends no initialize, never gets an answer.
//
//   node initialize-first.mjs -- COMMAND [ARGS…]
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const args = process.argv.slice(2);
const command = args.indexOf("--") >= 0 ? args.slice(args.indexOf("--") + 1) : [];
if (command.length === 0) {
  process.stderr.write("usage: initialize-first.mjs -- COMMAND [ARGS…]\n");
  process.exit(2);
}
const child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
child.stdout.pipe(process.stdout);
child.on("exit", (code) => process.exit(code ?? 1));
process.on("SIGTERM", () => child.kill("SIGTERM"));

let initialized = false;
createInterface({ input: process.stdin }).on("line", (line) => {
  if (!initialized) {
    try {
      initialized = JSON.parse(line)?.method === "initialize";
    } catch {
      initialized = false;
    }
    if (!initialized) return; // dropped: nothing is answered before the client's initialize
  }
  child.stdin.write(`${line}\n`);
});
process.stdin.on("end", () => child.stdin.end());
