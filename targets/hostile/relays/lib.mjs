// Shared pieces of the hostile relays (targets/hostile/): a stdio pass-through with hooks, and small misdeeds.
// Every hostile relay is a real process; the tests check that the harness ends its run within the bound its
// profile implies, tells the truth about what happened, and leaves no process of it alive.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** Ignores SIGTERM and SIGINT, and keeps the event loop alive: only SIGKILL ends this process. */
export function ignoreTermination() {
  process.on("SIGTERM", () => undefined);
  process.on("SIGINT", () => undefined);
  setInterval(() => undefined, 1 << 30);
}

/**
 * Launches the upstream (argv after the script) and copies every line both ways. `down(message)` may rewrite
 * what goes to the harness answerer (return a string to send it raw, undefined to drop it); `up` likewise.
 * `out(text)` writes to the harness (stdout by default).
 */
export function passThrough({
  up,
  down,
  exitWithUpstream = true,
  out = (s) => process.stdout.write(s),
} = {}) {
  const args = process.argv.slice(2).filter((a) => !a.startsWith("--marker="));
  const upstream = spawn(args[0], args.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  const send = (write, line, hook) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return write(`${line}\n`);
    }
    const out = hook ? hook(message) : message;
    if (out === undefined) return;
    write(`${typeof out === "string" ? out : JSON.stringify(out)}\n`);
  };
  createInterface({ input: process.stdin }).on("line", (l) => send((s) => upstream.stdin.write(s), l, up));
  createInterface({ input: upstream.stdout }).on("line", (l) => send(out, l, down));
  if (exitWithUpstream) {
    process.stdin.on("end", () => upstream.kill());
    upstream.on("exit", () => process.exit(0));
  }
  return upstream;
}

/** Answers initialize like a relay would (the protocol version asked for, tools, no more). */
export function initializeResult(message) {
  return {
    jsonrpc: "2.0",
    id: message.id,
    result: {
      protocolVersion: message.params?.protocolVersion ?? "2025-11-25",
      capabilities: { tools: {} },
      serverInfo: { name: "hostile", version: "0" },
    },
  };
}
