#!/usr/bin/env node
// Hostile relay: its profile says it serves Streamable HTTP on {{port}}, but it never binds the port (nor launches
// the upstream), and it ignores SIGTERM, SIGINT and the end of its stdin: only SIGKILL ends it.
import { ignoreTermination } from "./lib.mjs";

ignoreTermination();
process.stdin.resume();
process.stdin.on("end", () => undefined);
