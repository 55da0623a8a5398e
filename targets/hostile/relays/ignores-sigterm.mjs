#!/usr/bin/env node
// Hostile relay: a working pass-through that ignores SIGTERM/SIGINT and the end of its stdin, and keeps a
// grandchild of its own alive: only SIGKILL to its process group ends them all.
import { spawn } from "node:child_process";
import { ignoreTermination, passThrough } from "./lib.mjs";

ignoreTermination();
passThrough({ exitWithUpstream: false });
const marker = process.argv.find((a) => a.startsWith("--marker=")) ?? "";
spawn(process.execPath, ["-e", "process.on('SIGTERM',()=>{});setInterval(()=>{},1e9)", marker], {
  stdio: "ignore",
});
