import { describe, expect, it } from "vitest";
import { watchMemory } from "../../src/run/memory.ts";

/** The run's memory watch (src/run/memory.ts): it collects garbage once the heap in use is above its mark, only then. */
describe("watchMemory", () => {
  const turn = () => new Promise((r) => setImmediate(r));

  it("collects after a case once the heap in use is above the mark", async () => {
    const watch = watchMemory(1);
    // Garbage of the kind a relay's 10 MiB frames leave: strings no one holds any more.
    for (let i = 0; i < 4; i++) JSON.parse(JSON.stringify({ pad: `${"x".repeat(8 * 1024 * 1024)}${i}` }));
    watch.afterCase();
    await turn();
    expect(watch.stop()).toBeGreaterThanOrEqual(1);
  });

  it("never collects while the heap is below the mark", async () => {
    const watch = watchMemory(Number.MAX_SAFE_INTEGER);
    watch.afterCase();
    await turn();
    expect(watch.stop()).toBe(0);
  });
});
