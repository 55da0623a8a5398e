import { describe, expect, it } from "vitest";
import { runTwice } from "../helpers/cli.ts";
import { runFiles } from "../helpers/wall-clock.ts";

/**
 * Determinism: the same target, seed, era and rows give the same results.json and the same evidence, byte for byte
 * once wall-clock facts are taken out (test/helpers/wall-clock.ts says which). Two runs of the reference relay (one
 * era, the round trip, the expiry case and the result-schema cases) are compared file by file.
 */
const ARGS = [
  "run",
  "--target",
  "targets/reference.yaml",
  "--era",
  "2025-11-25",
  "--rows",
  "sampling-relay-roundtrip,sampling-relay-expiry-reported,sampling-result-schema",
  "--seed",
  "11",
  "--quiet",
];

describe("determinism", () => {
  it("the same seed and target give identical results.json and evidence, timing aside", async () => {
    const [a, b] = await runTwice(ARGS);
    const first = runFiles(a);
    const second = runFiles(b);
    expect([...second.keys()]).toEqual([...first.keys()]);
    expect(first.size).toBeGreaterThanOrEqual(1 + 8);
    expect([...first.keys()].some((f) => f.includes("no-answer-expires"))).toBe(true);
    for (const [file, content] of first) expect(second.get(file), file).toEqual(content);
  }, 120_000);
});
