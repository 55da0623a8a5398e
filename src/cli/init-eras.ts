import type { Era } from "../protocol/eras.ts";
import { EXIT } from "./errors.ts";

/**
 * What `init`'s smoke check found in each era (one round trip per era), and the `eras:` it writes from that. Pure: the
 * smoke check (src/cli/init.ts) runs the round trips and reads their results and evidence.
 */

/** Round-trip statuses that mean the harness reached the relay at both ends in that era (it was judged). */
const JUDGED = new Set(["pass", "fail", "warn", "partial"]);

/** What the smoke check found in one era: the round trip's cell status, its reason, and the versions each end spoke. */
export interface EraProbe {
  era: Era;
  status: string;
  reason: string;
  negotiated?: { upstream: string | null; downstream: string | null };
}

/** The eras a profile lists after the smoke check, with the comment that says what was found. */
export interface FoundEras {
  eras: Era[];
  comment: string[];
}

const oneLine = (s: string, n = 420) => {
  const line = s.replace(/\s+/g, " ").trim();
  return line.length > n ? `${line.slice(0, n - 1)}…` : line;
};

/** One era's line: judged, with the version each end of the relay spoke; or left out, with why. */
function eraLine(p: EraProbe): string {
  if (!JUDGED.has(p.status)) return `  ${p.era}: left out (${p.status}): ${oneLine(p.reason)}`;
  const n = p.negotiated;
  return `  ${p.era}: ${p.status} (its client side spoke ${n?.downstream ?? "?"}, its upstream side ${n?.upstream ?? "?"})`;
}

/**
 * The eras the relay reached at both ends (its round trip was judged there, whatever the verdict), and a comment with
 * one line per era: the versions each end spoke, or why the era is left out (the round trip's reason: which end
 * refused, what was sent and answered). Undefined when it reached none: the profile then keeps every era, and the
 * smoke check's lines say why.
 */
export function foundEras(probes: EraProbe[]): FoundEras | undefined {
  const reached = probes.filter((p) => JUDGED.has(p.status)).map((p) => p.era);
  if (reached.length === 0) return undefined;
  const every = reached.length === probes.length;
  return {
    eras: reached,
    comment: [
      `What init's smoke check found, one round trip per era${every ? "" : " (to try an era left out anyway: run --era)"}:`,
      ...probes.map(eraLine),
    ],
  };
}

/** The smoke check's exit code: every reached era passed (0); one failed, or none was judged but not for the harness (1). */
export function smokeExit(probes: EraProbe[]): number {
  const judged = probes.filter((p) => JUDGED.has(p.status));
  if (judged.length === 0) return probes.some((p) => p.status === "error") ? EXIT.harness : EXIT.failed;
  return judged.every((p) => p.status === "pass") ? EXIT.ok : EXIT.failed;
}
