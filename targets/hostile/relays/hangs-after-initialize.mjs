#!/usr/bin/env node
// Hostile relay: answers initialize, then never answers anything again and never launches the upstream.
import { createInterface } from "node:readline";
import { initializeResult } from "./lib.mjs";

createInterface({ input: process.stdin }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.method === "initialize") process.stdout.write(`${JSON.stringify(initializeResult(message))}\n`);
});
