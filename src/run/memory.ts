import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * What a run's memory may reach before it collects its garbage at once. A relay that sends 10 MiB in every result
 * leaves some 10 MiB copies of garbage per case (the bytes read, the line, the parsed value, what the judge
 * serialises), while what a run keeps of a case is small (its case results: src/run/live.ts). V8 lets garbage pile up
 * until its own heap limit (about 4 GB here) says otherwise; so once the process's resident memory passes this mark,
 * the run asks for a full collection after the case (only then: a well-behaved relay's run stays far below it, about
 * 150 MB, and never pays for one).
 */
export const COLLECT_ABOVE_RSS_BYTES = 256 * 1024 * 1024;

let collector: (() => void) | null | undefined;
let pending = false;

/** V8's full collection, exposed once for this process (undefined where the engine refuses). */
function fullCollection(): (() => void) | undefined {
  if (collector === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      collector = runInNewContext("gc") as () => void;
    } catch {
      collector = null;
    }
  }
  return collector ?? undefined;
}

/** Collects garbage now if resident memory is above `limit`; returns whether it did. */
export function collectAbove(limit: number = COLLECT_ABOVE_RSS_BYTES): boolean {
  if (process.memoryUsage.rss() <= limit) return false;
  const gc = fullCollection();
  gc?.();
  return gc !== undefined;
}

/**
 * After a case: once the stack that held its full observation has unwound (the next turn of the event loop), collect
 * if memory is above the mark. Cases that end together share one check.
 */
export function collectAfterCase(limit: number = COLLECT_ABOVE_RSS_BYTES): void {
  if (pending) return;
  pending = true;
  setImmediate(() => {
    pending = false;
    collectAbove(limit);
  });
}
