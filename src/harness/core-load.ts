import { cpus } from "node:os";

/** A split is worth its relay start only when the cores were less busy than this during the hold (controller.ts). */
export const NO_SPARE_CORE_SHARE = 0.9;

/** A sampler of how busy the machine's cores have been since it was made: a share from 0 (idle) to 1 (all busy). */
export type BusySince = () => () => number;

function coreTimes(): { busy: number; all: number } {
  let busy = 0;
  let all = 0;
  for (const { times } of cpus()) {
    const used = times.user + times.nice + times.sys + times.irq;
    busy += used;
    all += used + times.idle;
  }
  return { busy, all };
}

/**
 * How busy every core of the machine (all processes, the relays' included) has been since the call. A split starts a
 * relay so that a group's remaining cases run while one of its cases waits; when every core was busy all the while,
 * the other lanes had work, and the start would only add CPU to a machine that has none to spare.
 */
export const busySince: BusySince = () => {
  const t0 = coreTimes();
  return () => {
    const t1 = coreTimes();
    const all = t1.all - t0.all;
    return all > 0 ? (t1.busy - t0.busy) / all : 0;
  };
};
