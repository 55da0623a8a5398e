#!/usr/bin/env node
// Entry point: runs the TypeScript CLI through tsx so that a fresh `npm ci` is all a user needs
// (no build step whose output could go stale against the sources).
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
