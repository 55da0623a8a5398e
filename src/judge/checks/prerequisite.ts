import type { Check } from "../../model/evidence.ts";
import { check, family, recorded } from "./check.ts";

/**
 * The era's round trip gates every other case of the era (src/judge/judge-runs.ts, applyPrerequisite in
 * src/judge/case.ts): recorded on a case whose verdict does not count because it was not met.
 */
const PREREQUISITE = check({
  id: "prerequisite",
  proves: "the era's round trip passed, so this case's verdict counts",
  rule: "sampling-relay-roundtrip",
});

export const PREREQUISITES = family({ checks: [PREREQUISITE] });

/** The check a case records when its era's round trip was not met (`what`: why). */
export const unmetPrerequisite = (what: string) => recorded(PREREQUISITE, { ok: false, detail: what });

/** Whether a case's checks say its era's prerequisite was not met. */
export const prerequisiteUnmet = (checks: readonly Pick<Check, "id" | "ok">[]) =>
  checks.some((c) => c.id === PREREQUISITE.id && !c.ok);
