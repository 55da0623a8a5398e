/**
 * The reference validator: the oracle every verdict of mcpx-conform rests on. Pure functions, one zod schema set
 * per protocol era (independent of the SDK's schemas), a linear pass for the tool-loop and result-vs-request
 * rules, and a catalogue of stable rule ids. Imports nothing else of the project.
 */
export { ERAS, type Era, eraAtLeast, isEra, isModernEra } from "../protocol/eras.ts";
export { escapeToken, pointerOf, refusalVerdict } from "./findings.ts";
export {
  CHANNEL_CODE,
  type Channel,
  codeFor,
  REFUSED_SHOULD,
  RULE_IDS,
  RULES,
  type RuleId,
  type RuleInfo,
  ruleTable,
  sourceFor,
} from "./rules.ts";
export { type EraFeatures, type EraSchemas, featuresOf, isBase64, isJsonObject, SCHEMAS } from "./schemas.ts";
export type {
  Finding,
  Level,
  RequestContext,
  ResultContext,
  SamplingCapabilities,
  Verdict,
} from "./types.ts";
export {
  validateEmbeddedRequest,
  validateInputRequests,
  validateInputResponses,
  validateRequest,
  validateResult,
} from "./validate.ts";
