import type { Expectation } from "../model/case.ts";
import { ROUNDTRIP_ROW } from "../model/case-key.ts";
import type { Check } from "../model/evidence.ts";
import type { Severity } from "../model/register.ts";
import type { CaseStatus } from "../model/results.ts";
import { expirySlackMs } from "../model/target.ts";
import { isModernEra } from "../protocol/eras.ts";
import type { JudgeInput } from "./checks/check.ts";
import { judgeChecks } from "./checks/index.ts";
import { clip, describeOutcome } from "./checks/observed.ts";
import { unmetPrerequisite } from "./checks/prerequisite.ts";
import { hasPointer } from "./json-diff.ts";

/**
 * The one place a case's verdict is decided: from what each end of the relay actually saw, never from what the relay
 * claims. The checks themselves are the table's (src/judge/checks/): this runs it for each outcome the case accepts
 * and turns the best one's checks into a status and a reason.
 */

export interface CaseVerdict {
  status: CaseStatus;
  reason: string;
  checks: Check[];
  /** A skip because the case does not apply to this target (its cell is n/a when nothing else ran). */
  na?: true;
}

export type { JudgeCheck } from "./checks/index.ts";
export type { JudgeInput };
/** How much later than its declared deadline a relay may report expiry (defined with the profile's deadlines). */
export { describeOutcome, expirySlackMs };

/** Whether a failed check decides the verdict (must), lowers it to warn (advisory), or is only recorded (info). */
const levelOf = (c: Check) => c.level ?? "must";

function describeExpectation(e: Expectation): string {
  const asked =
    "asked" in e && e.asked !== undefined
      ? e.asked
        ? ", after asking the answerer"
        : ", without asking the answerer"
      : "";
  switch (e.outcome) {
    case "delivered":
      return e.unchanged ? "the answer delivered unchanged" : "the answer delivered";
    case "error": {
      const codes =
        e.code === undefined ? "(any code)" : Array.isArray(e.code) ? e.code.join(" or ") : String(e.code);
      const means = e.means ? ` naming ${e.means}` : "";
      return `error ${codes}${means}${asked}`;
    }
    case "withheld":
      return `no response for the input${asked}`;
  }
}

/**
 * A round trip that failed against a relay that declared no `sampling` capability to the upstream (legacy eras, at
 * initialize): that comes first in its reason, as it is why nothing was relayed — the relay does not carry sampling in
 * this mode. Only the reason: a relay that relays anyway is judged on what it did.
 */
function undeclaredSampling(input: JudgeInput): string {
  const declared = input.observation.declared;
  if (input.cell?.row !== ROUNDTRIP_ROW || isModernEra(input.era) || declared === undefined) return "";
  if (hasPointer(declared, "/sampling")) return "";
  return `the relay declared no sampling capability to the upstream (capabilities ${clip(JSON.stringify(declared))}), so it does not carry sampling in this mode: `;
}

const mustFailures = (checks: Check[]) => checks.filter((c) => !c.ok && levelOf(c) === "must").length;
const advisoryFailures = (checks: Check[]) => checks.filter((c) => !c.ok && levelOf(c) === "advisory").length;

export function judgeCase(input: JudgeInput): CaseVerdict {
  const { observation: o } = input;
  const applicable = input.expect.filter((e) => !e.eras || e.eras.includes(input.era));
  if (applicable.length === 0) {
    return { status: "error", reason: `the case states no expected outcome for ${input.era}`, checks: [] };
  }
  let best: { checks: Check[]; must: number; advisory: number } | undefined;
  for (const e of applicable) {
    const checks = judgeChecks(input, e);
    const must = mustFailures(checks);
    const advisory = advisoryFailures(checks);
    if (!best || must < best.must || (must === best.must && advisory < best.advisory))
      best = { checks, must, advisory };
    if (must === 0 && advisory === 0) break;
  }
  const chosen = best!;
  if (chosen.must === 0 && chosen.advisory === 0) {
    return {
      status: "pass",
      reason: `the upstream received ${describeOutcome(o.upstream)}, as expected`,
      checks: chosen.checks,
    };
  }
  const failing = chosen.checks.filter(
    (c) => !c.ok && levelOf(c) === (chosen.must > 0 ? "must" : "advisory"),
  );
  const wrong = failing.map((c) => c.detail);
  const expected = applicable.map(describeExpectation).join(", or ");
  const reason = `${undeclaredSampling(input)}${wrong.join("; ")} — expected ${expected}`;
  const status: CaseStatus = chosen.must > 0 && input.severity === "failure" ? "fail" : "warn";
  return {
    status,
    reason: reason.charAt(0).toUpperCase() + reason.slice(1),
    checks: chosen.checks,
  };
}

/**
 * A relay that never relays sampling must not be credited with refusing bad requests or honouring denials:
 * every case of an era counts only when that era's round-trip prerequisite passed. Without it the case earns no
 * credit, at its row's own severity (`failure`: fail; `warning`, a SHOULD row: warn), never a pass.
 */
export function applyPrerequisite(
  verdict: CaseVerdict,
  prerequisite: { met: boolean; what: string; harness?: boolean },
  severity: Severity = "failure",
): CaseVerdict {
  if (prerequisite.met || verdict.status === "error") return verdict;
  if (prerequisite.harness) {
    return {
      status: "error",
      reason: `Not judged: the harness could not drive the round trip (${prerequisite.what}), and without it this case proves nothing (it would otherwise have been ${verdict.status})`,
      checks: [...verdict.checks, unmetPrerequisite(prerequisite.what)],
    };
  }
  const status: CaseStatus = severity === "failure" ? "fail" : "warn";
  if (verdict.status === "fail") return verdict;
  return {
    status,
    reason: `Prerequisite not met: ${prerequisite.what}, so this case proves nothing (it would otherwise have been ${verdict.status})`,
    checks: [...verdict.checks, unmetPrerequisite(prerequisite.what)],
  };
}
