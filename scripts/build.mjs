#!/usr/bin/env node
// Compiles the program (src/main.ts: the CLI and the relay's command) into ES modules under dist/cli/ (main.mjs), so a CLI process starts without compiling TypeScript
// (tsx) on every launch, and the library API (src/index.ts) into dist/lib/index.mjs (its declarations:
// `npm run build:types`). Shared code goes into dist/chunks/; dependencies stay external (node_modules).
// The `relay` command alone, which every relay process of a run starts from (about 35 per default run), is one
// self-contained CommonJS file, dist/cli/relay.cjs: its dependencies bundled in (no module resolution at start-up),
// minified, and loaded by bin/mcpx-conform.js through a V8 code cache (see there), which an ES module cannot be on
// Node 20.
// Runs on install (`prepare`), before the tests (test/setup/build.ts) and by hand (`npm run build`); the entry
// point (bin/mcpx-conform.js) uses the output only while it is newer than every source file.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { buildTsRelays } from "./build-ts-relays.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist");
mkdirSync(outdir, { recursive: true });
const { outputFiles } = await build({
  entryPoints: {
    "cli/main": join(root, "src/main.ts"),
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

/**
 * zod's classic API re-exports every locale (`z.locales`, about 250 kB minified), which the bundle would keep since
 * `z` is used as a whole; the relay only ever reports in English (zod's default), so the bundle gets English alone.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), args.path), namespace: "zod-locales" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), "en.js"))};`,
      resolveDir: dirname(args.path),
      loader: "js",
    }));
  },
};
// The build's content hash goes in the first line (a placeholder of the same length while building, so the source
// map still holds): the code cache of this build is named by it, and a cache of another build is never offered to V8
// (V8 checks only the source's length).
const HASH_PLACEHOLDER = "0".repeat(16);
const relay = await build({
  entryPoints: { "cli/relay": join(root, "src/relay/main.ts") },
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  outdir,
  outExtension: { ".js": ".cjs" },
  minify: true,
  legalComments: "none",
  banner: { js: `// mcpx-conform relay build ${HASH_PLACEHOLDER}` },
  plugins: [zodEnglishOnly],
  write: false,
  sourcemap: "linked",
  logLevel: "warning",
});
const RELAY_CACHE = /^relay\.[0-9a-f]{16}\.v8cache$/;
let relayHash = "";
for (const file of relay.outputFiles) {
  if (!file.path.endsWith(".cjs")) continue;
  relayHash = createHash("sha256").update(file.contents).digest("hex").slice(0, 16);
  const text = file.text.replace(HASH_PLACEHOLDER, relayHash);
  Object.defineProperty(file, "contents", { value: new TextEncoder().encode(text) });
}
outputFiles.push(...relay.outputFiles);

// Each file is written beside and renamed: a process starting during the build never imports half a file.
for (const file of outputFiles) {
  mkdirSync(dirname(file.path), { recursive: true });
  const partial = `${file.path}.${process.pid}.tmp`;
  writeFileSync(partial, file.contents);
  renameSync(partial, file.path);
}
// YAML parsed by an earlier build's parser (src/model/yaml-cache.ts) is parsed again.
rmSync(join(outdir, "parsed-yaml.json"), { force: true });
// Chunks of earlier builds (their names carry a content hash) are removed.
const written = new Set(outputFiles.map((f) => f.path));
// So are the relay's code caches of earlier builds (dist/cli/relay.<hash>.v8cache, written by relay processes) and the
// former ES module entry of the relay command.
for (const name of readdirSync(join(outdir, "cli")))
  if ((RELAY_CACHE.test(name) && name !== `relay.${relayHash}.v8cache`) || name.startsWith("relay-main.mjs"))
    rmSync(join(outdir, "cli", name), { force: true });
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

// The repository's own TypeScript relays (kill matrix, brokers), when this is a clone: see build-ts-relays.mjs.
await buildTsRelays(root);
