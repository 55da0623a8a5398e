/**
 * The rule catalogue: every finding the validator can report names one of these ids. Ids are stable (tests,
 * register rows and saved corpus cases refer to them); add new ones, never rename.
 *
 * Error codes (`Finding.code`) depend on where a value was found (its *channel*), not on the rule:
 *
 * | channel          | what is validated                                   | code of a MUST finding |
 * | ---------------- | --------------------------------------------------- | ---------------------- |
 * | `request`        | CreateMessageRequest params, embedded requests,     | -32602 Invalid params  |
 * |                  | `inputRequests`                                     |                        |
 * | `result`         | a CreateMessageResult answering a request           | -32603 Internal error  |
 * | `input-response` | a CreateMessageResult inside 2026 `inputResponses`  | -32602 Invalid params  |
 *
 * Why: 2025-11-25 assigns -32602 to the two tool-shape failures ("Tool result missing in request", "Tool results
 * mixed with other content"); 2026-07-28's `InvalidParamsError` lists the same two under -32602; a schema
 * violation of the params (missing maxTokens, bad role, wrong type) is JSON-RPC's "Invalid params" in every era
 * (the SDK answers -32603 there only because a ZodError has no code — the SDK's Protocol error mapping). `tools` without
 * `sampling.tools`: the spec says the client "MUST return an error" but names no code; -32602 is used (the
 * params are invalid for this client). A *result* is not a request's params: a relay that refuses an illegal
 * downstream result answers its upstream -32603 (its downstream misbehaved; the upstream's request was fine).
 * In 2026-07-28 a CreateMessageResult travels as a value of `params.inputResponses` of a retried request, so
 * refusing it is again "Invalid params" (-32602); mrtr.mdx "Error Handling" asks for a JSON-RPC error there.
 * SHOULD-level findings are warnings and carry no code (null): nothing is refused for them.
 */
import { ERAS, type Era, eraAtLeast, featuresOf } from "../protocol/eras.ts";
import type { Level } from "./types.ts";

export type Channel = "request" | "result" | "input-response";

export const CHANNEL_CODE: Readonly<Record<Channel, number>> = {
  request: -32602,
  result: -32603,
  "input-response": -32602,
};

/** Where a rule is stated; resolved to a URL per era by `sourceFor`. */
type SourceRef =
  | { page: "sampling"; anchor: string; legacyAnchor?: string }
  | { page: "schema"; type: string }
  | { page: "mrtr"; anchor: string };

interface RuleDef {
  level: Level;
  summary: string;
  eras: readonly Era[];
  channels: readonly Channel[];
  ref: SourceRef;
  /** The decision taken where the spec leaves the case open. */
  decision?: string;
}

export interface RuleInfo {
  id: string;
  level: Level;
  summary: string;
  eras: readonly Era[];
  /** Channels the rule is checked on. */
  channels: readonly Channel[];
  /** Code per channel (null for SHOULD-level rules). */
  codes: Partial<Record<Channel, number | null>>;
  /** Spec URL (with anchor) for the newest era the rule applies to; `sourceFor(id, era)` gives any era. */
  source: string;
  decision?: string;
}

const ALL = ERAS;
const FROM_2025_11 = ERAS.filter((e) => featuresOf(e).tools);
const BEFORE_2025_11 = ERAS.filter((e) => !featuresOf(e).tools);
const ONLY_2026 = ERAS.filter((e) => featuresOf(e).mrtr);
const REQ: readonly Channel[] = ["request"];
const RES: readonly Channel[] = ["result", "input-response"];
const BOTH: readonly Channel[] = ["request", "result", "input-response"];

