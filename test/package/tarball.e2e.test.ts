import { execFile } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT, tempDir } from "../helpers/cli.ts";

/**
 * SLOW (about a minute: npm pack with its prepack build and declarations, an npm install from the warm cache, two
 * runs): the package as a user gets it. The tarball is packed, installed into an empty project, and run there with
 * `npx mcpx-conform run` against the installed reference relay (exit 0) and a broken relay (exit 1), reports landing
 * in ./mcpx-conform-report/ of that project. The tarball must hold the runtime and no tests or committed evidence.
 */

const run = promisify(execFile);
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const NPX = process.platform === "win32" ? "npx.cmd" : "npx";

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: Array<{ path: string; size: number }>;
}

let packed: Packed;
let tarball: string;
let project: string;

async function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  try {
    const r = await run(cmd, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw error;
    return { code: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

function profile(name: string, command: string[]): string {
  return `name: ${name}\ncommand: ${JSON.stringify(command)}\ndownstream: { transport: stdio }\nupstream: { transport: stdio }\nanswerer: { kind: client }\nstartupTimeoutMs: 20000\nanswerTimeoutMs: 1500\ncaseTimeoutMs: 6000\n`;
}

beforeAll(async () => {
  const started = Date.now();
  const out = tempDir("mcpx-conform-pack-");
  const r = await sh(NPM, ["pack", "--json", "--pack-destination", out], ROOT);
  expect(r.code, r.stderr).toBe(0);
  packed = (JSON.parse(r.stdout.slice(r.stdout.indexOf("["))) as Packed[])[0]!;
  tarball = join(out, packed.filename);
  console.log(
    `npm pack: ${packed.entryCount} files, ${packed.size} bytes packed, ${packed.unpackedSize} unpacked (${Date.now() - started} ms)`,
  );
  project = tempDir("mcpx-conform-consumer-");
  expect((await sh(NPM, ["init", "-y"], project)).code).toBe(0);
  const installed = Date.now();
  const i = await sh(NPM, ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund"], project);
  expect(i.code, i.stderr).toBe(0);
  console.log(`npm install of the tarball: ${Date.now() - installed} ms`);
}, 240_000);

describe("the npm package (SLOW: packs, installs and runs the tarball)", () => {
  it("ships the runtime, the corpus and the reference relay, and no tests or committed evidence", () => {
    const paths = packed.files.map((f) => f.path);
    for (const needed of [
      "bin/mcpx-conform.js",
      "dist/cli/main.mjs",
      "dist/cli/relay.cjs",
      "dist/lib/index.mjs",
      "dist/types/index.d.ts",
      "dist/schemas/target.schema.json",
      "dist/schemas/case.schema.json",
      "dist/schemas/results.schema.json",
      "src/harness/upstream-shim.mjs",
      "src/protocol/schema/2026-07-28.json",
      "src/protocol/schema/provenance.json",
      "src/matrix/templates/matrix.md.hbs",
      "matrix/register.yaml",
      "matrix/tracking/dezren39-darwin-nix-256.yaml",
      "targets/reference.yaml",
      "targets/reference-review.yaml",
      "cases/sampling-relay-roundtrip/text-roundtrip.yaml",
      "action.yml",
      "docs/ci.md",
    ])
      expect(paths, needed).toContain(needed);
    // Every page of docs/ the README links: a package user reads them beside it (the screenshot is left out).
    const linked = [
      ...readFileSync(join(ROOT, "README.md"), "utf8").matchAll(/\]\((docs\/[^)#]+\.md)[)#]/g),
    ].map((m) => m[1]!);
    expect(linked.length).toBeGreaterThan(8);
    for (const page of linked) expect(paths, `README links ${page}`).toContain(page);
    expect(paths.filter((p) => /^(test|bench|scripts|reports|coverage)\//.test(p))).toEqual([]);
    expect(paths.filter((p) => p.startsWith("matrix/targets/") || p.includes("/evidence/"))).toEqual([]);
    expect(
      paths.filter((p) => p.startsWith("targets/") && !/^targets\/reference(-review)?\.yaml$/.test(p)),
    ).toEqual([]);
    expect(paths.filter((p) => /^src\/.*\.ts$/.test(p) || p.endsWith(".map"))).toEqual([]);
    // 1,323 files and 12 MB unpacked before `files` (tests and matrix/targets evidence included).
    expect(packed.entryCount).toBeLessThan(400);
    // About 3.3 MB: the self-contained relay bundle carries its dependencies (the SDK, zod, ajv, re2js), the
    // official schemas of five MCP revisions, vendored verbatim, are 0.64 MB, and the docs/ pages 0.29 MB (0.12 MB of
    // them the published relays' pages, docs/real-relays/, which the README links).
    expect(packed.unpackedSize).toBeLessThan(3_500_000);
  });

  it("npx mcpx-conform run: the installed reference relay passes (0), a broken relay fails (1), reports in ./mcpx-conform-report/", async () => {
    writeFileSync(
      join(project, "reference.yaml"),
      profile("installed-reference", [
        "node",
        "node_modules/mcpx-conform/bin/mcpx-conform.js",
        "relay",
        "--answer-timeout-ms",
        "1500",
        "--",
        "{{upstream.command}}",
      ]),
    );
    copyFileSync(join(ROOT, "targets/broken/relays/naive-passthrough.mjs"), join(project, "passthrough.mjs"));
    writeFileSync(
      join(project, "broken.yaml"),
      profile("passthrough", ["node", "passthrough.mjs", "{{upstream.command}}"]),
    );
    const args = [
      "--era",
      "2025-11-25",
      "--rows",
      "sampling-relay-roundtrip,sampling-result-schema",
      "--quiet",
    ];
    const started = Date.now();
    const good = await sh(NPX, ["mcpx-conform", "run", "--target", "reference.yaml", ...args], project);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stderr).toContain("→ mcpx-conform-report");
    const report = join(project, "mcpx-conform-report");
    for (const f of ["results.json", "matrix.md", "pr-comment.md", "matrix.html", "junit.xml"])
      expect(existsSync(join(report, f)), f).toBe(true);
    expect(JSON.parse(readFileSync(join(report, "results.json"), "utf8")).target.name).toBe(
      "installed-reference",
    );
    const bad = await sh(NPX, ["mcpx-conform", "run", "--target", "broken.yaml", ...args], project);
    expect(bad.code, bad.stderr).toBe(1);
    const results = JSON.parse(readFileSync(join(report, "results.json"), "utf8"));
    expect(results.target.name).toBe("passthrough");
    expect(results.summary.fail).toBeGreaterThan(0);
    // The second run replaced the first one's evidence: every transcript is the broken relay's.
    const evidence = readdirSync(join(report, "evidence"), { recursive: true }).filter((f) =>
      String(f).endsWith(".json"),
    );
    expect(evidence.length).toBeGreaterThan(0);
    for (const f of evidence)
      expect(JSON.parse(readFileSync(join(report, "evidence", String(f)), "utf8")).target.name).toBe(
        "passthrough",
      );
    console.log(`two npx runs in the installed project: ${Date.now() - started} ms`);
  }, 120_000);

  it("the library API: run, the validator and the types, from the installed package", async () => {
    writeFileSync(
      join(project, "use.mjs"),
      `import { run, validateRequest, ERAS } from "mcpx-conform";
const v = validateRequest({ messages: "not a list", maxTokens: 1 }, { era: "2025-11-25" });
const o = await run({ target: "reference.yaml", era: "2025-11-25", rows: "sampling-relay-roundtrip", out: "lib-report" });
console.log(JSON.stringify({ eras: ERAS.length, legal: v.legal, code: o.code, pass: o.results.summary.pass }));
`,
    );
    const r = await sh(process.execPath, ["use.mjs"], project);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!)).toEqual({
      eras: 5,
      legal: false,
      code: 0,
      pass: 1,
    });
    // The declarations type-check in a consumer (NodeNext resolution through `exports`).
    writeFileSync(
      join(project, "use.ts"),
      `import { type Case, type Results, run, type TargetProfile, validateRequest, type Verdict } from "mcpx-conform";
const verdict: Verdict = validateRequest({}, { era: "2025-11-25" });
const outcome: Promise<{ code: number; results: Results }> = run({ target: "reference.yaml" });
export type Both = [Case, TargetProfile];
export { outcome, verdict };
`,
    );
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ["use.ts"],
      }),
    );
    const tsc = await sh(
      process.execPath,
      [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "."],
      project,
    );
    expect(tsc.code, tsc.stdout).toBe(0);
    // mcpx-conform/vitest resolves through `exports` to the built entry (vitest itself is the consumer's).
    const entry = await sh(
      process.execPath,
      ["--input-type=module", "-e", 'console.log(import.meta.resolve("mcpx-conform/vitest"))'],
      project,
    );
    expect(entry.stdout.trim()).toMatch(/node_modules\/mcpx-conform\/dist\/lib\/vitest\.mjs$/);
  }, 120_000);
});
