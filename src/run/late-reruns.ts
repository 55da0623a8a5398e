import { LATE_REASON } from "../harness/lateness.ts";
import type { Results } from "../model/results.ts";

/** How many cases ran again because the harness was late for them, from their case results (none: nothing). */
export function lateRerunsOf(cells: Results["cells"]): Pick<Results, "lateReruns"> {
  let cases = 0;
  let reruns = 0;
  let stillLate = 0;
  for (const cell of cells)
    for (const c of cell.cases) {
      if (!c.lateReruns) continue;
      cases++;
      reruns += c.lateReruns;
      if (c.status === "error" && c.reason.includes(LATE_REASON)) stillLate++;
    }
  return cases > 0 ? { lateReruns: { cases, reruns, stillLate } } : {};
}