const DEFS = {
  // ---- request params: structure (schema) ----
  "request.params": {
    level: "MUST",
    summary: "CreateMessageRequest params is a JSON object.",
    eras: ALL,
    channels: REQ,
    ref: { page: "schema", type: "CreateMessageRequest" },
  },
  "request.messages": {
    level: "MUST",
    summary: "params.messages is required: an array of SamplingMessage objects.",
    eras: ALL,
    channels: REQ,
    ref: { page: "schema", type: "CreateMessageRequest" },
  },
  "request.max-tokens": {
    level: "MUST",
    summary: "params.maxTokens is required and is an integer.",
    eras: ALL,
    channels: REQ,
    ref: { page: "schema", type: "CreateMessageRequest" },
  },
  "request.model-preferences": {
    level: "MUST",
    summary:
      "params.modelPreferences is an object: hints an array of {name?: string}; costPriority, speedPriority, intelligencePriority numbers in [0, 1].",
    eras: ALL,
    channels: REQ,
    ref: { page: "schema", type: "ModelPreferences" },
  },
  "request.include-context": {
    level: "MUST",
    summary: 'params.includeContext is one of "none", "thisServer", "allServers".',
    eras: ALL,
    channels: REQ,
    ref: { page: "schema", type: "CreateMessageRequest" },
  },
  "request.tools": {
    level: "MUST",
    summary: 'params.tools is an array of Tool: name a string, inputSchema an object with type "object".',
    eras: FROM_2025_11,
    channels: REQ,
    ref: { page: "schema", type: "Tool" },
  },
  "request.tool-choice": {
    level: "MUST",
    summary: 'params.toolChoice is an object whose optional mode is "auto", "required" or "none".',
    eras: FROM_2025_11,
    channels: REQ,
    ref: { page: "schema", type: "ToolChoice" },
  },
  "request.field-type": {
    level: "MUST",
    summary:
      "Other declared fields have their declared types (systemPrompt string, temperature number, stopSequences string[], metadata object, _meta, task, message _meta).",
    eras: ALL,
    channels: REQ,
    ref: { page: "schema", type: "CreateMessageRequest" },
  },
  "message.role": {
    level: "MUST",
    summary: 'Every SamplingMessage has role "user" or "assistant".',
    eras: ALL,
    channels: REQ,
    ref: { page: "schema", type: "SamplingMessage" },
  },
  "message.content": {
    level: "MUST",
    summary:
      "Every SamplingMessage has content: one content block (before 2025-11-25), one block or an array of blocks (from 2025-11-25).",
    eras: ALL,
    channels: REQ,
    ref: { page: "schema", type: "SamplingMessage" },
  },

  // ---- content blocks (requests and results) ----
  "content.array-before-2025-11-25": {
    level: "MUST",
    summary: "Before 2025-11-25, content is a single block; an array of blocks is not allowed.",
    eras: BEFORE_2025_11,
    channels: BOTH,
    ref: { page: "schema", type: "SamplingMessage" },
  },
  "content.audio-before-2025-03-26": {
    level: "MUST",
    summary: "2024-11-05 knows only text and image content; audio arrived in 2025-03-26.",
    eras: ["2024-11-05"],
    channels: BOTH,
    ref: { page: "schema", type: "SamplingMessage" },
  },
  "content.tool-blocks-before-2025-11-25": {
    level: "MUST",
    summary: "tool_use and tool_result content blocks exist only from 2025-11-25.",
    eras: BEFORE_2025_11,
    channels: BOTH,
    ref: { page: "schema", type: "SamplingMessage" },
  },
  "content.block-type": {
    level: "MUST",
    summary:
      "A content block's type is one its era defines (text, image; +audio from 2025-03-26; +tool_use, tool_result from 2025-11-25; resource_link and resource only inside tool_result.content).",
    eras: ALL,
    channels: BOTH,
    ref: { page: "schema", type: "SamplingMessage" },
  },
  "content.block-shape": {
    level: "MUST",
    summary:
      "A content block has its required fields with their types (text.text; image/audio data + mimeType; tool_use id, name, input object; tool_result toolUseId, isError boolean; annotations audience/priority in [0, 1]).",
    eras: ALL,
    channels: BOTH,
    ref: { page: "schema", type: "SamplingMessage" },
  },
  "content.base64": {
    level: "MUST",
    summary: "image/audio data (and resource blob) is base64 (RFC 4648, padded).",
    eras: ALL,
    channels: BOTH,
    ref: { page: "schema", type: "ImageContent" },
  },
  "content.tool-result-content": {
    level: "MUST",
    summary: "tool_result.content is required: an array of ContentBlock (the SDK silently fills []).",
    eras: FROM_2025_11,
    channels: BOTH,
    ref: { page: "schema", type: "ToolResultContent" },
  },

  // ---- tool loop rules (2025-11-25+) ----
  "message.tool-result-only": {
    level: "MUST",
    summary: "A user message that contains a tool_result contains only tool_result blocks.",
    eras: FROM_2025_11,
    channels: BOTH,
    ref: { page: "sampling", anchor: "tool-result-messages" },
  },
  "message.tool-result-missing": {
    level: "MUST",
    summary:
      "Every tool_use of an assistant message is answered by a tool_result with the same id in the very next message, a user message.",
    eras: FROM_2025_11,
    channels: REQ,
    ref: { page: "sampling", anchor: "tool-use-and-result-balance" },
    decision:
      "A request ending in an assistant tool_use message is a violation: the spec says MUST be followed, and a sampling request whose last message asks for tools has nothing to sample (the SDK accepts it: a known gap).",
  },
  "message.tool-result-unmatched": {
    level: "MUST",
    summary:
      "Every tool_result answers a tool_use of the immediately preceding assistant message (toolUseId MUST match the ID from a previous ToolUseContent).",
    eras: FROM_2025_11,
    channels: REQ,
    ref: { page: "sampling", anchor: "tool-use-and-result-balance" },
    decision:
      "Extra tool_result ids and tool_results in a message not preceded by an assistant tool_use message are violations (ids must match as sets, as in the SDK's check of the last pair).",
  },
  "message.duplicate-tool-id": {
    level: "MUST",
    summary: "tool_use ids are unique within one message, and each is answered by exactly one tool_result.",
    eras: FROM_2025_11,
    channels: BOTH,
    ref: { page: "sampling", anchor: "tool-use-and-result-balance" },
    decision:
      "Not addressed by the spec; a duplicated id makes the answer ambiguous, so it is a violation. The same id reused in a later round is legal (matching is per pair).",
  },
  "message.tool-use-role": {
    level: "SHOULD",
    summary:
      "tool_use blocks appear in assistant messages (tool use requests are sent with the assistant role).",
    eras: FROM_2025_11,
    channels: REQ,
    ref: { page: "sampling", anchor: "message-roles" },
    decision:
      'The spec\'s prose is descriptive (no RFC keyword); a user-held tool_use is a warning and is not subject to the balance rule (which speaks of "assistant message[s]").',
  },

  "message.structured-content-schema": {
    level: "SHOULD",
    summary:
      "A tool_result's structuredContent conforms to the outputSchema of the tool it answers (toolUseId → the tool_use's name → the params.tools entry).",
    eras: FROM_2025_11,
    channels: REQ,
    ref: { page: "schema", type: "ToolResultContent" },
    decision:
      "The tool is the first params.tools entry with the answered tool_use's name that has an outputSchema; JSON Schema 2020-12 unless $schema names draft-07 or 2019-09; unknown keywords ignored, format not asserted. An outputSchema that cannot be compiled (invalid, unknown $schema, a $ref that does not resolve) is not checked for this rule. SHOULD: a warning, but one a relay refuses a request for (REFUSED_SHOULD), as the register row expects.",
  },

  // ---- capabilities ----
  "request.tools-capability": {
    level: "MUST",
    summary: "tools / toolChoice are sent only to a client that declared sampling.tools.",
    eras: FROM_2025_11,
    channels: REQ,
    ref: { page: "sampling", anchor: "tools-in-sampling" },
    decision:
      "The spec says the client MUST return an error but names no code; -32602 is used. Checked only when the capabilities are known (ctx.capabilities given). Before 2025-11-25 tools/toolChoice are unknown keys and not flagged.",
  },
  "request.include-context-capability": {
    level: "SHOULD",
    summary: 'includeContext other than "none" is used only when the client declared sampling.context.',
    eras: FROM_2025_11,
    channels: REQ,
    ref: { page: "sampling", anchor: "capabilities" },
    decision:
      "SEP-1577 removed the requirement that clients reject it, so it is a warning; checked only when the capabilities are known.",
  },
  "request.include-context-deprecated": {
    level: "SHOULD",
    summary:
      'includeContext "thisServer" / "allServers" are (soft-)deprecated: servers SHOULD omit includeContext or use "none".',
    eras: FROM_2025_11,
    channels: REQ,
    ref: { page: "sampling", anchor: "capabilities" },
    decision:
      '2025-11-25 soft-deprecates the values ("SHOULD avoid"), 2026-07-28 deprecates them (SEP-2596): a warning in both. Sampling itself being deprecated in 2026-07-28 is not reported on every request.',
  },

  // ---- results ----
  "result.shape": {
    level: "MUST",
    summary: "CreateMessageResult is a JSON object.",
    eras: ALL,
    channels: RES,
    ref: { page: "schema", type: "CreateMessageResult" },
  },
  "result.role": {
    level: "MUST",
    summary: 'The result has role "user" or "assistant".',
    eras: ALL,
    channels: RES,
    ref: { page: "schema", type: "CreateMessageResult" },
  },
  "result.model": {
    level: "MUST",
    summary: "The result names the model (a string).",
    eras: ALL,
    channels: RES,
    ref: { page: "schema", type: "CreateMessageResult" },
  },
  "result.content": {
    level: "MUST",
    summary:
      "The result has content: one block (before 2025-11-25), one block or an array (from 2025-11-25).",
    eras: ALL,
    channels: RES,
    ref: { page: "schema", type: "CreateMessageResult" },
  },
  "result.stop-reason": {
    level: "MUST",
    summary: "stopReason, when present, is a string (an open set: custom values are legal).",
    eras: ALL,
    channels: RES,
    ref: { page: "schema", type: "CreateMessageResult" },
  },
  "result.field-type": {
    level: "MUST",
    summary: "Other declared result fields have their declared types (_meta an object).",
    eras: ALL,
    channels: RES,
    ref: { page: "schema", type: "CreateMessageResult" },
  },
  "result.tool-use-without-tools": {
    level: "MUST",
    summary:
      'A result answering a request without tools carries no tool_use content and no stopReason "toolUse".',
    eras: FROM_2025_11,
    channels: RES,
    ref: { page: "sampling", anchor: "sampling-with-tools" },
    decision:
      'A request "without tools" has no tools array or an empty one (toolChoice alone offers no tool). Before 2025-11-25 "toolUse" is just a custom stopReason and legal; tool_use blocks are already illegal there.',
  },
  "result.tool-use-with-tool-choice-none": {
    level: "MUST",
    summary:
      'With toolChoice.mode "none" the model MUST NOT use any tools: no tool_use content, no stopReason "toolUse".',
    eras: FROM_2025_11,
    channels: RES,
    ref: { page: "sampling", anchor: "tool-choice-modes" },
    decision:
      'toolChoice "required" is not checked on a result: "before completing" spans several rounds, which one exchange cannot see.',
  },
  "result.tool-use-role": {
    level: "SHOULD",
    summary:
      'A result carrying tool_use has role "assistant" ("Tool use requests are sent in CreateMessageResult with the assistant role").',
    eras: FROM_2025_11,
    channels: RES,
    ref: { page: "sampling", anchor: "message-roles" },
    decision: "The prose has no RFC keyword and the schema allows role user: a warning, not an error.",
  },

  // ---- 2026-07-28 multi-round-trip wrappers ----
  "input.requests-shape": {
    level: "MUST",
    summary: "InputRequiredResult.inputRequests is a JSON object mapping keys to input requests.",
    eras: ONLY_2026,
    channels: REQ,
    ref: { page: "mrtr", anchor: "inputrequests" },
  },
  "input.request-shape": {
    level: "MUST",
    summary:
      "An input request is an object {method, params}; a sampling one has params an object (no jsonrpc/id needed).",
    eras: ONLY_2026,
    channels: REQ,
    ref: { page: "mrtr", anchor: "inputrequests" },
  },
  "input.request-method": {
    level: "MUST",
    summary:
      'An input request\'s method is "sampling/createMessage", "elicitation/create" or "roots/list" (an embedded sampling request: "sampling/createMessage").',
    eras: ONLY_2026,
    channels: REQ,
    ref: { page: "mrtr", anchor: "server-requirements-basic-workflow" },
  },
  "input.responses-shape": {
    level: "MUST",
    summary: "params.inputResponses is a JSON object mapping keys to input responses.",
    eras: ONLY_2026,
    channels: ["input-response"],
    ref: { page: "mrtr", anchor: "inputresponses" },
  },
  "input.response-extra-key": {
    level: "SHOULD",
    summary:
      "Every inputResponses key names a request of inputRequests (the server SHOULD ignore the others).",
    eras: ONLY_2026,
    channels: ["input-response"],
    ref: { page: "mrtr", anchor: "error-handling" },
    decision:
      "A missing key is not a finding: the client may decline a sampling request by omitting its response. An extra key is a warning.",
  },
} as const satisfies Record<string, RuleDef>;

