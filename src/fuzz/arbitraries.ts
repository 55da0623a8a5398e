/**
 * fast-check arbitraries for legal sampling exchanges, per era: legal CreateMessageRequest params (from
 * 2025-11-25 with tool loops of N rounds and the tools declared) and legal results for a given request.
 * Single mutations of them, each tagged with the validator rule it must trip, are in mutations.ts; the leaf
 * values (strings, JSON, unknown fields) in values.ts.
 *
 * Everything generated is plain JSON, so it survives a round trip through a relay and JSON.stringify
 * unchanged; params, every message, every block, every tool and the result carry an unknown field now and
 * then, to check that unknown fields stay legal and, in differential runs, that relays forward them.
 */
import fc from "fast-check";
import { ERAS, type Era, featuresOf, isModernEra } from "../protocol/eras.ts";
import type { SamplingCapabilities } from "../validator/types.ts";
import {
  base64,
  caseVariant,
  compact,
  fancy,
  finite,
  type Json,
  jsonObject,
  modelName,
  opt,
  record,
  text,
  toolId,
  toolName,
  unit,
  withUnknown,
} from "./values.ts";

export type { Json } from "./values.ts";

export interface LegalRequest {
  era: Era;
  params: Json;
  /** What the receiving client declared (undefined: unknown, capability rules not checked). */
  capabilities: SamplingCapabilities | undefined;
}

export interface LegalExchange extends LegalRequest {
  result: Json;
}

export const hasTools = (era: Era) => featuresOf(era).tools;
export const hasAudio = (era: Era) => featuresOf(era).audio;
const hasBlockMeta = (era: Era) => featuresOf(era).blockMeta;

// ---------------------------------------------------------------------------------------------- blocks

function annotations(era: Era): fc.Arbitrary<Json> {
  return record({
    audience: opt(fc.uniqueArray(fc.constantFrom("user", "assistant"), { maxLength: 2 })),
    priority: opt(unit),
    lastModified: hasBlockMeta(era) ? opt(fc.constant("2025-01-12T15:00:58Z")) : fc.constant(null),
  }).map(compact);
}

function blockExtras(era: Era) {
  return {
    annotations: opt(annotations(era), 4),
    _meta: hasBlockMeta(era) ? opt(jsonObject, 5) : fc.constant(null),
  };
}

export function textBlock(era: Era): fc.Arbitrary<Json> {
  return withUnknown(record({ type: fc.constant("text"), text, ...blockExtras(era) }).map(compact));
}

function mediaBlock(era: Era, type: "image" | "audio"): fc.Arbitrary<Json> {
  const mime =
    type === "image"
      ? fc.constantFrom("image/png", "image/jpeg")
      : fc.constantFrom("audio/wav", "audio/mpeg");
  return withUnknown(
    record({ type: fc.constant(type), data: base64, mimeType: mime, ...blockExtras(era) }).map(compact),
  );
}

/** A block a message may hold in `era`, tool blocks excluded. */
export function mediaContentBlock(era: Era): fc.Arbitrary<Json> {
  const options = [
    { weight: 6, arbitrary: textBlock(era) },
    { weight: 1, arbitrary: mediaBlock(era, "image") },
  ];
  if (hasAudio(era)) options.push({ weight: 1, arbitrary: mediaBlock(era, "audio") });
  return fc.oneof(...options);
}

/** A malformed-block mutation builds on these: a legal block of `type`, then breaks one field. */
export function blockOfType(era: Era, type: "text" | "image" | "audio"): fc.Arbitrary<Json> {
  return type === "text" ? textBlock(era) : mediaBlock(era, type);
}

/** ContentBlock inside tool_result.content (2025-11-25+). */
function resultContentBlock(era: Era): fc.Arbitrary<Json> {
  const link = withUnknown(
    record({
      type: fc.constant("resource_link"),
      uri: fc.constantFrom("file:///tmp/a.txt", "https://example.com/r/1"),
      name: fancy,
      mimeType: opt(fc.constant("text/plain")),
    }).map(compact),
  );
  const embedded = withUnknown(
    record({
      type: fc.constant("resource"),
      resource: fc.oneof(
        record({ uri: fc.constant("file:///tmp/b.txt"), mimeType: fc.constant("text/plain"), text }),
        record({ uri: fc.constant("file:///tmp/c.bin"), blob: base64 }),
      ),
    }),
  );
  return fc.oneof(
    { weight: 6, arbitrary: textBlock(era) },
    { weight: 1, arbitrary: mediaBlock(era, "image") },
    { weight: 1, arbitrary: mediaBlock(era, "audio") },
    { weight: 1, arbitrary: link },
    { weight: 1, arbitrary: embedded },
  );
}

