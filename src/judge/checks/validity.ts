import { ROUNDTRIP_ROW } from "../../model/case-key.ts";
import { refusalVerdict, validateRequest, validateResult } from "../../validator/index.ts";
import { type DeliveredChannel, rowForRule } from "../attribution.ts";
import { type CheckContext, check, family, type Outcome } from "./check.ts";

/**
 * The reference validator judges every exchange: each request the answerer received (for the era it spoke and the
 * capabilities it declared) and the result the upstream received (against the request it sent). A finding counts
 * toward the row of the rule it breaks; when that is not this case's cell it is recorded here as info.
 */

/** One outcome per rule a delivered message breaks. */
function findings(
  ctx: CheckContext,
  channel: DeliveredChannel,
  what: string,
  verdict: ReturnType<typeof validateRequest>,
): Outcome[] {
  const attribute = ctx.attribute ?? ((rule, on) => rowForRule(rule, on));
  const outcomes: Outcome[] = [];
  const seen = new Set<string>();
  for (const f of verdict.errors) {
    if (seen.has(f.rule)) continue;
    seen.add(f.rule);
    const counts = attribute(f.rule, channel);
    const own =
      !ctx.cell ||
      (ctx.cell.row === counts.row && ctx.cell.side === counts.side) ||
      ctx.cell.row === ROUNDTRIP_ROW;
    outcomes.push({
      ok: false,
      ...(own ? {} : { level: "info" as const }),
      rule: f.rule,
      countsFor: counts,
      detail: `${what} breaks ${f.rule} at ${f.pointer || "/"}: ${f.message}${own ? "" : ` (counted under ${counts.row}, ${counts.side} side)`}`,
    });
  }
  return outcomes;
}

export const VALIDITY = family({
  checks: [
    check({
      id: "valid-request-delivered",
      proves: "every request the answerer received is legal for its era and declared capabilities",
      rule: "the row of the validator rule broken (src/judge/attribution.ts)",
      judge: (ctx) => {
        const downEra = ctx.downstreamEra ?? ctx.era;
        return ctx.o.asked.flatMap((request, i) => {
          const at = ctx.capabilities ? { era: downEra, capabilities: ctx.capabilities } : { era: downEra };
          // A request breaking a SHOULD rule a relay must refuse for (REFUSED_SHOULD) counts too, at its row's severity.
          const v = refusalVerdict(validateRequest(request, at));
          return v.legal
            ? []
            : findings(ctx, "request", `request ${i + 1} the answerer received (${downEra})`, v);
        });
      },
    }),
    check({
      id: "valid-result-delivered",
      proves: "every result the upstream received is legal for its era and request",
      rule: "the row of the validator rule broken (src/judge/attribution.ts)",
      judge: (ctx) => {
        if (ctx.o.upstream.kind !== "result") return [];
        const v = validateResult(ctx.o.upstream.result, { era: ctx.era, request: ctx.o.sent });
        return v.legal ? [] : findings(ctx, "result", `the result the upstream received (${ctx.era})`, v);
      },
    }),
  ],
});