export type RuleId = keyof typeof DEFS;

const SITE = "https://modelcontextprotocol.io/specification";
const REPO = "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema";

function resolve(ref: SourceRef, era: Era): string {
  switch (ref.page) {
    case "sampling":
      // Before 2025-11-25 the page has no tool sections; its data types are the closest statement.
      return `${SITE}/${era}/client/sampling#${featuresOf(era).tools ? ref.anchor : (ref.legacyAnchor ?? "data-types")}`;
    case "schema":
      // The site's schema reference exists from 2025-06-18; older revisions are cited by their schema file.
      return eraAtLeast(era, "2025-06-18")
        ? `${SITE}/${era}/schema#${ref.type.toLowerCase()}`
        : `${REPO}/${era}/schema.ts#${ref.type}`;
    case "mrtr":
      return `${SITE}/2026-07-28/basic/patterns/mrtr#${ref.anchor}`;
  }
}

/** Spec URL (with anchor) stating `rule` in `era`. */
export function sourceFor(rule: RuleId, era: Era): string {
  return resolve((DEFS[rule] as RuleDef).ref, era);
}

/** Code of a finding of `rule` raised on `channel`. */
export function codeFor(rule: RuleId, channel: Channel): number | null {
  return (DEFS[rule] as RuleDef).level === "MUST" ? CHANNEL_CODE[channel] : null;
}

