/**
 * The reference validator's entry points. Pure functions: no I/O, no mutation of the input, nothing returned
 * that aliases or copies the input (the zod output is discarded, so unknown fields are never stripped from
 * anything a caller forwards).
 *
 * Cost per call, all linear in the size of the value:
 * 1. structure: an allocation-free pre-check mirroring the era's zod schema (fast.ts); only when it fails does
 *    the value go through zod `safeParse` (the authority), whose issues are classified into findings (issues.ts);
 * 2. the rules zod cannot express (tool-loop pairing, capabilities, result vs request) (pairing.ts); the tool
 *    loop runs inside the pre-check's walk, so a legal request's messages are read once.
 */
import { type Era, isModernEra } from "../protocol/eras.ts";
import { requestParamsOk, resultOk } from "./fast.ts";
import { Collector, escapeToken } from "./findings.ts";
import { reportRequestIssues, reportResultIssues } from "./issues.ts";
import { anyOutputSchema, checkStructuredContent } from "./output-schema.ts";
import { checkToolLoop, scanResultContent, ToolLoop } from "./pairing.ts";
import { isJsonObject, SCHEMAS } from "./schemas.ts";
import type { RequestContext, ResultContext, SamplingCapabilities, Verdict } from "./types.ts";

const SAMPLING = "sampling/createMessage";
/** InputRequest methods of 2026-07-28 (mrtr.mdx: ElicitRequest, CreateMessageRequest, ListRootsRequest). */
const INPUT_METHODS = new Set([SAMPLING, "elicitation/create", "roots/list"]);

function requestInto(params: unknown, ctx: RequestContext, out: Collector): void {
  const schemas = SCHEMAS[ctx.era];
  const tools = schemas.features.tools;
  // The tool loop runs inside the pre-check's walk: one pass over the messages instead of two, which is what
  // keeps the cost per message flat once a long loop no longer fits in the CPU cache.
  const mark = out.mark();
  const outputSchemas = tools && isJsonObject(params) && anyOutputSchema(params.tools);
  let loop = tools ? new ToolLoop(out, "/messages", outputSchemas) : undefined;
  if (requestParamsOk(params, schemas.features, loop)) {
    loop?.end();
  } else {
    out.rollback(mark); // schema findings come first: redo the tool loop after them
    const parsed = schemas.createMessageRequestParams.safeParse(params);
    if (!parsed.success) reportRequestIssues(parsed.error.issues, params, ctx.era, out);
    loop =
      tools && isJsonObject(params) && Array.isArray(params.messages)
        ? checkToolLoop(params.messages, out, "/messages", outputSchemas)
        : undefined;
  }
  if (!isJsonObject(params) || !tools) return;
  // Only a tool_result with structuredContent that answers a tool_use makes the tools' outputSchemas be read.
  if (loop?.structured) checkStructuredContent(params.tools, loop.structured, out);
  checkCapabilities(params, ctx.capabilities, out);
}

/** Capability and deprecation rules of 2025-11-25+ (before, tools/toolChoice are unknown keys: not flagged). */
function checkCapabilities(
  params: Record<string, unknown>,
  capabilities: SamplingCapabilities | undefined,
  out: Collector,
): void {
  const ic = params.includeContext;
  const contextual = ic === "thisServer" || ic === "allServers";
  if (capabilities !== undefined) {
    const sampling = isJsonObject(capabilities.sampling) ? capabilities.sampling : undefined;
    const toolsDeclared = sampling?.tools !== undefined && sampling?.tools !== null;
    if (!toolsDeclared) {
      for (const key of ["tools", "toolChoice"] as const) {
        if (params[key] === undefined) continue;
        out.add(
          "request.tools-capability",
          `/${key}`,
          `${key} is present but the client did not declare the sampling.tools capability`,
        );
      }
    }
    if (contextual && (sampling?.context === undefined || sampling?.context === null)) {
      out.add(
        "request.include-context-capability",
        "/includeContext",
        `includeContext ${JSON.stringify(ic)} without the client's sampling.context capability`,
      );
    }
  }
  if (contextual) {
    out.add(
      "request.include-context-deprecated",
      "/includeContext",
      `includeContext ${JSON.stringify(ic)} is ${isModernEra(out.era) ? "deprecated (SEP-2596)" : "soft-deprecated"}; omit it or use "none"`,
    );
  }
}

