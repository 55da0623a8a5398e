import type { CheckFamily, JudgeInput } from "../../src/judge/checks/check.ts";
import { type JudgeCheck, judgeChecks } from "../../src/judge/checks/index.ts";
import type { Expectation } from "../../src/model/case.ts";

/** The checks one family of the table records on an exchange (defaults: 2025-11-25, a must row, no canary). */
export function familyChecks(
  family: CheckFamily,
  input: Partial<JudgeInput> & Pick<JudgeInput, "observation">,
  e: Expectation = { outcome: "delivered" },
): JudgeCheck[] {
  return judgeChecks({ expect: [e], era: "2025-11-25", severity: "failure", canary: "", ...input }, e, [
    family,
  ]);
}
