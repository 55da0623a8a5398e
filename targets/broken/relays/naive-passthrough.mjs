#!/usr/bin/env node
// Deliberately broken relay: a naive stdio pass-through, like many real bridges. It launches the upstream,
// copies every frame unchanged in both directions (no validation at all) and flattens every JSON-RPC error
// to -32603 with its own prefix. Defects: no request/result validation, no -1 / -32602, no expiry.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const upstream = spawn(process.argv[2], process.argv.slice(3), { stdio: ["pipe", "pipe", "inherit"] });

function flatten(line) {
  try {
    const message = JSON.parse(line);
    if (message && typeof message === "object" && message.error && !message.method) {
      message.error = { code: -32603, message: `relay error: ${message.error.message}` };
      return JSON.stringify(message);
    }
  } catch {
    // not JSON: pass it on as it is
  }
  return line;
}

createInterface({ input: process.stdin }).on("line", (line) => upstream.stdin.write(`${flatten(line)}\n`));
createInterface({ input: upstream.stdout }).on("line", (line) => process.stdout.write(`${flatten(line)}\n`));
process.stdin.on("end", () => upstream.kill());
upstream.on("exit", () => process.exit(0));
