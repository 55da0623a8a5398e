import type { Expectation } from "../model/case.ts";
import type { CellSide } from "../model/register.ts";
import { validateRequest, validateResult } from "../validator/index.ts";
import { type Era, isModernEra } from "../validator/eras.ts";
import type { SamplingCapabilities } from "../validator/types.ts";

/** A generated exchange: what the upstream sends, and what the answerer answers if asked. */
export interface Exchange {
  params: Record<string, unknown>;
  result: Record<string, unknown>;
}

export interface OracleVerdict {
  /** Which register row a disagreement on this exchange belongs to, and on which side. */
  row: string;
  side: CellSide;
  expect: Expectation[];
  /** One sentence: what the reference validator says about the exchange. */
  says: string;
}

/**
 * The differential oracle: what a conforming relay must do with an exchange, decided by the reference
 * validator alone. Illegal request → refused before asking (-32602; 2026-07-28: no response at all);
 * legal request with an illegal result → refused after asking; both legal → delivered unchanged both ways.
 */
export function oracle(exchange: Exchange, era: Era, capabilities: SamplingCapabilities): OracleVerdict {
  const modern = isModernEra(era);
  const request = validateRequest(exchange.params, { era, capabilities });
  if (!request.legal) {
    const f = request.errors[0]!;
    return {
      row: "sampling-both-validate-message-content",
      side: "client",
      expect: modern
        ? [{ outcome: "withheld", asked: false }]
        : [{ outcome: "error", code: request.code ?? -32602, asked: false }],
      says: `the request is illegal in ${era}: ${f.rule} at ${f.pointer || "/"} (${f.message})`,
    };
  }
  const result = validateResult(exchange.result, { era, request: exchange.params });
  if (!result.legal) {
    const f = result.errors[0]!;
    return {
      row: "sampling-both-validate-message-content",
      side: "server",
      expect: modern ? [{ outcome: "withheld", asked: true }] : [{ outcome: "error", code: [-32602, -32603], asked: true }],
      says: `the result is illegal for this request in ${era}: ${f.rule} at ${f.pointer || "/"} (${f.message})`,
    };
  }
  return {
    row: "sampling-relay-content-unchanged",
    side: "intermediary",
    expect: [{ outcome: "delivered" }],
    says: `request and result are legal in ${era}, so both must pass unchanged`,
  };
}
