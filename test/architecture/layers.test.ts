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
  // the reports show what each check proves: matrix reads the check table (judge/checks), never the rest of the judge
  matrix: ["judge/checks", "model", "protocol", "validator"],
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

/** Every relative import of a file, as the layer (top folder under src/) it lands in, and the path there. */
function importedLayers(file: string, text: string): Array<{ layer: string; spec: string; target: string }> {
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]!);
  return specs.map((spec) => {
    const target = relative(SRC, resolve(join(file, ".."), spec));
    return { layer: target.split("/")[0]!, spec, target };
  });
}

/** Whether `own` may import `target`: its layer is allowed, or a folder of it that is (`judge/checks`). */
const mayImport = (own: string, layer: string, target: string) =>
  layer === own || ALLOWED[own]!.some((a) => a === layer || target.startsWith(`${a}/`));

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
      for (const { layer, spec, target } of importedLayers(file, readFileSync(file, "utf8"))) {
        if (!mayImport(own, layer, target)) broken.push(`${relative(SRC, file)} imports ${spec} (${layer})`);
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
    expect(found).toEqual([
      { layer: "harness", spec: "../harness/controller.ts", target: "harness/controller.ts" },
    ]);
    expect(mayImport("judge", "harness", "harness/controller.ts")).toBe(false);
    // matrix may read the check table, not the rest of the judge
    expect(mayImport("matrix", "judge", "judge/checks/index.ts")).toBe(true);
    expect(mayImport("matrix", "judge", "judge/case.ts")).toBe(false);
  });
});
