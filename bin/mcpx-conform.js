#!/usr/bin/env node
// Entry point. It runs the compiled CLI (dist/cli/main.mjs, built by `npm run build`, on install and before the
// tests) when that is newer than every file under src/, else the TypeScript sources through tsx: an edited source is
// never shadowed by a stale build, and a fresh `npm ci` is all a user needs. An installed package (npm pack ships
// dist/ and no TypeScript sources) always runs the build. The compiled start saves tsx's
// compile on every relay launch (about 0.3 s of CPU each; `npm run bench` measures both).
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// The relay command (started once per relay session of a run) has a build of its own that holds only the relay.
const relayOnly = process.argv[2] === "relay";
const compiled = join(root, relayOnly ? "dist/cli/relay.cjs" : "dist/cli/main.mjs");
/** A relay that has run this long has started its session: its code cache, written then, holds what that compiled. */
const CACHE_AFTER_MS = 300;

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
  if (!existsSync(join(root, "src/main.ts"))) return true;
  return statSync(compiled).mtimeMs >= newest(join(root, "src"));
}

/**
 * The relay build (one CommonJS file with its dependencies) through V8's code cache: each of the many relay processes
 * of a run would otherwise compile the same 0.6 MB of JavaScript again (Node 20 has no module compile cache). The
 * cache is named by the build's content hash (its first line), so it is only ever offered to the build that wrote it;
 * V8 still refuses it after a change of Node version or flags, and it is then written anew. A relay that finds no
 * usable cache writes one once it has served a while (so it holds the functions a session compiles, not only the
 * top level), beside the build, written aside and renamed; where that folder is read-only there is simply no cache.
 */
function loadRelayBuild(file) {
  const source = readFileSync(file, "utf8");
  const hash = /^\/\/ mcpx-conform relay build ([0-9a-f]{16})\n/.exec(source)?.[1];
  const cacheFile = hash && join(dirname(file), `relay.${hash}.v8cache`);
  let cachedData;
  try {
    if (cacheFile) cachedData = readFileSync(cacheFile);
  } catch {}
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
  const script = new Script(wrapped, { filename: file, cachedData });
  if (cacheFile && (!cachedData || script.cachedDataRejected))
    setTimeout(() => {
      const partial = `${cacheFile}.${process.pid}.tmp`;
      try {
        writeFileSync(partial, script.createCachedData());
        renameSync(partial, cacheFile);
      } catch {}
    }, CACHE_AFTER_MS).unref();
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}

let main;
if (compiledIsFresh()) {
  main = relayOnly ? loadRelayBuild(compiled).relayMain : (await import(compiled)).main;
} else {
  const { register } = await import("tsx/esm/api");
  register();
  main = relayOnly ? (await import("../src/relay/main.ts")).relayMain : (await import("../src/main.ts")).main;
}
process.exitCode = await main(process.argv.slice(2));
