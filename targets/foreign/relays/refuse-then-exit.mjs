#!/usr/bin/env node
// A stdio relay front in the shape of relays built on an SDK whose server ends its session when initialize fails
// (rmcp: serve() returns the error after writing it, and the relay's main returns): a legacy client's `initialize`
// is answered with -32022 (UnsupportedProtocolVersionError, the spec's word for "not this era") and the process
// exits at once; its answer reaches the client just after the exit. Anything else (a 2026-07-28 client: no initialize) is
// piped raw, both ways, to the relay command after `--`.
//
//   node refuse-then-exit.mjs -- COMMAND [ARGS…]
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const dashes = process.argv.indexOf("--");
const command = dashes >= 0 ? process.argv.slice(dashes + 1) : [];
if (command.length === 0) {
  process.stderr.write("usage: refuse-then-exit.mjs -- COMMAND [ARGS…]\n");
  process.exit(2);
}

let inner;
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (inner === undefined) {
    const message = JSON.parse(line);
    if (message.method === "initialize") {
      const error = {
        code: -32022,
        message: "Unsupported protocol version",
        data: { supported: ["2026-07-28"], requested: message.params?.protocolVersion },
      };
      // The answer reaches the client 100 ms after the relay's exit (a child sharing its stdout writes it), so the
      // client sees the exit first, as it may when a native relay writes and exits in one breath.
      const answer = JSON.stringify({ jsonrpc: "2.0", id: message.id, error });
      spawn("sh", ["-c", 'sleep 0.1; printf "%s\\n" "$0"', answer], {
        stdio: ["ignore", "inherit", "inherit"],
        detached: false,
      });
      process.exit(1);
    }
    inner = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
    inner.stdout.pipe(process.stdout);
    inner.on("exit", (code) => process.exit(code ?? 1));
  }
  inner.stdin.write(`${line}\n`);
});
lines.on("close", () => inner?.stdin.end());
