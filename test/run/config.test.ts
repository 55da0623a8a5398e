import { describe, expect, it } from "vitest";
import { resolveRunConfig } from "../../src/run/config.ts";

/** --era against a profile's `eras:`: the command line wins; the profile's list is only the default. */
describe("run --era and a profile's eras", () => {
  const target = "targets/real/civic-passthrough.yaml"; // eras: [2024-11-05, 2025-11-25]

  it("runs the profile's eras when --era is not given", () => {
    const config = resolveRunConfig({ target });
    expect(config.eras).toEqual(["2024-11-05", "2025-11-25"]);
    expect(config.notes).toEqual([]);
  });

  it("widens the profile's eras with --era, and says which were not listed", () => {
    const config = resolveRunConfig({ target, era: "2025-06-18,2025-11-25" });
    expect(config.eras).toEqual(["2025-06-18", "2025-11-25"]);
    expect(config.notes).toEqual([
      "mcpx-conform: --era 2025-06-18: not in the profile's eras (2024-11-05, 2025-11-25); run as asked",
    ]);
  });

  it("still refuses an era that does not exist", () => {
    expect(() => resolveRunConfig({ target, era: "2025-99-99" })).toThrow(/unknown era '2025-99-99'/);
  });
});

describe("run --max-evidence-frame-bytes", () => {
  it("defaults to 64 KiB and takes a whole number of at least 1024", () => {
    expect(resolveRunConfig({}).maxEvidenceFrameBytes).toBe(64 * 1024);
    expect(resolveRunConfig({ maxEvidenceFrameBytes: "4096" }).maxEvidenceFrameBytes).toBe(4096);
    for (const bad of ["1023", "0", "abc", "1.5"])
      expect(() => resolveRunConfig({ maxEvidenceFrameBytes: bad })).toThrow(/at least 1024/);
  });
});
