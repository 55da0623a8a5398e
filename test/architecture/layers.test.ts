import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The layer rules of docs/architecture.md, checked on every import in src/: a layer may import only the layers
 * listed for it. The pure oracle and judge know no process, socket, CLI or renderer; the matrix never runs a relay;
 * the reference relay is judged like any target and shares only the validator with the judge.
 */
const ALLOWED: Record<string, readonly string[]> = {
  protocol: [],
  validator: ["protocol"],
  model: ["protocol", "validator"],
  judge: ["model", "protocol", "validator"],
  matrix: ["model", "protocol", "validator"],
  relay: ["protocol", "validator"],
  harness: ["model", "protocol", "validator"],
  fuzz: ["harness", "judge", "model", "protocol", "validator"],
  run: ["fuzz", "harness", "judge", "matrix", "model", "protocol", "validator"],
  // cli goes through the run pipeline: no harness, judge or relay module (`validate` is the validator's own command)
  cli: ["run", "matrix", "model", "protocol", "validator"],
  // the program's entry: the CLI's commands and the reference relay's own (`mcpx-conform relay`)
  "main.ts": ["cli", "relay"],
  // the vitest entry point (mcpx-conform/vitest): the run pipeline as tests of a relay author's own suite
  vitest: ["run", "model", "protocol"],
  // the library entry (the package's `exports["."]`): the public API, never the CLI or the reference relay
  "index.ts": ["run", "judge", "matrix", "model", "protocol", "validator"],
};

const SRC = resolve(import.meta.dirname, "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs|js)$/.test(name) ? [path] : [];
  });
}

/** Every relative import of a file, as the layer (top folder under src/) it lands in. */
function importedLayers(file: string, text: string): Array<{ layer: string; spec: string }> {
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]!);
  return specs.map((spec) => {
    const target = relative(SRC, resolve(join(file, ".."), spec));
    return { layer: target.split("/")[0]!, spec };
  });
}

describe("layer rules (docs/architecture.md)", () => {
  const files = sourceFiles(SRC);

  it("every folder of src/ is a known layer", () => {
    const layers = new Set(files.map((f) => relative(SRC, f).split("/")[0]!));
    for (const layer of layers) expect(Object.keys(ALLOWED), `src/${layer}`).toContain(layer);
  });

  it("no layer imports one it must not", () => {
    const broken: string[] = [];
    for (const file of files) {
      const own = relative(SRC, file).split("/")[0]!;
      for (const { layer, spec } of importedLayers(file, readFileSync(file, "utf8"))) {
        if (layer !== own && !ALLOWED[own]!.includes(layer))
          broken.push(`${relative(SRC, file)} imports ${spec} (${layer})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("cli imports no harness, judge or relay module", () => {
    for (const layer of ["harness", "judge", "relay"]) expect(ALLOWED.cli).not.toContain(layer);
  });

  it("detects a forbidden import (the check can fail)", () => {
    const file = join(SRC, "judge/case.ts");
    const found = importedLayers(file, 'import { runCases } from "../harness/controller.ts";');
    expect(found).toEqual([{ layer: "harness", spec: "../harness/controller.ts" }]);
    expect(ALLOWED.judge).not.toContain("harness");
  });
});
