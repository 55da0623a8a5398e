/**
 * The harness's own lateness, measured: an interval timer that notes how late each of its ticks fired. A tick due at
 * `due` that ran at `ran` means the harness could not act in [due, ran] (its event loop was busy or its process had
 * no core): anything it was scripted to send meanwhile left that much later. One monitor serves the whole process
 * while any run holds it (`holdStallMonitor`); the lateness verdict (lateness.ts) reads the stalls of a case.
 */

/** How often the monitor ticks: the finest harness delay it can see. */
export const STALL_TICK_MS = 10;
/** A tick later than this is a stall (a timer is always a little late; this is noise). */
const STALL_MIN_MS = 2;
/** How long a stall is remembered: longer than any case runs. */
const STALL_MEMORY_MS = 10 * 60_000;

/** One stretch in which the harness could not act: [start, end] in performance.now() time. */
export type Stall = readonly [start: number, end: number];

export class StallMonitor {
  private readonly stalls: Stall[] = [];
  private timer: NodeJS.Timeout | undefined;
  private due = 0;

  start(): void {
    if (this.timer) return;
    this.due = performance.now() + STALL_TICK_MS;
    this.timer = setInterval(() => this.tick(), STALL_TICK_MS);
    // The monitor never keeps the process alive on its own.
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    const now = performance.now();
    if (now - this.due > STALL_MIN_MS) this.stalls.push([this.due, now]);
    this.due = now + STALL_TICK_MS;
    while (this.stalls.length > 0 && this.stalls[0]![1] < now - STALL_MEMORY_MS) this.stalls.shift();
  }

  /** The stalls that ended after `from`, as [start, end] in ms since `epoch` (a case's mark). */
  since(from: number, epoch = from): Stall[] {
    const out: Stall[] = [];
    for (const [s, e] of this.stalls) if (e > from) out.push([s - epoch, e - epoch]);
    return out;
  }

  /** The share of the last `windowMs` the harness spent stalled (0..1): how loaded it is now. */
  load(windowMs = 2_000): number {
    const now = performance.now();
    let lost = 0;
    for (const [s, e] of this.stalls) if (e > now - windowMs) lost += e - Math.max(s, now - windowMs);
    return Math.min(1, lost / windowMs);
  }
}

const shared = new StallMonitor();
let holders = 0;

/** The process's stall monitor, started while at least one run holds it; call the returned function to let go. */
export function holdStallMonitor(): { monitor: StallMonitor; release: () => void } {
  holders++;
  shared.start();
  let released = false;
  return {
    monitor: shared,
    release: () => {
      if (released) return;
      released = true;
      if (--holders === 0) shared.stop();
    },
  };
}
