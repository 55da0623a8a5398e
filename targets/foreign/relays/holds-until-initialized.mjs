#!/usr/bin/env node
// A stdio front in the shape of the official Java SDK's server (io.modelcontextprotocol.sdk:mcp 2.0.1,
// McpServerSession.handleIncomingRequest): before the client's notifications/initialized it answers initialize and
// nothing else. Every other request is held until the notification comes, then goes on in order; server/discover,
// which that SDK has no handler for, is answered -32601 at once, and a client that never initializes (a 2026-07-28
// client) gets no other answer at all. Behind it a correct relay (COMMAND), to which every frame passes unchanged.
//
//   node holds-until-initialized.mjs -- COMMAND [ARGS…]
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const dashes = process.argv.indexOf("--");
const command = dashes >= 0 ? process.argv.slice(dashes + 1) : [];
if (command.length === 0) {
  process.stderr.write("usage: holds-until-initialized.mjs -- COMMAND [ARGS…]\n");
  process.exit(2);
}

const relay = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
relay.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
const toRelay = (line) => relay.stdin.write(`${line}\n`);
createInterface({ input: relay.stdout }).on("line", (line) => process.stdout.write(`${line}\n`));

let initialized = false;
/** Requests that came before notifications/initialized, in order. */
const held = [];

createInterface({ input: process.stdin }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    toRelay(line);
    return;
  }
  const isRequest = typeof message?.method === "string" && message.id !== undefined && message.id !== null;
  if (isRequest && message.method === "server/discover") {
    const error = { code: -32601, message: "Method not found: server/discover" };
    process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, error })}\n`);
    return;
  }
  if (!initialized && isRequest && message.method !== "initialize" && message.method !== "ping") {
    held.push(line);
    return;
  }
  toRelay(line);
  if (message?.method === "notifications/initialized" && !initialized) {
    initialized = true;
    for (const request of held.splice(0)) toRelay(request);
  }
});
process.stdin.on("end", () => relay.stdin.end());
process.on("SIGTERM", () => {
  relay.kill("SIGTERM");
  process.exit(0);
});