/** The catalogue: rule id → level, summary, eras, channels, codes, source. */
export const RULES: Readonly<Record<RuleId, RuleInfo>> = Object.fromEntries(
  Object.entries(DEFS).map(([id, raw]) => {
    const def = raw as RuleDef;
    const codes: Partial<Record<Channel, number | null>> = {};
    for (const ch of def.channels) codes[ch] = def.level === "MUST" ? CHANNEL_CODE[ch] : null;
    const newest = def.eras[def.eras.length - 1]!;
    const info: RuleInfo = {
      id,
      level: def.level,
      summary: def.summary,
      eras: def.eras,
      channels: def.channels,
      codes,
      source: resolve(def.ref, newest),
      ...(def.decision ? { decision: def.decision } : {}),
    };
    return [id, info];
  }),
) as Record<RuleId, RuleInfo>;

export const RULE_IDS = Object.keys(DEFS) as RuleId[];

/**
 * SHOULD-level rules a relay acts on as on MUST-level ones: it refuses a request that breaks them before anyone is
 * asked (-32602; 2026-07-28: the input is withheld). Their findings stay warnings (code null) in a verdict;
 * `refusalVerdict` counts them as errors. The register row of each expects the refusal, at its SHOULD severity (a
 * relay that delivers such a request gets a warning, not a failure).
 */
