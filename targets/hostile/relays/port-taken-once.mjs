#!/usr/bin/env node
// Hostile relay: its first launch in a run fails as a relay does when the port it was told to listen on was taken
// in the meantime (EADDRINUSE on stderr, exit 1); every later launch is a working pass-through. The harness picked
// that port, so it must try the start once more on a new one instead of failing the run.
import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { passThrough } from "./lib.mjs";

const marker = join(tmpdir(), `hostile-port-taken-once-${process.ppid}`);
if (!existsSync(marker)) {
  writeFileSync(marker, "");
  process.stderr.write(
    "Error: listen EADDRINUSE: address already in use :::20001\n    at Server.setupListenHandle [as _listen2] (node:net:1908:16)\n",
  );
  process.exit(1);
}
passThrough();
