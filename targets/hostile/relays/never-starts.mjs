#!/usr/bin/env node
// Hostile relay: reads stdin and never answers anything (not even initialize), never launches the upstream,
// and ignores SIGTERM, SIGINT and the end of its stdin: only SIGKILL ends it.
import { ignoreTermination } from "./lib.mjs";

ignoreTermination();
process.stdin.resume();
process.stdin.on("end", () => undefined);
