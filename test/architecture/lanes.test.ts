import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { globSync } from "tinyglobby";
import { describe, expect, it } from "vitest";
import config, { ALL_TESTS, BROWSER, E2E, E2E_SOLO } from "../../vitest.config.ts";
import { startingChain } from "./imports.ts";

/**
 * The lanes are chosen by name or folder (vitest.config.ts): `unit` is every test file that is not `*.e2e.test.ts`,
 * under test/e2e/, in E2E_SOLO or a browser test. The unit lane is the fast one because it starts nothing: none of
 * its files may import, directly or through any module it imports (test helpers and src/ alike), what spawns a
 * process or opens a socket. And a slow lane holds only files that do: a pure test named `*.e2e.test.ts` would wait
 * behind the relays for nothing. Static, on value imports (`import type` starts nothing).
 */
const ROOT = resolve(import.meta.dirname, "../..");

const readModule = (path: string) =>
  /\.(?:ts|mts|mjs|js)$/.test(path) && existsSync(path) ? readFileSync(path, "utf8") : undefined;
const starts = (file: string) =>
  startingChain(join(ROOT, file), readModule)
    ?.map((p) => (p.startsWith("/") ? relative(ROOT, p) : p))
    .join(" > ");

const glob = (patterns: string[], ignore: string[] = []) => globSync(patterns, { cwd: ROOT, ignore }).sort();
const unit = glob(ALL_TESTS, [...E2E, ...E2E_SOLO, ...BROWSER]);
const slow = glob([...E2E, ...E2E_SOLO], BROWSER);

describe("test lanes (vitest.config.ts)", () => {
  it("the projects take their files from these names and folders", () => {
    const projects = Object.fromEntries(
      ((config.test?.projects ?? []) as Array<{ test: { name: string; include: string[] } }>).map((p) => [
        p.test.name,
        p.test,
      ]),
    );
    expect(projects.unit).toMatchObject({ include: ALL_TESTS, exclude: [...E2E, ...E2E_SOLO, ...BROWSER] });
    expect(projects.e2e).toMatchObject({ include: E2E, exclude: [...BROWSER, ...E2E_SOLO] });
    expect(projects["e2e-solo"]).toMatchObject({ include: E2E_SOLO });
    expect(projects.browser).toMatchObject({ include: BROWSER });
    for (const file of E2E_SOLO) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });

  it("a file of the unit lane starts no process and opens no socket, through any module it imports", () => {
    expect(unit.length).toBeGreaterThan(50);
    expect(unit.filter(starts).map((f) => `${f}: ${starts(f)}`)).toEqual([]);
  });

  it("a file that starts nothing is not in a slow lane (name it *.test.ts, outside test/e2e/)", () => {
    expect(slow.length).toBeGreaterThan(30);
    expect(slow.filter((f) => !starts(f))).toEqual([]);
  });

  it("finds a process started through a helper, and none through a type-only import (the check can fail)", () => {
    const files: Record<string, string> = {
      "/t/a.test.ts": 'import { x } from "../h/helper.ts";\nimport type { Y } from "../h/types.ts";',
      "/h/helper.ts": 'export { x } from "./spawns.ts";',
      "/h/spawns.ts": 'import { spawn } from "node:child_process";\nexport const x = spawn;',
      "/h/types.ts": 'import type { Server } from "node:net";\nexport type Y = Server;',
      "/t/b.test.ts": 'import type { Y } from "../h/types.ts";\nconst m = await import("../h/helper.ts");',
      "/t/c.test.ts": 'import type { Y } from "../h/types.ts";',
    };
    const read = (p: string) => files[p];
    expect(startingChain("/t/a.test.ts", read)).toEqual([
      "/t/a.test.ts",
      "/h/helper.ts",
      "/h/spawns.ts",
      "node:child_process",
    ]);
    expect(startingChain("/t/b.test.ts", read)?.at(-1)).toBe("node:child_process");
    expect(startingChain("/t/c.test.ts", read)).toBeUndefined();
  });
});
