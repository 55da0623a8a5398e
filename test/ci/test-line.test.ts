import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.ts";

/** CI runs the README's test line as written, so a fresh machine that follows the README does what CI does. */
describe("the README's test line", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const line = /Run the tests:\s*```sh\n([^\n]+)\n```/.exec(readme)?.[1];

  it("sets the machine up before the tests", () => {
    expect(line).toBe("npm ci && npm run test:setup && npm test");
  });

  it("is the line .ci/run runs", () => {
    const ci = readFileSync(join(ROOT, ".ci/run"), "utf8").split("\n");
    expect(ci.some((l) => l.startsWith(line!))).toBe(true);
  });
});
