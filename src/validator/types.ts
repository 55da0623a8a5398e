import type { Era } from "../protocol/eras.ts";

/** RFC 2119 keyword class of the rule a finding breaks. */
export type Level = "MUST" | "SHOULD";

/** One broken rule, located. */
export interface Finding {
  /** Stable rule id, e.g. "request.tool-result-only", "result.model-required". */
  rule: string;
  /** RFC 6901 JSON pointer into the validated value ("" is the root). */
  pointer: string;
  level: Level;
  /** One human sentence: what is wrong and what was expected. */
  message: string;
  /** Error code the spec assigns for this violation in this era (e.g. -32602), or null where it assigns none. */
  code: number | null;
  /** Where the rule is stated: spec URL (with anchor) or schema location. */
  source: string;
}

export interface Verdict {
  /** True when no MUST-level finding exists (SHOULD findings are warnings). */
  legal: boolean;
  errors: Finding[];
  warnings: Finding[];
  /** The code the spec assigns to the first error, else -32602 for a schema violation, null when legal. */
  code: number | null;
}

/** What the receiving client declared (legacy: at initialize; 2026-07-28: per request in _meta). */
export interface SamplingCapabilities {
  sampling?: { tools?: object; context?: object; [k: string]: unknown };
  [k: string]: unknown;
}

export interface RequestContext {
  era: Era;
  /** The declared client capabilities; absent means "unknown" (capability rules are then not checked). */
  capabilities?: SamplingCapabilities;
}

export interface ResultContext {
  era: Era;
  /**
   * The CreateMessageRequest params the result answers. `undefined` means "unknown": the rules that compare the
   * result with its request (result.tool-use-without-tools, result.tool-use-with-tool-choice-none) are skipped.
   */
  request: unknown;
}
