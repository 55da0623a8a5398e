#!/usr/bin/env node
// Hostile relay: answers every line it reads with lines that are not JSON (and a few stray bytes on its own).
import { createInterface } from "node:readline";

process.stdout.write("Starting relay... \x1b[32mOK\x1b[0m\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  process.stdout.write(`<html>500 Internal Server Error</html> got ${line.length} bytes\n{not json\n`);
});
