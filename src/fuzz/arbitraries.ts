/**
 * fast-check arbitraries for sampling exchanges, per era: legal CreateMessageRequest params (from 2025-11-25
 * with tool loops of N rounds and the tools declared), legal results for a given request, and single
 * mutations, each tagged with the validator rule it must trip and the code that rule carries.
 *
 * Everything generated is plain JSON (no undefined, no -0, no non-finite numbers), so it survives a round trip
 * through a relay and JSON.stringify unchanged; every object carries an unknown field now and then, to check
 * that unknown fields stay legal (and, in differential runs, that relays forward them).
 */
import fc from "fast-check";
import { ERAS, type Era } from "../validator/eras.ts";
import { CHANNEL_CODE, type RuleId } from "../validator/rules.ts";
import type { SamplingCapabilities } from "../validator/types.ts";

type Json = Record<string, unknown>;

export interface LegalRequest {
  era: Era;
  params: Json;
  /** What the receiving client declared (undefined: unknown, capability rules not checked). */
  capabilities: SamplingCapabilities | undefined;
}

export interface LegalExchange extends LegalRequest {
  result: Json;
}

export type MutationKind =
  | "drop-tool-result"
  | "mix-text-into-tool-result"
  | "wrong-tool-use-id"
  | "array-content-old-era"
  | "audio-in-2024-11-05"
  | "tool-block-old-era"
  | "missing-model"
  | "missing-role"
  | "tool-use-stop-reason-without-tools"
  | "non-integer-max-tokens"
  | "tools-without-capability";

export interface Mutation {
  era: Era;
  kind: MutationKind;
  /** Which value is illegal: the request params, or the result answering them. */
  target: "request" | "result";
  params: Json;
  capabilities: SamplingCapabilities | undefined;
  /** Present when target is "result". */
  result?: Json;
  /** The rule the validator must report (among possibly others). */
  expectRule: RuleId;
  /** The code that finding carries (-32602 on a request, -32603 on a result). */
  expectCode: number;
}

const hasTools = (era: Era) => era >= "2025-11-25";
const hasAudio = (era: Era) => era >= "2025-03-26";
const hasBlockMeta = (era: Era) => era >= "2025-06-18";

// ---------------------------------------------------------------------------------------------- leaves

/** Short printable words; enough variety to find escaping bugs without bloating payloads. */
const word = fc.string({ minLength: 1, maxLength: 12 });
const text = fc.oneof(
  { weight: 4, arbitrary: fc.lorem({ maxCount: 6 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20, unit: "grapheme" }) },
);
const base64 = fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b).toString("base64"));
const unit = fc
  .double({ min: 0, max: 1, noNaN: true, noDefaultInfinity: true })
  .map((d) => (Object.is(d, -0) ? 0 : d));
const finite = fc
  .double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true })
  .map((d) => (Object.is(d, -0) ? 0 : d));
/** A small JSON object (values: strings, integers, booleans, nested once). */
const jsonObject = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 8 }),
  fc.oneof(
    word,
    fc.integer(),
    fc.boolean(),
    fc.dictionary(fc.string({ maxLength: 4 }), word, { maxKeys: 2 }),
  ),
  { maxKeys: 3 },
);
/** Maybe adds an unknown field (prefixed so it never collides with a declared one). */
function withUnknown<T extends Json>(arb: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc
    .tuple(arb, fc.option(fc.tuple(fc.constantFrom("x-canary", "x_vendor", "zz-extra"), word), { freq: 4 }))
    .map(([obj, extra]) => (extra ? { ...obj, [extra[0]]: extra[1] } : obj));
}
/** Builds an object leaving out the keys whose value is null (the "absent" option). */
function compact(obj: Record<string, unknown>): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) if (v !== null) out[k] = v;
  return out;
}
const opt = <T>(arb: fc.Arbitrary<T>, freq = 3) => fc.option(arb, { freq });

// ---------------------------------------------------------------------------------------------- blocks

function annotations(era: Era): fc.Arbitrary<Json> {
  return fc
    .record({
      audience: opt(fc.uniqueArray(fc.constantFrom("user", "assistant"), { maxLength: 2 })),
      priority: opt(unit),
      lastModified: hasBlockMeta(era) ? opt(fc.constant("2025-01-12T15:00:58Z")) : fc.constant(null),
    })
    .map(compact);
}