export const REFUSED_SHOULD: ReadonlySet<RuleId> = new Set<RuleId>(["message.structured-content-schema"]);

function eraRange(eras: readonly Era[]): string {
  if (eras.length === ERAS.length) return "all";
  if (eras.length === 1) return eras[0]!;
  const first = ERAS.indexOf(eras[0]!);
  const contiguous = eras.every((e, i) => ERAS[first + i] === e);
  return contiguous ? `${eras[0]}…${eras[eras.length - 1]}` : eras.join(", ");
}

function codeCell(info: RuleInfo): string {
  if (info.level === "SHOULD") return "— (warning)";
  const parts: string[] = [];
  if (info.codes.request !== undefined) parts.push(`${info.codes.request} request`);
  if (info.codes.result !== undefined) parts.push(`${info.codes.result} result`);
  if (info.codes["input-response"] !== undefined)
    parts.push(`${info.codes["input-response"]} inputResponses`);
  return parts.join("; ");
}

/** The rule table as markdown (id, level, code per channel, eras, summary, decision), for docs. */
export function ruleTable(): string {
  const rows = [
    "| rule | level | code | eras | rule text | decision on an open case |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  for (const id of RULE_IDS) {
    const r = RULES[id];
    rows.push(
      `| [\`${id}\`](${r.source}) | ${r.level} | ${codeCell(r)} | ${eraRange(r.eras)} | ${cell(r.summary)} | ${cell(r.decision ?? "")} |`,
    );
  }
  return `${rows.join("\n")}\n`;
}
