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
  const streamCases = cases.filter((c) => c.stream);
  const plan = (up: string, down = "stdio", only = streamCases) =>
    planRun({ register, cases: only, profile: profile(down, up), eras: ["2025-11-25"] as Era[] });

  it("has both forms, related and standalone", () => {
    expect(streamCases.map((c) => c.stream).sort()).toEqual(["related", "standalone"]);
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

describe("planRun: detached cases run on every upstream; answererListens only on a Streamable HTTP downstream", () => {
  const register = loadRegister();
  const detached = loadCases(register).filter((c) => c.detached);
  const plan = (up: string, down: string) =>
    planRun({ register, cases: detached, profile: profile(down, up), eras: ["2025-11-25"] as Era[] });

  it("has the three forms: any answerer, a listening one, one without a GET stream", () => {
    expect(detached.map((c) => [c.id, c.answererListens]).sort()).toEqual([
      ["after-call", undefined],
      ["after-call-listening-answerer", true],
      ["after-call-no-listening-answerer", false],
    ]);
  });

  it("runs all three against a Streamable HTTP downstream, whatever the upstream", () => {
    for (const up of ["stdio", "streamable-http", "sse"]) {
      const p = plan(up, "streamable-http");
      expect(p.work.map((w) => w.kase.id).sort(), up).toEqual([
        "after-call",
        "after-call-listening-answerer",
        "after-call-no-listening-answerer",
      ]);
    }
  });

  it("runs only the plain one on stdio and SSE downstreams, the others n/a with the reason", () => {
    for (const down of ["stdio", "sse"]) {
      const p = plan("stdio", down);
      expect(p.work.map((w) => w.kase.id)).toEqual(["after-call"]);
      expect(p.unrun.map((u) => u.result)).toEqual([
        expect.objectContaining({
          status: "skip",
          na: true,
          reason: expect.stringMatching(/n\/a on a .* downstream/),
        }),
        expect.objectContaining({ status: "skip", na: true }),
      ]);
    }
  });
});