// ---------------------------------------------------------------------------------------------- tools

function toolDef(name: string): fc.Arbitrary<Json> {
  return withUnknown(
    record({
      name: fc.constant(name),
      description: opt(text),
      inputSchema: fc.constant({ type: "object", properties: { q: { type: "string" } }, required: ["q"] }),
    }).map(compact),
  );
}

/** A non-empty `tools` array with distinct names (names may differ only in letter case). */
const toolsArb = fc
  .uniqueArray(toolName, { minLength: 1, maxLength: 4 })
  .chain((names) => fc.tuple(...names.map(toolDef)));

/** A tool_use block's fields other than type, id and name (`tool` picks the tool by index). */
const toolUseSeed = withUnknown(
  record({ tool: fc.nat(), input: jsonObject, _meta: opt(jsonObject, 6) }).map(compact),
) as fc.Arbitrary<Json & { tool: number }>;

/**
 * Distinct tool_use ids for one assistant message. Now and then the second is the first with its letter case
 * changed: legal (ids are compared exactly), and a relay that pairs ids case-insensitively mistakes them.
 */
const toolIds = fc
  .tuple(fc.uniqueArray(toolId, { minLength: 3, maxLength: 3 }), fc.boolean(), fc.nat({ max: 3 }))
  .map(([ids, twin, k]) => {
    const variant = twin && k === 0 ? caseVariant(ids[0]!, new Set(ids)) : undefined;
    return variant === undefined ? ids : [ids[0]!, variant, ids[2]!];
  });

/** One tool round as generated data; the order of results is fixed when the history is assembled. */
interface RoundSeed {
  uses: (Json & { tool: number })[];
  ids: string[];
  lead: Json | null;
  /** Sort keys giving the order of the tool_results (a permutation of the uses). */
  order: number[];
  results: Json[];
}

function roundSeed(era: Era): fc.Arbitrary<RoundSeed> {
  const resArb = withUnknown(
    record({
      content: fc.array(resultContentBlock(era), { maxLength: 2 }),
      isError: opt(fc.boolean()),
      structuredContent: opt(jsonObject, 5),
      _meta: opt(jsonObject, 6),
    }).map(compact),
  );
  return record({
    uses: fc.array(toolUseSeed, { minLength: 1, maxLength: 3 }),
    ids: toolIds,
    lead: opt(textBlock(era)),
    order: fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
    results: fc.array(resArb, { minLength: 3, maxLength: 3 }),
  });
}

/** tool_use blocks from seeds: the k-th gets `ids[k]` and a tool name from `tools`. */
function toolUses(seeds: (Json & { tool: number })[], ids: string[], tools: Json[]): Json[] {
  return seeds.map(({ tool, ...rest }, k) => ({
    type: "tool_use",
    id: ids[k]!,
    name: tools[tool % tools.length]!.name,
    ...rest,
  }));
}

/** The assistant tool_use message and the user tool_result message of round `r`. */
function buildRound(seed: RoundSeed, r: number, tools: Json[]): [Json, Json] {
  const uses = toolUses(seed.uses, seed.ids, tools);
  const assistant = { role: "assistant", content: seed.lead ? [seed.lead, ...uses] : uses };
  const order = uses.map((_, k) => k).sort((a, b) => (seed.order[a] ?? a) - (seed.order[b] ?? b) || a - b);
  const results = order.map((k) => ({ type: "tool_result", toolUseId: uses[k]!.id, ...seed.results[k]! }));
  // A single result may travel as a bare block (spec: "Valid - single tool result").
  const user = { role: "user", content: results.length === 1 && r % 2 === 1 ? results[0] : results };
  return [assistant, user];
}

// ---------------------------------------------------------------------------------------------- messages

function message(era: Era, role: "user" | "assistant"): fc.Arbitrary<Json> {
  const single = mediaContentBlock(era);
  const content = hasTools(era)
    ? fc.oneof(
        { weight: 3, arbitrary: single },
        { weight: 1, arbitrary: fc.array(single, { minLength: 0, maxLength: 3 }) },
      )
    : single;
  return withUnknown(
    record({
      role: fc.constant(role),
      content,
      _meta: hasTools(era) ? opt(jsonObject, 6) : fc.constant(null),
    }).map(compact),
  );
}

