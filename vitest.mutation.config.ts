import { defineConfig } from "vitest/config";

/**
 * The tests Stryker runs for `npm run mutation`: the reference validator's and the judge's unit tests only
 * (pure functions, fast). The validator CLI test is left out: it runs the CLI as a child process, which the
 * mutation run cannot see into.
 */
export default defineConfig({
  test: {
    include: ["test/validator/**/*.test.ts", "test/judge/**/*.test.ts"],
    exclude: ["test/**/*.e2e.test.ts"],
    testTimeout: 60_000,
  },
});
