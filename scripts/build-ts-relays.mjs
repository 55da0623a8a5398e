// Builds the repository's own TypeScript relays — the deliberately broken relays of targets/broken/relays/ and the
// brokers of targets/brokers/relays/ — into dist/targets/<folder>/relays/<name>.mjs (bundled, minified; what they
// share in dist/targets/chunks/). targets/run-ts.mjs runs a relay's build while it is fresh: through tsx a relay
// process spends about 1.2 s of CPU starting (its TypeScript and the SDK's modules resolved and loaded one by one),
// from its build about 0.35 s, and the kill matrix starts hundreds of them. Called by scripts/build.mjs; an installed
// package has no targets/<folder>/relays/ and builds nothing here.
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const FOLDERS = ["broken", "brokers"];

export async function buildTsRelays(root) {
  const entryPoints = {};
  for (const folder of FOLDERS) {
    const dir = join(root, "targets", folder, "relays");
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir))
      if (name.endsWith(".ts")) entryPoints[`${folder}/relays/${name.slice(0, -3)}`] = join(dir, name);
  }
  if (Object.keys(entryPoints).length === 0) return;
  const outdir = join(root, "dist", "targets");
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outdir,
    outExtension: { ".js": ".mjs" },
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    minify: true,
    legalComments: "none",
    // Bundled CommonJS dependencies call require(): an ES module has none of its own.
    banner: {
      js: 'import { createRequire as __require } from "node:module"; const require = __require(import.meta.url);',
    },
    logLevel: "warning",
  });
}
