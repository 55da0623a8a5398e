#!/usr/bin/env node
// Compiles the CLI into ES modules under dist/cli/ (main.mjs, and relay-main.mjs: the `relay` command alone, which
// every relay process of a run starts from), so a relay or CLI process starts without compiling TypeScript (tsx) on
// every launch, and the library API (src/index.ts) into dist/lib/index.mjs (its declarations: `npm run build:types`).
// Shared code goes into dist/chunks/; dependencies stay external (node_modules).
// Runs on install (`prepare`), before the tests (test/setup/build.ts) and by hand (`npm run build`); the entry
// point (bin/mcpx-conform.js) uses the output only while it is newer than every source file.
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist");
mkdirSync(outdir, { recursive: true });
const { outputFiles } = await build({
  entryPoints: {
    "cli/main": join(root, "src/cli/main.ts"),
    "cli/relay-main": join(root, "src/cli/relay-main.ts"),
    "lib/index": join(root, "src/index.ts"),
    // mcpx-conform/vitest: the corpus as tests of a relay author's own vitest suite
    "lib/vitest": join(root, "src/vitest/index.ts"),
  },
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
mkdirSync(chunks, { recursive: true });
for (const name of readdirSync(chunks))
  if (!written.has(join(chunks, name))) rmSync(join(chunks, name), { force: true });

// JSON Schemas of the files users write and read (a case, a target profile, a baseline; results.json and evidence),
// generated from the zod schemas the harness itself checks them with: dist/schemas/<name>.schema.json.
const { z } = await import("zod");
const lib = await import(pathToFileURL(join(outdir, "lib/index.mjs")).href);
const schemas = join(outdir, "schemas");
mkdirSync(schemas, { recursive: true });
for (const [name, schema] of Object.entries({
  case: lib.CaseSchema,
  target: lib.TargetProfileSchema,
  baseline: lib.BaselineSchema,
  results: lib.ResultsSchema,
  evidence: lib.EvidenceSchema,
  register: lib.RegisterSchema,
})) {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  const partial = join(schemas, `${name}.schema.json.${process.pid}.tmp`);
  writeFileSync(partial, `${JSON.stringify({ title: `mcpx-conform ${name}`, ...json }, null, 2)}\n`);
  renameSync(partial, join(schemas, `${name}.schema.json`));
}
