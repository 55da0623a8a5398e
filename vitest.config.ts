import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Four projects, four lanes, chosen by a test file's name or folder (no list of files to keep up to date):
 * - `unit`: every `*.test.ts` under test/ in no other lane: the pure layers, the harness's and run layer's pure parts and the
 *   architecture rules. No relay process, no socket, no CLI: `npm run test:unit`, well under a minute.
 *   test/architecture/lanes.test.ts fails when one of its files imports what starts a process or a socket.
 * - `e2e`: what starts a process or a socket (real relays, the CLI, the package tarball, a loopback server): the
 *   files under `test/e2e/` and every `*.e2e.test.ts`. lanes.test.ts fails when one of them starts nothing.
 * - `e2e-solo`: the two e2e files that keep both cores busy on their own (E2E_SOLO): the kill matrix and the
 *   published relays' matrices.
 * - `browser`: `*.browser.test.ts`, matrix.html and the report site in Debian's chromium.
 * `npm test` runs all four, in that order (`sequence.groupOrder`). The pure tests start no process and wait on
 * nothing, so they take every core (vitest's default leaves one free). `e2e` runs two files at a time even on a
 * 2-core machine: its files mostly wait on relays and deadlines (one at a time, they kept
 * about one of the two cores busy: 623 s of CPU in 587 s).
 * `e2e-solo` and `browser` keep vitest's default, one file at a time on a 2-core machine.
 */
const shared = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: "forks" as const,
  // Each test file gets its own temporary root, removed after the file (nothing is left in /tmp).
  setupFiles: ["test/setup/temp.ts"],
  // The compiled CLI is built once before the tests (relays then start without tsx).
  globalSetup: ["test/setup/build.ts"],
};

export const ALL_TESTS = ["test/**/*.test.ts"];
export const BROWSER = ["test/**/*.browser.test.ts"];
/** What starts a process or a socket, by folder or by name. */
export const E2E = ["test/e2e/**/*.test.ts", "test/**/*.e2e.test.ts"];
/** The e2e files that run several harness runs at once themselves: beside another file they would oversubscribe. */
export const E2E_SOLO = ["test/kill-matrix.test.ts", "test/e2e/real-relays.test.ts"];

export default defineConfig({
  test: {
    projects: [
      // The pure tests start no process: they need no build (the other lanes build it first).
      {
        test: {
          ...shared,
          globalSetup: [],
          name: "unit",
          include: ALL_TESTS,
          exclude: [...E2E, ...E2E_SOLO, ...BROWSER],
          maxWorkers: availableParallelism(),
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: "e2e",
          include: E2E,
          exclude: [...BROWSER, ...E2E_SOLO],
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 1 },
        },
      },
      { test: { ...shared, name: "e2e-solo", include: E2E_SOLO, sequence: { groupOrder: 2 } } },
      { test: { ...shared, name: "browser", include: BROWSER, sequence: { groupOrder: 3 } } },
    ],
  },
});