/** A chat history without tool blocks: user first, then any roles. */
function plainHistory(era: Era, maxLength: number): fc.Arbitrary<Json[]> {
  return fc
    .tuple(
      message(era, "user"),
      fc.array(
        fc.constantFrom("user", "assistant").chain((role) => message(era, role as "user" | "assistant")),
        { maxLength },
      ),
    )
    .map(([first, rest]) => [first, ...rest]);
}

// ---------------------------------------------------------------------------------------------- params

function commonParams(era: Era) {
  return {
    maxTokens: fc.integer({ min: 1, max: 100_000 }),
    systemPrompt: opt(text),
    temperature: opt(finite),
    stopSequences: opt(fc.array(fancy, { maxLength: 2 })),
    metadata: opt(jsonObject),
    modelPreferences: opt(
      record({
        hints: opt(fc.array(withUnknown(record({ name: modelName }), 5), { maxLength: 2 })),
        costPriority: opt(unit),
        speedPriority: opt(unit),
        intelligencePriority: opt(unit),
      }).map(compact),
    ),
    // 2026-07-28 requests carry the protocol version in _meta, which the harness's upstream sets itself.
    _meta: !isModernEra(era)
      ? opt(
          fc
            .tuple(record({ progressToken: fc.oneof(fancy, fc.nat()) }), jsonObject)
            .map(([token, rest]) => ({ ...rest, ...token })),
          4,
        )
      : fc.constant(null),
    task: featuresOf(era).task ? opt(record({ ttl: fc.nat({ max: 600_000 }) }), 6) : fc.constant(null),
  };
}

/** includeContext and the capabilities declared with it. */
function contextAndCaps(
  era: Era,
  toolsUsed: boolean,
): fc.Arbitrary<{ includeContext: string | null; caps: SamplingCapabilities | undefined }> {
  return record({
    includeContext: fc.constantFrom(null, "none", "thisServer", "allServers"),
    declareContext: fc.boolean(),
    declareTools: fc.boolean(),
    unknown: fc.boolean(),
  }).map(({ includeContext, declareContext, declareTools, unknown }) => {
    if (!hasTools(era)) {
      return { includeContext, caps: unknown ? undefined : { sampling: {} } };
    }
    // Capabilities may be unknown only when nothing depends on them.
    const contextual = includeContext === "thisServer" || includeContext === "allServers";
    if (unknown && !toolsUsed) return { includeContext, caps: undefined };
    const sampling: Json = {};
    if (toolsUsed || declareTools) sampling.tools = {};
    if (contextual || declareContext) sampling.context = {};
    return { includeContext, caps: { sampling } };
  });
}

/**
 * Legal request params for `era`. From 2025-11-25 about half carry tools and a tool loop of 0..maxRounds rounds
 * (assistant tool_use → user tool_results with the same ids, in any order), with `sampling.tools` declared.
 */
export function legalRequest(
  era: Era,
  opts: { maxRounds?: number; maxPlain?: number } = {},
): fc.Arbitrary<LegalRequest> {
  const maxRounds = opts.maxRounds ?? 4;
  const maxPlain = opts.maxPlain ?? 4;
  const plain = record({
    history: plainHistory(era, maxPlain),
    ctx: contextAndCaps(era, false),
    ...commonParams(era),
  }).map(({ history, ctx, ...rest }) => ({
    era,
    params: compact({ messages: history, includeContext: ctx.includeContext, ...rest }),
    capabilities: ctx.caps,
  }));
  if (!hasTools(era)) return withUnknownParams(plain);
  return withUnknownParams(fc.oneof(plain, toolLoopRequest(era, { minRounds: 0, maxRounds })));
}

function withUnknownParams(arb: fc.Arbitrary<LegalRequest>): fc.Arbitrary<LegalRequest> {
  return fc
    .tuple(arb, withUnknown(fc.constant({}), 3))
    .map(([req, extra]) => ({ ...req, params: { ...req.params, ...extra } }));
}

