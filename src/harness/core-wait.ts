import { readFileSync } from "node:fs";

/**
 * How long the harness's main thread waited for a core: the kernel's run-queue wait of that thread (the second field
 * of Linux's /proc/<pid>/task/<tid>/schedstat, in ns: time spent runnable but not running). It grows only while the
 * machine gives the harness no core; never while the harness works, so time spent reading and parsing what a relay
 * sends (a relay flooding the harness with 10 MiB frames) is not in it. That is the measure of the harness's own
 * lateness (lateness.ts): a loaded machine can make it late, a relay cannot.
 *
 * A sampler reads the counter every SAMPLE_MS (an unref'd timer) and answers `waitBetween(from, to)` by interpolating
 * between samples. Where the counter does not exist (not Linux), `available` is false and every wait is 0: the
 * harness then never calls itself late, as before this measure existed.
 */

/** How often the counter is read: the resolution of a wait (each read costs a few microseconds). */
export const SAMPLE_MS = 20;
/** How long samples are kept: longer than any case runs. */
const MEMORY_MS = 10 * 60_000;

/** performance.now() and the cumulative run-queue wait (ms) at that moment. */
type Sample = readonly [at: number, waitedMs: number];

const SCHEDSTAT = `/proc/${process.pid}/task/${process.pid}/schedstat`;

/** The main thread's cumulative run-queue wait in ms, or undefined where the kernel does not say. */
export function readRunQueueWaitMs(path = SCHEDSTAT): number | undefined {
  try {
    const fields = readFileSync(path, "utf8").trim().split(/\s+/);
    const ns = Number(fields[1]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

export interface CoreWait {
  /** Whether the wait can be measured here at all. */
  readonly available: boolean;
  /** How long (ms) the harness waited for a core between two performance.now() moments. */
  waitBetween(from: number, to: number): number;
}

export class CoreWaitSampler implements CoreWait {
  private readonly samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;
  readonly available: boolean;

  constructor(
    private readonly read: () => number | undefined = readRunQueueWaitMs,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.available = read() !== undefined;
  }

  start(): void {
    if (this.timer || !this.available) return;
    this.sample();
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    // The sampler never keeps the process alive on its own.
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  sample(): void {
    const waited = this.read();
    if (waited === undefined) return;
    const at = this.now();
    this.samples.push([at, waited]);
    while (this.samples.length > 2 && this.samples[0]![0] < at - MEMORY_MS) this.samples.shift();
  }

  waitBetween(from: number, to: number): number {
    if (!this.available || to <= from) return 0;
    // The latest moment is read now, so a wait that ends at `to` is not missed between two ticks.
    if (to > (this.samples.at(-1)?.[0] ?? Number.NEGATIVE_INFINITY)) this.sample();
    return Math.max(0, this.waitedAt(to) - this.waitedAt(from));
  }

  /** The cumulative wait at `t`, interpolated linearly between the samples around it. */
  private waitedAt(t: number): number {
    const s = this.samples;
    if (s.length === 0) return 0;
    if (t <= s[0]![0]) return s[0]![1];
    for (let i = 1; i < s.length; i++) {
      const [t1, w1] = s[i]!;
      if (t > t1) continue;
      const [t0, w0] = s[i - 1]!;
      return t1 === t0 ? w1 : w0 + ((w1 - w0) * (t - t0)) / (t1 - t0);
    }
    return s.at(-1)![1];
  }
}

const shared = new CoreWaitSampler();
/** The process's sampler (while no run holds it, it samples only when asked). */
export const processCoreWait: CoreWait = shared;
let holders = 0;

/** The process's sampler, running while at least one run holds it; call `release` to let go. */
export function holdCoreWait(): { coreWait: CoreWait; release: () => void } {
  holders++;
  shared.start();
  let released = false;
  return {
    coreWait: shared,
    release: () => {
      if (released) return;
      released = true;
      if (--holders === 0) shared.stop();
    },
  };
}