function resultInto(result: unknown, era: Era, request: unknown, out: Collector): void {
  const schemas = SCHEMAS[era];
  if (!resultOk(result, schemas.features)) {
    const parsed = schemas.createMessageResult.safeParse(result);
    if (!parsed.success) reportResultIssues(parsed.error.issues, result, era, out);
  }
  if (!isJsonObject(result) || !schemas.features.tools) return;

  const facts = scanResultContent(result, out);
  const firstUse = facts.toolUses[0];
  if (result.role === "user" && firstUse !== undefined) {
    out.add(
      "result.tool-use-role",
      "/role",
      'a result carrying tool_use should have role "assistant", not "user"',
    );
  }
  if (request === undefined) return; // request unknown: the result-vs-request rules cannot be judged

  const req = isJsonObject(request) ? request : {};
  const hasTools = Array.isArray(req.tools) && req.tools.length > 0;
  const mode = isJsonObject(req.toolChoice) ? req.toolChoice.mode : undefined;
  const stopToolUse = result.stopReason === "toolUse";
  if (!hasTools || mode === "none") {
    const rule = hasTools ? "result.tool-use-with-tool-choice-none" : "result.tool-use-without-tools";
    const why = hasTools ? 'the request set toolChoice.mode "none"' : "the request offered no tools";
    if (firstUse !== undefined) {
      out.add(rule, firstUse, `the result holds ${facts.toolUses.length} tool_use block(s) but ${why}`);
    }
    if (stopToolUse) out.add(rule, "/stopReason", `stopReason is "toolUse" but ${why}`);
  }
}

function embeddedInto(req: unknown, ctx: RequestContext, out: Collector): void {
  if (!isJsonObject(req)) {
    out.add("input.request-shape", "", "an input request must be a JSON object {method, params}");
    return;
  }
  if (typeof req.method !== "string") {
    out.add(
      "input.request-shape",
      "/method",
      req.method === undefined ? "method is required" : "method must be a string",
    );
  } else if (req.method !== SAMPLING) {
    out.add(
      "input.request-method",
      "/method",
      `method must be "${SAMPLING}", got ${JSON.stringify(req.method)}`,
    );
  }
  requestInto(req.params, ctx, out.at("/params"));
}

/** Validates CreateMessageRequest params for `ctx.era` (capability rules only when `ctx.capabilities` is set). */
export function validateRequest(params: unknown, ctx: RequestContext): Verdict {
  const out = new Collector(ctx.era, "request");
  requestInto(params, ctx, out);
  return out.verdict();
}

/**
 * Validates a CreateMessageResult against the request params it answers (`ctx.request`; undefined = unknown,
 * then only the result itself is judged). Findings carry the code a relay answers its upstream with when it
 * refuses the result (-32603).
 */
export function validateResult(result: unknown, ctx: ResultContext): Verdict {
  const out = new Collector(ctx.era, "result");
  resultInto(result, ctx.era, ctx.request, out);
  return out.verdict();
}

/** Validates an embedded request `{method: "sampling/createMessage", params}` (2026-07-28; no jsonrpc/id needed). */
export function validateEmbeddedRequest(req: unknown, ctx: RequestContext): Verdict {
  const out = new Collector(ctx.era, "request");
  embeddedInto(req, ctx, out);
  return out.verdict();
}

/**
 * Validates `InputRequiredResult.inputRequests` (2026-07-28): a map key → input request. Sampling requests are
 * validated in full; elicitation/roots requests only for their method.
 */
export function validateInputRequests(inputRequests: unknown, ctx: RequestContext): Verdict {
  const out = new Collector(ctx.era, "request");
  if (!isJsonObject(inputRequests)) {
    out.add("input.requests-shape", "", "inputRequests must be a JSON object mapping keys to requests");
    return out.verdict();
  }
  for (const key of Object.keys(inputRequests)) {
    const value = inputRequests[key];
    const at = out.at(`/${escapeToken(key)}`);
    if (isJsonObject(value) && value.method === SAMPLING) {
      embeddedInto(value, ctx, at);
    } else if (!isJsonObject(value)) {
      at.add("input.request-shape", "", "an input request must be a JSON object {method, params}");
    } else if (typeof value.method !== "string") {
      at.add(
        "input.request-shape",
        "/method",
        value.method === undefined ? "method is required" : "method must be a string",
      );
    } else if (!INPUT_METHODS.has(value.method)) {
      at.add(
        "input.request-method",
        "/method",
        `method ${JSON.stringify(value.method)} is not an input request method`,
      );
    }
  }
  return out.verdict();
}

/**
 * Validates the retry's `params.inputResponses` (2026-07-28) against the `inputRequests` it answers: each
 * response whose key names a sampling request is validated as a CreateMessageResult for that request. A missing
 * key is legal (the client declined); a key naming no request is a warning; responses to non-sampling requests
 * are not examined.
 */
export function validateInputResponses(
  inputResponses: unknown,
  ctx: { era: Era; inputRequests: unknown },
): Verdict {
  const out = new Collector(ctx.era, "input-response");
  if (!isJsonObject(inputResponses)) {
    out.add("input.responses-shape", "", "inputResponses must be a JSON object mapping keys to responses");
    return out.verdict();
  }
  const requests = isJsonObject(ctx.inputRequests) ? ctx.inputRequests : {};
  for (const key of Object.keys(inputResponses)) {
    const ptr = `/${escapeToken(key)}`;
    if (!Object.hasOwn(requests, key)) {
      out.add(
        "input.response-extra-key",
        ptr,
        `inputResponses key ${JSON.stringify(key)} answers no input request`,
      );
      continue;
    }
    const request = requests[key];
    if (isJsonObject(request) && request.method === SAMPLING) {
      resultInto(inputResponses[key], ctx.era, request.params, out.at(ptr));
    }
  }
  return out.verdict();
}
