#!/usr/bin/env node
// Runs one of this repository's TypeScript relays (the deliberately broken relays of targets/broken/, the brokers of
// targets/brokers/), from the folder of its profile: `node ../run-ts.mjs relays/<name>.ts ARGS…`. It runs the relay's
// build (dist/targets/<folder>/relays/<name>.mjs, written by scripts/build.mjs) while that is newer than every source
// it may hold (src/ and the relays' own folders), else the TypeScript itself through tsx: an edited source is never
// shadowed by a stale build. The relay reads its arguments as if it had been started directly.
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const targets = dirname(fileURLToPath(import.meta.url));
const root = dirname(targets);
const source = resolve(process.argv[2] ?? "");
if (!process.argv[2]?.endsWith(".ts") || !existsSync(source)) {
  process.stderr.write(`usage: run-ts.mjs RELAY.ts ARGS… (no TypeScript relay at ${source})\n`);
  process.exit(2);
}
const built = join(root, "dist/targets", relative(targets, source).replace(/\.ts$/, ".mjs"));

/** The newest modification time of any file under `dir` (0 when there is none). */
function newest(dir) {
  let latest = 0;
  if (!existsSync(dir)) return latest;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  return latest;
}

function fresh() {
  if (process.env.MCPX_CONFORM_FROM_SOURCE === "1" || !existsSync(built)) return false;
  const sources = [join(root, "src"), join(targets, "broken/relays"), join(targets, "brokers/relays")];
  return statSync(built).mtimeMs >= Math.max(...sources.map(newest));
}

process.argv.splice(2, 1);
const debug = (message) => {
  if (process.env.MCPX_CONFORM_DEBUG) process.stderr.write(`mcpx-conform[debug]: run-ts: ${message}\n`);
};
if (fresh()) {
  debug(`the build ${relative(root, built)}`);
  await import(pathToFileURL(built).href);
} else {
  debug(`${relative(root, source)} through tsx (no build, or a source is newer)`);
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(source).href);
}
