import { defineConfig } from "vitest/config";

/**
 * Two projects: `unit` (everything that needs only Node: unit, property and end-to-end tests against real relay
 * processes) and `browser` (matrix.html in Debian's chromium). `npm test` runs both; a machine without chromium
 * runs `npx vitest run --project unit` and stays green.
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

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["test/**/*.browser.test.ts"],
        },
      },
      { test: { ...shared, name: "browser", include: ["test/**/*.browser.test.ts"] } },
    ],
  },
});
