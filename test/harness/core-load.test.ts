import { describe, expect, it } from "vitest";
import { busySince } from "../../src/harness/core-load.ts";

/** The machine-load sampler behind the split rule (src/harness/core-load.ts): a share of every core's time. */
describe("busySince", () => {
  it("reads a share between 0 and 1, above 0 while this process keeps a core busy", () => {
    const busy = busySince();
    const end = performance.now() + 200;
    let spins = 0;
    while (performance.now() < end) spins++;
    const share = busy();
    expect(spins).toBeGreaterThan(0);
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThanOrEqual(1);
  });
});
