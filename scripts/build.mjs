#!/usr/bin/env node
// Compiles the CLI into ES modules under dist/cli/ (main.mjs, and relay-main.mjs: the `relay` command alone, which
// every relay process of a run starts from), so a relay or CLI process starts without compiling TypeScript (tsx) on
// every launch. Shared code goes into chunks; dependencies stay external (node_modules).
// Runs on install (`prepare`), before the tests (test/setup/build.ts) and by hand (`npm run build`); the entry
// point (bin/mcpx-conform.js) uses the output only while it is newer than every source file.
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist/cli");
mkdirSync(outdir, { recursive: true });
const { outputFiles } = await build({
  entryPoints: [join(root, "src/cli/main.ts"), join(root, "src/cli/relay-main.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  outdir,
  outExtension: { ".js": ".mjs" },
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  write: false,
  sourcemap: "linked",
  logLevel: "warning",
});
// Each file is written beside and renamed: a process starting during the build never imports half a file.
for (const file of outputFiles) {
  mkdirSync(dirname(file.path), { recursive: true });
  const partial = `${file.path}.${process.pid}.tmp`;
  writeFileSync(partial, file.contents);
  renameSync(partial, file.path);
}
// Chunks of earlier builds (their names carry a content hash) are removed.
const written = new Set(outputFiles.map((f) => f.path));
const chunks = join(outdir, "chunks");
for (const name of readdirSync(chunks))
  if (!written.has(join(chunks, name))) rmSync(join(chunks, name), { force: true });
