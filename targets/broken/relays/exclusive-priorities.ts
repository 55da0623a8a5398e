// Broken: treats the [0, 1] priority ranges (modelPreferences' cost/speed/intelligence priorities, annotations'
// priority) as exclusive, an off-by-one seen in hand-written validators, so a legal request or result that uses
// exactly 0 or 1 is refused. Everything else is the reference relay's validation.
import { validateRequest, validateResult } from "../../../src/validator/index.ts";
import type { Verdict } from "../../../src/validator/types.ts";
import { runBroken } from "./lib/broken.ts";

const PRIORITY_KEYS = new Set(["costPriority", "speedPriority", "intelligencePriority", "priority"]);

/** The pointer of the first priority that is exactly 0 or 1, anywhere in the value. */
function boundaryPriority(value: unknown, pointer = ""): string | undefined {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = boundaryPriority(v, `${pointer}/${i}`);
      if (found) return found;
    }
    return undefined;
  }
  if (!value || typeof value !== "object") return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (PRIORITY_KEYS.has(k) && (v === 0 || v === 1)) return `${pointer}/${k}`;
    const found = boundaryPriority(v, `${pointer}/${k}`);
    if (found) return found;
  }
  return undefined;
}

function withExclusiveRange(verdict: Verdict, value: unknown, code: number): Verdict {
  const at = boundaryPriority(value);
  if (!verdict.legal || at === undefined) return verdict;
  const finding = {
    rule: "request.field-type",
    pointer: at,
    level: "MUST" as const,
    message: "priority must be strictly between 0 and 1",
    code,
    source: "",
  };
  return { legal: false, errors: [finding], warnings: [], code };
}

await runBroken("exclusive-priorities", {
  checkRequest: (params, ctx) => withExclusiveRange(validateRequest(params, ctx), params, -32602),
  checkResult: (result, ctx) => withExclusiveRange(validateResult(result, ctx), result, -32603),
});