function blockExtras(era: Era) {
  return {
    annotations: opt(annotations(era), 4),
    _meta: hasBlockMeta(era) ? opt(jsonObject, 5) : fc.constant(null),
  };
}

export function textBlock(era: Era): fc.Arbitrary<Json> {
  return withUnknown(fc.record({ type: fc.constant("text"), text, ...blockExtras(era) }).map(compact));
}

function mediaBlock(era: Era, type: "image" | "audio"): fc.Arbitrary<Json> {
  const mime =
    type === "image"
      ? fc.constantFrom("image/png", "image/jpeg")
      : fc.constantFrom("audio/wav", "audio/mpeg");
  return withUnknown(
    fc.record({ type: fc.constant(type), data: base64, mimeType: mime, ...blockExtras(era) }).map(compact),
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

/** ContentBlock inside tool_result.content (2025-11-25+). */
function resultContentBlock(era: Era): fc.Arbitrary<Json> {
  const link = fc
    .record({
      type: fc.constant("resource_link"),
      uri: fc.constantFrom("file:///tmp/a.txt", "https://example.com/r/1"),
      name: word,
      mimeType: opt(fc.constant("text/plain")),
    })
    .map(compact);
  const embedded = fc.record({
    type: fc.constant("resource"),
    resource: fc.oneof(
      fc.record({ uri: fc.constant("file:///tmp/b.txt"), mimeType: fc.constant("text/plain"), text }),
      fc.record({ uri: fc.constant("file:///tmp/c.bin"), blob: base64 }),
    ),
  });
  return fc.oneof(
    { weight: 6, arbitrary: textBlock(era) },
    { weight: 1, arbitrary: mediaBlock(era, "image") },
    { weight: 1, arbitrary: mediaBlock(era, "audio") },
    { weight: 1, arbitrary: link },
    { weight: 1, arbitrary: embedded },
  );
}

// ---------------------------------------------------------------------------------------------- tools

const TOOL_NAMES = ["get_weather", "search", "calc", "read_file"] as const;

function toolDef(name: string): fc.Arbitrary<Json> {
  return withUnknown(
    fc
      .record({
        name: fc.constant(name),
        description: opt(text),
        inputSchema: fc.constant({ type: "object", properties: { q: { type: "string" } }, required: ["q"] }),
      })
      .map(compact),
  );
}

/** A non-empty `tools` array with distinct names. */
const toolsArb = fc
  .uniqueArray(fc.constantFrom(...TOOL_NAMES), { minLength: 1, maxLength: TOOL_NAMES.length })
  .chain((names) => fc.tuple(...names.map(toolDef)));

/** One tool round as generated data; ids and order are fixed when the history is assembled. */
interface RoundSeed {
  uses: { tool: number; input: Json }[];
  lead: Json | null;
  /** Sort keys giving the order of the tool_results (a permutation of the uses). */
  order: number[];
  results: { content: Json[]; isError: boolean | null; structured: Json | null }[];
}

function roundSeed(era: Era): fc.Arbitrary<RoundSeed> {
  const useArb = fc.record({ tool: fc.nat(), input: jsonObject });
  const resArb = fc.record({
    content: fc.array(resultContentBlock(era), { maxLength: 2 }),
    isError: opt(fc.boolean()),
    structured: opt(jsonObject, 5),
  });
  return fc.record({
    uses: fc.array(useArb, { minLength: 1, maxLength: 3 }),
    lead: opt(textBlock(era)),
    order: fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
    results: fc.array(resArb, { minLength: 3, maxLength: 3 }),
  });
}

/** The assistant tool_use message and the user tool_result message of round `r`. */
function buildRound(seed: RoundSeed, r: number, tools: Json[]): [Json, Json] {
  const uses = seed.uses.map((u, k) => ({
    type: "tool_use",
    id: `toolu_${r}_${k}`,
    name: tools[u.tool % tools.length]!.name,
    input: u.input,
  }));
  const assistant = { role: "assistant", content: seed.lead ? [seed.lead, ...uses] : uses };
  const order = uses.map((_, k) => k).sort((a, b) => (seed.order[a] ?? a) - (seed.order[b] ?? b) || a - b);
  const results = order.map((k) => {
    const res = seed.results[k]!;
    return compact({
      type: "tool_result",
      toolUseId: uses[k]!.id,
      content: res.content,
      isError: res.isError,
      structuredContent: res.structured,
    });
  });
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
    fc
      .record({
        role: fc.constant(role),
        content,
        _meta: hasTools(era) ? opt(jsonObject, 6) : fc.constant(null),
      })
      .map(compact),
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
    stopSequences: opt(fc.array(word, { maxLength: 2 })),
    metadata: opt(jsonObject),
    modelPreferences: opt(
      fc
        .record({
          hints: opt(
            fc.array(fc.record({ name: fc.constantFrom("claude-3-sonnet", "gpt", "gemini") }), {
              maxLength: 2,
            }),
          ),
          costPriority: opt(unit),
          speedPriority: opt(unit),
          intelligencePriority: opt(unit),
        })
        .map(compact),
    ),
    _meta:
      era < "2026-07-28" ? opt(fc.record({ progressToken: fc.oneof(word, fc.nat()) }), 4) : fc.constant(null),
    task: era === "2025-11-25" ? opt(fc.record({ ttl: fc.nat({ max: 600_000 }) }), 6) : fc.constant(null),
  };
}

/** includeContext and the capabilities declared with it. */
function contextAndCaps(
  era: Era,
  toolsUsed: boolean,
): fc.Arbitrary<{ includeContext: string | null; caps: SamplingCapabilities | undefined }> {
  return fc
    .record({
      includeContext: fc.constantFrom(null, "none", "thisServer", "allServers"),
      declareContext: fc.boolean(),
      declareTools: fc.boolean(),
      unknown: fc.boolean(),
    })
    .map(({ includeContext, declareContext, declareTools, unknown }) => {
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
  const plain = fc
    .record({ history: plainHistory(era, maxPlain), ctx: contextAndCaps(era, false), ...commonParams(era) })
    .map(({ history, ctx, ...rest }) => ({
      era,
      params: compact({ messages: history, includeContext: ctx.includeContext, ...rest }),
      capabilities: ctx.caps,
    }));
  if (!hasTools(era)) return withUnknownParams(plain);
  return withUnknownParams(fc.oneof(plain, toolLoopRequest(era, { minRounds: 0, maxRounds })));
}

function withUnknownParams(arb: fc.Arbitrary<LegalRequest>): fc.Arbitrary<LegalRequest> {
  return fc
    .tuple(arb, opt(word, 3))
    .map(([req, extra]) => (extra === null ? req : { ...req, params: { ...req.params, "x-canary": extra } }));
}

/** Legal params with tools declared and a tool loop of minRounds..maxRounds rounds (2025-11-25+). */
export function toolLoopRequest(
  era: Era,
  opts: { minRounds?: number; maxRounds?: number } = {},
): fc.Arbitrary<LegalRequest> {
  if (!hasTools(era)) throw new RangeError(`tool loops need 2025-11-25 or later, not ${era}`);
  const minRounds = opts.minRounds ?? 1;
  const maxRounds = Math.max(minRounds, opts.maxRounds ?? 4);
  return fc
    .record({
      first: message(era, "user"),
      tools: toolsArb,
      rounds: fc.array(roundSeed(era), { minLength: minRounds, maxLength: maxRounds }),
      toolChoice: opt(fc.record({ mode: fc.constantFrom("auto", "required", "none") }).map(compact)),
      ctx: contextAndCaps(era, true),
      ...commonParams(era),
    })
    .map(({ first, tools, rounds, toolChoice, ctx, ...rest }) => {
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

/** Legal results for `params` in `era` (tool_use only when the request offers tools and allows their use). */
export function legalResult(era: Era, params: Json): fc.Arbitrary<Json> {
  const tools = Array.isArray(params.tools) ? (params.tools as Json[]) : [];
  const mode = (params.toolChoice as Json | undefined)?.mode;
  const mayUseTools = hasTools(era) && tools.length > 0 && mode !== "none";
  const common = {
    model: fc.constantFrom("claude-3-sonnet-20240307", "gpt-4o", "local-model"),
    _meta: opt(jsonObject, 5),
  };
  const plainContent = hasTools(era)
    ? fc.oneof(
        { weight: 3, arbitrary: mediaContentBlock(era) },
        { weight: 1, arbitrary: fc.array(mediaContentBlock(era), { minLength: 1, maxLength: 3 }) },
      )
    : mediaContentBlock(era);
  const plain = fc
    .record({
      role: fc.constantFrom("assistant", "assistant", "user"),
      content: plainContent,
      stopReason: opt(fc.constantFrom(...STOP_PLAIN), 4),
      ...common,
    })
    .map(compact);
  if (!mayUseTools) return withUnknown(plain);
  const toolUse = fc
    .record({
      lead: opt(textBlock(era)),
      uses: fc.array(fc.record({ tool: fc.nat(), input: jsonObject }), { minLength: 1, maxLength: 3 }),
      ...common,
    })
    .map(({ lead, uses, ...rest }) => {
      const blocks = uses.map((u, k) => ({
        type: "tool_use",
        id: `toolu_result_${k}`,
        name: tools[u.tool % tools.length]!.name,
        input: u.input,
      }));
      return compact({
        role: "assistant",
        content: lead ? [lead, ...blocks] : blocks,
        stopReason: "toolUse",
        ...rest,
      });
    });
  return withUnknown(fc.oneof(plain, toolUse));
}

/** A legal request and a legal result answering it. */
export function legalExchange(era: Era, opts?: { maxRounds?: number }): fc.Arbitrary<LegalExchange> {
  return legalRequest(era, opts).chain((req) =>
    legalResult(era, req.params).map((result) => ({ ...req, result })),
  );
}

// ---------------------------------------------------------------------------------------------- mutations

const clone = <T>(v: T): T => structuredClone(v);

function requestMutation(
  era: Era,
  kind: MutationKind,
  expectRule: RuleId,
  base: fc.Arbitrary<LegalRequest>,
  mutate: (params: Json, pick: number) => void,
  capabilities?: (req: LegalRequest) => SamplingCapabilities | undefined,
): fc.Arbitrary<Mutation> {
  return fc.tuple(base, fc.nat()).map(([req, pick]) => {
    const params = clone(req.params);
    mutate(params, pick);
    return {
      era,
      kind,
      target: "request" as const,
      params,
      capabilities: capabilities ? capabilities(req) : req.capabilities,
      expectRule,
      expectCode: CHANNEL_CODE.request,
    };
  });
}

function resultMutation(
  era: Era,
  kind: MutationKind,
  expectRule: RuleId,
  base: fc.Arbitrary<LegalExchange>,
  mutate: (result: Json) => void,
): fc.Arbitrary<Mutation> {
  return base.map((ex) => {
    const result = clone(ex.result);
    mutate(result);
    return {
      era,
      kind,
      target: "result" as const,
      params: ex.params,
      capabilities: ex.capabilities,
      result,
      expectRule,
      expectCode: CHANNEL_CODE.result,
    };
  });
}

/** The user tool_result messages of a generated tool loop (indices into messages). */
function replyIndices(messages: Json[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < messages.length; i++) {
    const c = messages[i]!.content;
    const blocks = Array.isArray(c) ? c : [c];
    if (messages[i]!.role === "user" && blocks.some((b) => (b as Json)?.type === "tool_result")) out.push(i);
  }
  return out;
}

function asArray(message: Json): Json[] {
  if (!Array.isArray(message.content)) message.content = [message.content];
  return message.content as Json[];
}

/** Every mutation kind that applies to `era`. */
export function mutationKinds(era: Era): MutationKind[] {
  const kinds: MutationKind[] = ["missing-model", "missing-role", "non-integer-max-tokens"];
  if (hasTools(era)) {
    kinds.push(
      "drop-tool-result",
      "mix-text-into-tool-result",
      "wrong-tool-use-id",
      "tool-use-stop-reason-without-tools",
      "tools-without-capability",
    );
  } else {
    kinds.push("array-content-old-era", "tool-block-old-era");
    if (era === "2024-11-05") kinds.push("audio-in-2024-11-05");
  }
  return kinds;
}

/** One single-mutation arbitrary of `kind` for `era` (throws if the kind does not apply to the era). */
export function mutationOf(era: Era, kind: MutationKind): fc.Arbitrary<Mutation> {
  if (!mutationKinds(era).includes(kind)) throw new RangeError(`mutation ${kind} does not apply to ${era}`);
  const loop = () => toolLoopRequest(era, { minRounds: 1, maxRounds: 3 });
  const pickReply = (params: Json, pick: number): Json => {
    const messages = params.messages as Json[];
    const replies = replyIndices(messages);
    return messages[replies[pick % replies.length]!]!;
  };
  switch (kind) {
    case "drop-tool-result":
      return requestMutation(era, kind, "message.tool-result-missing", loop(), (params, pick) => {
        const blocks = asArray(pickReply(params, pick));
        blocks.splice(pick % blocks.length, 1);
      });
    case "mix-text-into-tool-result":
      return requestMutation(era, kind, "message.tool-result-only", loop(), (params, pick) => {
        const blocks = asArray(pickReply(params, pick));
        blocks.splice(pick % (blocks.length + 1), 0, { type: "text", text: "Here are the results:" });
      });
    case "wrong-tool-use-id":
      return requestMutation(era, kind, "message.tool-result-unmatched", loop(), (params, pick) => {
        const blocks = asArray(pickReply(params, pick));
        blocks[pick % blocks.length]!.toolUseId = "toolu_no_such_call";
      });
    case "array-content-old-era":
      return requestMutation(
        era,
        kind,
        "content.array-before-2025-11-25",
        legalRequest(era),
        (params, pick) => {
          const messages = params.messages as Json[];
          asArray(messages[pick % messages.length]!);
        },
      );
    case "audio-in-2024-11-05":
      return requestMutation(
        era,
        kind,
        "content.audio-before-2025-03-26",
        legalRequest(era),
        (params, pick) => {
          const messages = params.messages as Json[];
          messages[pick % messages.length]!.content = {
            type: "audio",
            data: "UklGRg==",
            mimeType: "audio/wav",
          };
        },
      );
    case "tool-block-old-era":
      return requestMutation(
        era,
        kind,
        "content.tool-blocks-before-2025-11-25",
        legalRequest(era),
        (params, pick) => {
          const messages = params.messages as Json[];
          const m = messages[pick % messages.length]!;
          m.content =
            pick % 2 === 0
              ? { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }
              : { type: "tool_result", toolUseId: "toolu_1", content: [] };
        },
      );
    case "non-integer-max-tokens":
      return requestMutation(era, kind, "request.max-tokens", legalRequest(era), (params) => {
        params.maxTokens = (params.maxTokens as number) + 0.5;
      });
    case "tools-without-capability":
      return requestMutation(
        era,
        kind,
        "request.tools-capability",
        loop(),
        () => {},
        (req) => {
          const sampling: Json = { ...(req.capabilities?.sampling ?? {}) };
          delete sampling.tools;
          return { ...req.capabilities, sampling };
        },
      );
    case "missing-model":
      return resultMutation(era, kind, "result.model", legalExchange(era), (r) => {
        delete r.model;
      });
    case "missing-role":
      return resultMutation(era, kind, "result.role", legalExchange(era), (r) => {
        delete r.role;
      });
    case "tool-use-stop-reason-without-tools": {
      const toolless = legalRequest(era).filter((r) => !Array.isArray(r.params.tools));
      const ex = toolless.chain((req) => legalResult(era, req.params).map((result) => ({ ...req, result })));
      return resultMutation(era, kind, "result.tool-use-without-tools", ex, (r) => {
        r.stopReason = "toolUse";
      });
    }
  }
}

/** Any single mutation that applies to `era`. */
export function mutation(era: Era): fc.Arbitrary<Mutation> {
  return fc.oneof(...mutationKinds(era).map((k) => mutationOf(era, k)));
}

/** Arbitrary era. */
export const era: fc.Arbitrary<Era> = fc.constantFrom(...ERAS);
