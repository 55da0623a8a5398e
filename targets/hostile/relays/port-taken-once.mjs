#!/usr/bin/env node
// Hostile relay: its first launch in a run fails as a relay does when the port it was told to listen on was taken
// in the meantime (EADDRINUSE on stderr, exit 1); every later launch is a working pass-through. The harness picked
// that port, so it must try the start once more on a new one instead of failing the run.
// `--exec CMD ARGS…`: later launches run that relay instead of the pass-through (an HTTP relay, for the two-session
// case); `--first-launch=FILE`: the file that marks the first launch as done (default: one per harness process).
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { passThrough } from "./lib.mjs";

const FIRST = "--first-launch=";
const marker =
  process.argv.find((a) => a.startsWith(FIRST))?.slice(FIRST.length) ??
  join(tmpdir(), `hostile-port-taken-once-${process.ppid}`);
process.argv = process.argv.filter((a) => !a.startsWith(FIRST));
if (!existsSync(marker)) {
  writeFileSync(marker, "");
  process.stderr.write(
    "Error: listen EADDRINUSE: address already in use :::20001\n    at Server.setupListenHandle [as _listen2] (node:net:1908:16)\n",
  );
  process.exit(1);
}
const exec = process.argv.indexOf("--exec");
if (exec < 0) passThrough();
else {
  const [command, ...args] = process.argv.slice(exec + 1).filter((a) => !a.startsWith("--marker="));
  const relay = spawn(command, args, { stdio: "inherit" });
  relay.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  for (const s of ["SIGTERM", "SIGINT"]) process.on(s, () => relay.kill(s));
}
