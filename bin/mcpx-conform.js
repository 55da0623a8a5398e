#!/usr/bin/env node
// Entry point. It runs the compiled CLI (dist/cli/main.mjs, built by `npm run build`, on install and before the
// tests) when that is newer than every file under src/, else the TypeScript sources through tsx: an edited source is
// never shadowed by a stale build, and a fresh `npm ci` is all a user needs. An installed package (npm pack ships
// dist/ and no TypeScript sources) always runs the build. The compiled start saves tsx's
// compile on every relay launch (about 0.3 s of CPU each; `npm run bench` measures both).
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// The relay command (started once per relay session of a run) has an entry of its own that loads only the relay.
const relayOnly = process.argv[2] === "relay";
const compiled = join(root, relayOnly ? "dist/cli/relay-main.mjs" : "dist/cli/main.mjs");

/** The newest modification time of any file under `dir` (0 when there is none). */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

function compiledIsFresh() {
  if (process.env.MCPX_CONFORM_FROM_SOURCE === "1" || !existsSync(compiled)) return false;
  // An installed package ships the build and only the data files of src/ (templates, the upstream shim): no sources.
  if (!existsSync(join(root, "src/cli/main.ts"))) return true;
  return statSync(compiled).mtimeMs >= newest(join(root, "src"));
}

let main;
if (compiledIsFresh()) {
  const module = await import(compiled);
  main = relayOnly ? module.relayMain : module.main;
} else {
  const { register } = await import("tsx/esm/api");
  register();
  main = relayOnly
    ? (await import("../src/cli/relay-main.ts")).relayMain
    : (await import("../src/cli/main.ts")).main;
}
process.exitCode = await main(process.argv.slice(2));
