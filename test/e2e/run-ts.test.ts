import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/model/load.ts";
import { tempDir } from "../helpers/cli.ts";

/**
 * targets/run-ts.mjs, the launcher of the repository's TypeScript relays (broken relays, brokers): it runs a relay's
 * build while that is newer than every source, else the TypeScript through tsx, and the relay reads its own arguments
 * as if started directly. Checked in a copy of the layout (src/, targets/, dist/targets/) with a relay that says where
 * it runs from, so that no file of the repository is touched.
 */
let root: string;
const relay = (from: string) =>
  `process.stdout.write(${JSON.stringify(from)} + " " + JSON.stringify(process.argv.slice(2)));\n`;
const at = (path: string, secondsAgo: number) => {
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(path, t, t);
};

beforeAll(() => {
  root = tempDir();
  for (const dir of ["src", "targets/broken/relays", "dist/targets/broken/relays"])
    mkdirSync(join(root, dir), { recursive: true });
  copyFileSync(join(PROJECT_ROOT, "targets/run-ts.mjs"), join(root, "targets/run-ts.mjs"));
  symlinkSync(join(PROJECT_ROOT, "node_modules"), join(root, "node_modules"));
  // As in the repository: its TypeScript is ES modules.
  writeFileSync(join(root, "package.json"), '{ "type": "module" }\n');
  writeFileSync(join(root, "src/some.ts"), "export {};\n");
  writeFileSync(
    join(root, "targets/broken/relays/echo.ts"),
    `const from: string = "typescript";\n${relay("").replace('""', "from")}`,
  );
  writeFileSync(join(root, "dist/targets/broken/relays/echo.mjs"), relay("build"));
});

function launch(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, ["../run-ts.mjs", ...args], {
    cwd: join(root, "targets/broken"),
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, MCPX_CONFORM_DEBUG: "1", MCPX_CONFORM_FROM_SOURCE: "", ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("targets/run-ts.mjs", () => {
  it("runs the relay's build while it is newer than every source, with the relay's own arguments", () => {
    for (const f of ["src/some.ts", "targets/broken/relays/echo.ts"]) at(join(root, f), 60);
    at(join(root, "dist/targets/broken/relays/echo.mjs"), 0);
    const r = launch(["relays/echo.ts", "--answer-timeout-ms", "1500", "--", "up"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('build ["--answer-timeout-ms","1500","--","up"]');
    expect(r.stderr).toContain("run-ts: the build dist/targets/broken/relays/echo.mjs");
  });

  it("runs the TypeScript through tsx when a source under src/ or the relays' folder is newer than the build", () => {
    at(join(root, "dist/targets/broken/relays/echo.mjs"), 30);
    for (const [stale, file] of [
      ["src/some.ts", "src/some.ts"],
      ["targets/broken/relays/echo.ts", "targets/broken/relays/echo.ts"],
    ] as const) {
      for (const f of ["src/some.ts", "targets/broken/relays/echo.ts"]) at(join(root, f), 60);
      at(join(root, file), 0);
      const r = launch(["relays/echo.ts", "-x"]);
      expect(r.stdout, stale).toBe('typescript ["-x"]');
      expect(r.stderr, stale).toContain("through tsx");
    }
    // MCPX_CONFORM_FROM_SOURCE=1 asks for the sources whatever the build.
    for (const f of ["src/some.ts", "targets/broken/relays/echo.ts"]) at(join(root, f), 60);
    at(join(root, "dist/targets/broken/relays/echo.mjs"), 0);
    expect(launch(["relays/echo.ts"], { MCPX_CONFORM_FROM_SOURCE: "1" }).stdout).toBe("typescript []");
  });

  it("refuses what is not a TypeScript relay, with a usage line and exit 2", () => {
    const r = launch(["relays/missing.ts"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/usage: run-ts\.mjs RELAY\.ts ARGS… \(no TypeScript relay at .*missing\.ts\)/);
  });
});
