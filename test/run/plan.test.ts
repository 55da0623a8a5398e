import { describe, expect, it } from "vitest";
import { TargetProfileSchema } from "../../src/model/target.ts";
import { harnessCannotDrive } from "../../src/run/plan.ts";

const profile = (down: string, up: string) =>
  TargetProfileSchema.parse({
    name: "p",
    command: ["relay"],
    downstream:
      down === "stdio" ? { transport: "stdio" } : { transport: down, url: "http://127.0.0.1:1/mcp" },
    upstream: { transport: up },
  });

describe("harnessCannotDrive: what the harness refuses as undrivable (an error, never a verdict)", () => {
  it("drives 2026-07-28 over stdio and Streamable HTTP, on either side and both", () => {
    for (const [down, up] of [
      ["stdio", "stdio"],
      ["streamable-http", "streamable-http"],
      ["stdio", "streamable-http"],
      ["streamable-http", "stdio"],
    ] as const)
      expect(harnessCannotDrive(profile(down, up), "2026-07-28"), `${down}/${up}`).toBeUndefined();
  });

  it("refuses 2026-07-28 over legacy SSE, naming the side, and never a legacy era", () => {
    expect(harnessCannotDrive(profile("sse", "stdio"), "2026-07-28")).toMatch(
      /no legacy SSE transport.*downstream sse/,
    );
    expect(harnessCannotDrive(profile("stdio", "sse"), "2026-07-28")).toMatch(/upstream sse/);
    expect(harnessCannotDrive(profile("sse", "sse"), "2025-11-25")).toBeUndefined();
  });
});
