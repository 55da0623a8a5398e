import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { globSync } from "tinyglobby";
import { describe, expect, it } from "vitest";
import { UNIT } from "../../vitest.config.ts";

/**
 * The `unit` lane (npm run test:unit) is the fast one because it starts nothing: no file of it may spawn a process,
 * open a socket or drive the CLI. A test that needs a relay belongs in the `e2e` lane (every other test file).
 */
const ROOT = resolve(import.meta.dirname, "../..");
/** Modules that start processes or sockets, imported; or the CLI helpers that run the command, called. */
const STARTS =
  /from\s+["'](?:node:child_process|node:net|node:http|[./]*src\/run\/pipeline\.ts|[./]*src\/harness\/(?:controller|session|isolation|endpoints)\.ts|[./]*src\/fuzz\/differential\.ts)["']|\b(?:cli|cliInProcess)\(/;

describe("test lanes", () => {
  it("the unit lane starts no process and opens no socket", () => {
    const files = globSync(UNIT, { cwd: ROOT, ignore: ["test/**/*.browser.test.ts"] });
    expect(files.length).toBeGreaterThan(40);
    const starting = files.filter((f) => STARTS.test(readFileSync(join(ROOT, f), "utf8")));
    expect(starting).toEqual([]);
  });
});
