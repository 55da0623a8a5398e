#!/usr/bin/env node
// Hostile relay: a pass-through that only speaks 2025-06-18 and later. Asked to initialize with an older protocol
// version, it answers with an error and exits (as real relays do when the SDK refuses a version), so every start
// in that era fails the same way. `--launches=FILE` gets one line per refusal: the test counts relaunches.
import { appendFileSync } from "node:fs";
import { passThrough } from "./lib.mjs";

const OLDEST = "2025-06-18";
const log = process.argv.find((a) => a.startsWith("--launches="))?.slice("--launches=".length);
process.argv = process.argv.filter((a) => !a.startsWith("--launches="));

passThrough({
  up(message) {
    const version = message.method === "initialize" ? message.params?.protocolVersion : undefined;
    if (typeof version !== "string" || version >= OLDEST) return message;
    // Logged before answering: once the answer is out, the harness may end this process at any moment.
    if (log) appendFileSync(log, `${version}\n`);
    const error = { code: -32602, message: `Unsupported protocol version: ${version}` };
    process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, error })}\n`);
    process.stderr.write(`hostile relay: protocol version ${version} is not supported, exiting\n`);
    process.exit(1);
  },
});