/** Legal params with tools declared and a tool loop of minRounds..maxRounds rounds (2025-11-25+). */
export function toolLoopRequest(
  era: Era,
  opts: { minRounds?: number; maxRounds?: number } = {},
): fc.Arbitrary<LegalRequest> {
  if (!hasTools(era)) throw new RangeError(`tool loops need 2025-11-25 or later, not ${era}`);
  const minRounds = opts.minRounds ?? 1;
  const maxRounds = Math.max(minRounds, opts.maxRounds ?? 4);
  return record({
    first: message(era, "user"),
    tools: toolsArb,
    rounds: fc.array(roundSeed(era), { minLength: minRounds, maxLength: maxRounds }),
    toolChoice: opt(
      withUnknown(record({ mode: opt(fc.constantFrom("auto", "required", "none"), 5) }).map(compact), 5),
    ),
    ctx: contextAndCaps(era, true),
    ...commonParams(era),
  }).map(({ first, tools, rounds, toolChoice, ctx, ...rest }) => {
    const messages: Json[] = [first];
    for (const [r, seed] of rounds.entries()) messages.push(...buildRound(seed, r, tools));
    return {
      era,
      params: compact({ messages, tools, toolChoice, includeContext: ctx.includeContext, ...rest }),
      capabilities: ctx.caps,
    };
  });
}

/**
 * A tool loop of exactly `messageCount` messages (a first user message, then assistant/user rounds; an odd
 * remainder is a final user text), for benchmarks. Deterministic for a given seed.
 */
export function toolLoopOfLength(era: Era, messageCount: number, seed = 42): LegalRequest {
  const rounds = Math.floor((messageCount - 1) / 2);
  const [req] = fc.sample(toolLoopRequest(era, { minRounds: rounds, maxRounds: rounds }), {
    seed,
    numRuns: 1,
  });
  const params = req!.params;
  const messages = params.messages as Json[];
  if (messages.length < messageCount)
    messages.push({ role: "assistant", content: { type: "text", text: "done" } });
  return req!;
}

// ---------------------------------------------------------------------------------------------- results

const STOP_PLAIN = ["endTurn", "stopSequence", "maxTokens", "refusal", "provider:content_filter"] as const;

/**
 * What a result is made of, generated without looking at the request: whether it uses tools (when the request
 * lets it), and the fields of both shapes. Kept independent of the request so that an exchange is a plain tuple,
 * which fast-check shrinks on both sides (a `chain` from request to result shrinks poorly).
 */
function resultSeed(era: Era) {
  const plainContent = hasTools(era)
    ? fc.oneof(
        { weight: 3, arbitrary: mediaContentBlock(era) },
        { weight: 1, arbitrary: fc.array(mediaContentBlock(era), { minLength: 1, maxLength: 3 }) },
      )
    : mediaContentBlock(era);
  return withUnknown(
    record({
      useTools: fc.boolean(),
      role: fc.constantFrom("assistant", "assistant", "user"),
      content: plainContent,
      stopReason: opt(
        fc.oneof(
          fc.constantFrom(...STOP_PLAIN),
          fancy.filter((r) => r !== "toolUse"),
        ),
        4,
      ),
      lead: opt(textBlock(era)),
      uses: fc.array(toolUseSeed, { minLength: 1, maxLength: 3 }),
      ids: toolIds,
      model: modelName,
      _meta: opt(jsonObject, 5),
    }),
  );
}

type ResultSeed = ReturnType<typeof resultSeed> extends fc.Arbitrary<infer T> ? T : never;

/** The legal result a seed stands for, answering `params` (tool_use only when the request allows it). */
function buildResult(era: Era, params: Json, seed: ResultSeed): Json {
  const { useTools, role, content, stopReason, lead, uses, ids, ...rest } = seed;
  const tools = Array.isArray(params.tools) ? (params.tools as Json[]) : [];
  const mode = (params.toolChoice as Json | undefined)?.mode;
  const mayUseTools = hasTools(era) && tools.length > 0 && mode !== "none";
  if (!(mayUseTools && useTools)) return compact({ role, content, stopReason, ...rest });
  const blocks = toolUses(uses, ids, tools);
  return compact({
    role: "assistant",
    content: lead ? [lead, ...blocks] : blocks,
    stopReason: "toolUse",
    ...rest,
  });
}

/** Legal results for `params` in `era` (tool_use only when the request offers tools and allows their use). */
export function legalResult(era: Era, params: Json): fc.Arbitrary<Json> {
  return resultSeed(era).map((seed) => buildResult(era, params, seed));
}

/** A legal request and a legal result answering it. */
export function legalExchange(era: Era, opts?: { maxRounds?: number }): fc.Arbitrary<LegalExchange> {
  return fc
    .tuple(legalRequest(era, opts), resultSeed(era))
    .map(([req, seed]) => ({ ...req, result: buildResult(era, req.params, seed) }));
}

/** Arbitrary era. */
export const era: fc.Arbitrary<Era> = fc.constantFrom(...ERAS);
