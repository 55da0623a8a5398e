import { describe, expect, it } from "vitest";
import { loadCases, loadRegister } from "../../src/model/load.ts";
import { TargetProfileSchema } from "../../src/model/target.ts";
import type { Era } from "../../src/protocol/eras.ts";
import { harnessCannotDrive, planRun } from "../../src/run/plan.ts";

const profile = (down: string, up: string) =>
  TargetProfileSchema.parse({
    name: "p",
    command: ["relay"],
    downstream:
      down === "stdio" ? { transport: "stdio" } : { transport: down, url: "http://127.0.0.1:1/mcp" },
    upstream: { transport: up },
  });

describe("harnessCannotDrive: a 2026-07-28 end over legacy SSE cannot exist (n/a, never a verdict)", () => {
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

describe("planRun: stream cases (sampling-relay-unrelated-requests) apply to Streamable HTTP upstreams only", () => {
  const register = loadRegister();
  const cases = loadCases(register).filter((c) => c.row === "sampling-relay-unrelated-requests");
  const plan = (up: string) =>
    planRun({ register, cases, profile: profile("stdio", up), eras: ["2025-11-25"] as Era[] });

  it("has both forms, related and standalone", () => {
    expect(cases.map((c) => c.stream).sort()).toEqual(["related", "standalone"]);
  });

  it("runs them on a Streamable HTTP upstream", () => {
    const p = plan("streamable-http");
    expect(p.work.map((w) => w.kase.id).sort()).toEqual(["related-stream", "standalone-stream"]);
    expect(p.unrun).toEqual([]);
  });

  it("records them n/a, with the reason, on stdio and legacy SSE upstreams", () => {
    for (const up of ["stdio", "sse"]) {
      const p = plan(up);
      expect(p.work).toEqual([]);
      expect(p.unrun.map((u) => u.result)).toEqual([
        expect.objectContaining({
          status: "skip",
          na: true,
          reason: expect.stringMatching(/standalone GET stream/),
        }),
        expect.objectContaining({ status: "skip", na: true }),
      ]);
    }
  });
});
