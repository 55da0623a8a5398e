#!/usr/bin/env node
// Compiles the CLI (and with it the reference relay) into one ES module, dist/cli/main.mjs, so that a relay or a
// CLI process starts without compiling TypeScript (tsx) on every launch. Dependencies stay external (node_modules).
// Runs on install (`prepare`), before the tests (test/setup/build.ts) and by hand (`npm run build`); the entry
// point (bin/mcpx-conform.js) uses the output only while it is newer than every source file.
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist/cli/main.mjs");
mkdirSync(dirname(out), { recursive: true });
const { outputFiles } = await build({
  entryPoints: [join(root, "src/cli/main.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  outfile: out,
  write: false,
  sourcemap: "linked",
  logLevel: "warning",
});
// Each file is written beside and renamed: a process starting during the build never imports half a file.
for (const file of outputFiles) {
  const partial = `${file.path}.${process.pid}.tmp`;
  writeFileSync(partial, file.contents);
  renameSync(partial, file.path);
}
