#!/usr/bin/env node
// The harness upstream as the relay sees it: a stdio MCP server. It is only a pipe: it connects to the
// harness controller's loopback control channel and copies bytes both ways, so that the scripted upstream
// (which lives in the controller) sees every frame exactly as the relay wrote it. Plain JavaScript with no
// dependencies so that it starts fast and needs no TypeScript loader.
// The session's token is read from a private file (never on the command line, which `ps` shows to everyone).
import { readFileSync } from "node:fs";
import { connect } from "node:net";

const [address, tokenFile] = process.argv.slice(2);
const colon = address?.lastIndexOf(":") ?? -1;
if (!address || !tokenFile || colon < 0) {
  process.stderr.write("usage: upstream-shim HOST:PORT TOKEN_FILE\n");
  process.exit(2);
}
let token;
try {
  token = readFileSync(tokenFile, "utf8").trim();
} catch (error) {
  process.stderr.write(`upstream-shim: cannot read the token file: ${error.message}\n`);
  process.exit(2);
}
const socket = connect({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)) });
socket.setNoDelay(true);
socket.on("connect", () => {
  socket.write(`${JSON.stringify({ hello: token, pid: process.pid })}\n`);
  process.stdin.pipe(socket, { end: false });
  socket.pipe(process.stdout);
});
process.stdin.on("end", () => socket.end());
socket.on("close", () => process.exit(0));
socket.on("error", (error) => {
  process.stderr.write(`upstream-shim: control channel: ${error.message}\n`);
  process.exit(1);
});
