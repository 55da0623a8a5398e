import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * How much of V8's heap a run may use before it collects its garbage at once. A relay that sends 10 MiB in every
 * result leaves some 10 MiB copies of garbage per frame (the line read, the parsed value, what the judge serialises),
 * while what a run keeps of a case is small (its case results: src/run/live.ts). V8 lets garbage pile up until its own
 * heap limit (about 4 GB here) says otherwise; so once the heap in use passes this mark, the run asks for a full
 * collection (only then: a well-behaved relay's run stays far below it and never pays for one).
 */
export const COLLECT_ABOVE_HEAP_BYTES = 128 * 1024 * 1024;
/** How often a run looks at its resident memory while cases run (a tool loop's rounds arrive within one case). */
export const MEMORY_CHECK_MS = 100;
/**
 * After a collection that leaves the heap above the mark (what is live is that large), the next one waits until it
 * has grown this much more, so a run whose live memory is large does not collect on every check.
 */
const HEADROOM_BYTES = 64 * 1024 * 1024;

let collector: (() => void) | null | undefined;

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

/** The heap V8 uses now, garbage included, in bytes. */
const heapUsed = (): number => getHeapStatistics().used_heap_size;

/**
 * Watches V8's heap while a run's cases run: every MEMORY_CHECK_MS, and after each case (`afterCase`), it collects
 * garbage when the heap in use is above `limit` (or above what the last collection left plus HEADROOM_BYTES). `stop`
 * ends the watch and returns how many collections it made.
 */
export function watchMemory(limit: number = COLLECT_ABOVE_HEAP_BYTES) {
  let mark = limit;
  let collections = 0;
  const check = (): void => {
    if (heapUsed() <= mark) return;
    const gc = fullCollection();
    if (!gc) return;
    gc();
    collections++;
    const left = heapUsed();
    mark = left > limit ? left + HEADROOM_BYTES : limit;
  };
  const timer = setInterval(check, MEMORY_CHECK_MS);
  timer.unref();
  let pending = false;
  return {
    /** After a case: once the stack that held its full observation has unwound (the next turn of the event loop). */
    afterCase(): void {
      if (pending) return;
      pending = true;
      setImmediate(() => {
        pending = false;
        check();
      });
    },
    stop(): number {
      clearInterval(timer);
      return collections;
    },
  };
}
