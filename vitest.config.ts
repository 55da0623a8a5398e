import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Four projects, four lanes:
 * - `unit`: the pure layers (validator, judge, model, protocol, matrix rendering, the plan and the scheduler's
 *   inputs, the fuzz generators, the harness's pure parts) and the architecture rules. No relay process, no socket,
 *   no CLI: `npm run test:unit`, well under a minute.
 * - `e2e`: everything that starts a process or a socket: real relays (the reference relay, the broken, hostile and
 *   foreign ones), the CLI, the package tarball.
 * - `e2e-solo`: the files that keep both cores busy on their own (E2E_SOLO): the kill matrix, the published
 *   relays' matrices, and a run beside busy processes (loaded-runner).
 * - `browser`: matrix.html and the report site in Debian's chromium.
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

const BROWSER = ["test/**/*.browser.test.ts"];

/** The e2e files that run several harness runs at once themselves: beside another file they would oversubscribe. */
export const E2E_SOLO = [
  "test/kill-matrix.test.ts",
  "test/e2e/real-relays.test.ts",
  // It loads the machine on purpose (busy processes beside a run): it must not slow another file's timing.
  "test/e2e/loaded-runner.test.ts",
];

/** The pure tests: by folder, and the harness's and run layer's files that start nothing. */
export const UNIT = [
  "test/architecture/**/*.test.ts",
  "test/docs/**/*.test.ts",
  "test/validator/!(cli).test.ts",
  "test/judge/**/*.test.ts",
  "test/model/compact.test.ts",
  "test/model/package.test.ts",
  "test/model/evidence-budget.test.ts",
  "test/model/kill-matrix.test.ts",
  "test/model/stable.test.ts",
  "test/model/wire-schema.test.ts",
  "test/protocol/**/*.test.ts",
  "test/matrix/compare.test.ts",
  "test/matrix/fixtures.test.ts",
  "test/matrix/fuzz-render.test.ts",
  "test/matrix/github.test.ts",
  "test/matrix/html.test.ts",
  "test/matrix/junit.test.ts",
  "test/matrix/markdown.test.ts",
  "test/matrix/mcpx.test.ts",
  "test/matrix/pr-comment.test.ts",
  "test/matrix/register.test.ts",
  "test/matrix/root-cause.test.ts",
  "test/matrix/site.test.ts",
  "test/run/config.test.ts",
  "test/run/plan.test.ts",
  "test/run/progress.test.ts",
  "test/run/shard.test.ts",
  "test/fuzz/mutations.test.ts",
  "test/fuzz/values.test.ts",
  "test/fuzz/ids.test.ts",
  "test/harness/jsonrpc-peer.test.ts",
  "test/harness/frames.test.ts",
  "test/harness/line-splitter.test.ts",
  "test/harness/mrtr.test.ts",
  "test/harness/probe-call.test.ts",
  "test/harness/profile-files.test.ts",
  "test/harness/redact.test.ts",
  "test/harness/wire-tap.test.ts",
  "test/harness/env.test.ts",
  "test/harness/answers-schema.test.ts",
  "test/harness/scheduler.test.ts",
  "test/harness/bound.test.ts",
  "test/harness/core-load.test.ts",
  "test/harness/lateness.test.ts",
];

export default defineConfig({
  test: {
    projects: [
      // The pure tests start no process: they need no build (the other lanes build it first).
      {
        test: {
          ...shared,
          globalSetup: [],
          name: "unit",
          include: UNIT,
          exclude: BROWSER,
          maxWorkers: availableParallelism(),
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: "e2e",
          include: ["test/**/*.test.ts"],
          exclude: [...UNIT, ...BROWSER, ...E2E_SOLO],
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 1 },
        },
      },
      { test: { ...shared, name: "e2e-solo", include: E2E_SOLO, sequence: { groupOrder: 2 } } },
      { test: { ...shared, name: "browser", include: BROWSER, sequence: { groupOrder: 3 } } },
    ],
  },
});
