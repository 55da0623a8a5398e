#!/usr/bin/env node
// The wire shape of a relay written on an SDK whose client speaks only the handshake eras (the official Python SDK's
// ClientSession opened with initialize(), targets/foreign/sdk-python/): its server side serves 2026-07-28 clients
// (server/discover answered with supportedVersions ["2026-07-28"]), but at the first tools/list it opens its upstream
// with initialize offering 2025-11-25; a 2026-07-28-only upstream refuses that with -32022, and the relay answers
// tools/list -32603 "upstream unavailable: …". A legacy client (its first message is initialize) gets a plain pipe to
// the upstream process instead: a correct pass-through in every legacy era. A 2026-07-28 client in front of a legacy
// upstream (whose initialize succeeds) is not bridged: tools/list lists nothing.
//
//   node legacy-upstream-client.mjs [--silent-discover] -- COMMAND [ARGS…]
//
// --silent-discover: server/discover goes unanswered, as from a relay too slow to answer it in time (a Python relay
// starting on a loaded machine): the 2026-07-28 client then learns only from tools/list, refused for the upstream.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const args = process.argv.slice(2);
const command = args.includes("--") ? args.slice(args.indexOf("--") + 1) : args;
const silentDiscover =
  args.indexOf("--silent-discover") >= 0 && args.indexOf("--silent-discover") < args.indexOf("--");
if (command.length === 0) {
  process.stderr.write("usage: legacy-upstream-client.mjs [--silent-discover] -- COMMAND…\n");
  process.exit(2);
}
const toDownstream = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const launch = () => spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });

let pipe; // the legacy pass-through's upstream process
let refused; // 2026-07-28: why the upstream could not be opened (it stays closed: the relay does not retry)

/** 2026-07-28: opens the upstream as the handshake-era client does, and reports what the initialize was answered. */
function openUpstream() {
  refused ??= new Promise((resolve) => {
    const child = launch();
    createInterface({ input: child.stdout }).once("line", (line) => {
      const reply = JSON.parse(line);
      child.kill();
      resolve(reply.error ? `initialize refused: ${JSON.stringify(reply.error)}` : undefined);
    });
    const params = {
      protocolVersion: "2025-11-25",
      capabilities: { sampling: {} },
      clientInfo: { name: "c", version: "1" },
    };
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params })}\n`);
  });
  return refused;
}

const lines = createInterface({ input: process.stdin });
lines.on("line", async (line) => {
  if (pipe) return void pipe.stdin.write(`${line}\n`);
  const message = JSON.parse(line);
  if (message.method === "initialize") {
    // A legacy client: from here on, bytes both ways.
    pipe = launch();
    pipe.stdout.pipe(process.stdout);
    pipe.on("exit", () => process.exit(0));
    return void pipe.stdin.write(`${line}\n`);
  }
  if (message.id === undefined) return;
  if (message.method === "server/discover" && silentDiscover) return;
  if (message.method === "server/discover")
    return toDownstream({
      jsonrpc: "2.0",
      id: message.id,
      result: {
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        ttlMs: 0,
        cacheScope: "private",
      },
    });
  const why = await openUpstream();
  if (why)
    return toDownstream({
      jsonrpc: "2.0",
      id: message.id,
      error: { code: -32603, message: `upstream unavailable: ${why}` },
    });
  // A legacy upstream took the initialize: this relay does not bridge it to a 2026-07-28 client (it lists nothing).
  const result = { resultType: "complete", tools: [], ttlMs: 0, cacheScope: "private" };
  toDownstream({ jsonrpc: "2.0", id: message.id, result });
});
lines.on("close", () => {
  pipe?.stdin.end();
  if (!pipe) process.exit(0);
});
