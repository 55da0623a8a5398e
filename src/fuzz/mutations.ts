/**
 * Single mutations of legal exchanges, each tagged with the validator rule it must trip. One table
 * (`MUTATIONS`) says, per kind: the rule, the eras it applies to, whether it breaks the request or the result,
 * and how it is generated.
 *
 * Positions: a mutation that targets a message or a block picks it from the whole range of candidates (first,
 * middle, last message; any block of an array content; any round of a tool loop), with an index drawn
 * independently of everything else and shrinking towards the first candidate, so that a relay that checks only
 * messages[0], only the last round or only the first block is caught. `Mutation.position` records the pick.
 *
 * Collateral findings are avoided where the rule allows it (a tool_use losing its id also loses its
 * tool_result), so that a relay that only catches the collateral violation does not pass for catching this one.
 */
import fc from "fast-check";
import { ERAS, type Era } from "../protocol/eras.ts";
import { CHANNEL_CODE, type RuleId } from "../validator/rules.ts";
import type { SamplingCapabilities } from "../validator/types.ts";
import {
  blockOfType,
  type LegalExchange,
  type LegalRequest,
  legalExchange,
  legalRequest,
  mediaContentBlock,
  toolLoopRequest,
} from "./arbitraries.ts";
import { caseVariant, type Json, toolId } from "./values.ts";

/** Where a positional mutation struck: candidate `index` of `of` (messages, blocks or tool blocks). */
export interface Position {
  index: number;
  of: number;
}

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
  /** Present for positional kinds. */
  position?: Position;
}

/** What a generator yields; the table row adds era, kind, rule and code. */
interface Draft {
  params: Json;
  capabilities: SamplingCapabilities | undefined;
  result?: Json;
  position?: Position;
}

// ---------------------------------------------------------------------------------------------- eras

const ALL: readonly Era[] = ERAS;
const from = (era: Era): readonly Era[] => ERAS.filter((e) => e >= era);
const until = (era: Era): readonly Era[] => ERAS.filter((e) => e <= era);

// ---------------------------------------------------------------------------------------------- positions

/** A block's place: message i, block j of its array content (null: the content is this one block). */
interface At {
  i: number;
  j: number | null;
}

const clone = <T>(v: T): T => structuredClone(v);
const messagesOf = (params: Json) => params.messages as Json[];

function blocks(m: Json): { block: Json; j: number | null }[] {
  const c = m.content;
  if (Array.isArray(c)) return c.map((block, j) => ({ block: block as Json, j }));
  return c && typeof c === "object" ? [{ block: c as Json, j: null }] : [];
}

function getBlock(messages: Json[], at: At): Json {
  const c = messages[at.i]!.content;
  return (at.j === null ? c : (c as Json[])[at.j]) as Json;
}

function setBlock(messages: Json[], at: At, block: Json): void {
  const m = messages[at.i]!;
  if (at.j === null) m.content = block;
  else (m.content as Json[])[at.j] = block;
}

/** Removes a block; a message whose only block goes keeps an empty array. */
function removeBlock(messages: Json[], at: At): void {
  const m = messages[at.i]!;
  if (at.j === null) m.content = [];
  else (m.content as Json[]).splice(at.j, 1);
}

/** Every block of `type` in the request, in message then block order. */
function blocksOfType(messages: Json[], type: string): At[] {
  return messages.flatMap((m, i) =>
    blocks(m).flatMap(({ block, j }) => (block?.type === type ? [{ i, j }] : [])),
  );
}

/**
 * Places a non-tool block can take without touching the tool loop: every non-tool block of a message that holds
 * no tool_result, and the end of an empty array content. Never empty (messages[0] is a plain user message).
 */
function freeSlots(messages: Json[]): At[] {
  const out: At[] = [];
  messages.forEach((m, i) => {
    const bs = blocks(m);
    if (bs.some(({ block }) => block?.type === "tool_result")) return;
    if (Array.isArray(m.content) && bs.length === 0) out.push({ i, j: 0 });
    for (const { block, j } of bs)
      if (block?.type !== "tool_use" && block?.type !== "tool_result") out.push({ i, j });
  });
  return out;
}

/** Candidate `pick mod n` and its position. */
function choose<T>(candidates: T[], pick: number): [T, Position] {
  const index = pick % candidates.length;
  return [candidates[index]!, { index, of: candidates.length }];
}

/** The ids of the tool_use blocks of a message. */
const toolUseIds = (m: Json | undefined) =>
  new Set(
    m ? blocks(m).flatMap(({ block }) => (block?.type === "tool_use" ? [block.id as string] : [])) : [],
  );

// ---------------------------------------------------------------------------------------------- builders

/**
 * Mutates a copy of a request's params. `pick` (drawn independently of the request, so any candidate can be hit;
 * shrinks to 0, the first candidate) chooses the position; `edit` returns the position it struck.
 */
function onRequest<E>(
  base: fc.Arbitrary<LegalRequest>,
  extra: fc.Arbitrary<E>,
  edit: (params: Json, pick: number, extra: E) => Position | undefined,
): fc.Arbitrary<Draft> {
  return fc.tuple(base, fc.nat(), extra).map(([req, pick, x]) => {
    const params = clone(req.params);
    const position = edit(params, pick, x);
    return { params, capabilities: req.capabilities, ...(position ? { position } : {}) };
  });
}

/** Replaces a free slot of a legal request (any message, any block) with `bad`. */
function badBlockAnywhere(era: Era, bad: fc.Arbitrary<Json>): fc.Arbitrary<Draft> {
  return onRequest(legalRequest(era), bad, (params, pick, block) => {
    const messages = messagesOf(params);
    const [at, position] = choose(freeSlots(messages), pick);
    if (at.j !== null && at.j >= (messages[at.i]!.content as Json[]).length)
      (messages[at.i]!.content as Json[]).push(block);
    else setBlock(messages, at, block);
    return position;
  });
}

/** A legal block of `type` with `field` deleted (or replaced, when `value` is given). */
function broken(era: Era, type: "text" | "image" | "audio", field: string, value?: fc.Arbitrary<unknown>) {
  return fc.tuple(blockOfType(era, type), value ?? fc.constant(undefined)).map(([block, v]) => {
    const out = { ...block };
    if (value === undefined) delete out[field];
    else out[field] = v;
    return out;
  });
}

/** Data that is not RFC 4648 padded base64: missing padding, whitespace, url-safe, data: URL, junk. */
const BAD_BASE64 = [
  "AAA",
  "QUJD=",
  "Q===",
  "QUJD\n",
  "AA A=",
  "-_-_",
  "QQ==QQ==",
  "data:image/png;base64,QUJD",
  "not base64!",
];

const loop = (era: Era) => toolLoopRequest(era, { minRounds: 1, maxRounds: 3 });

/** Mutates one block of `type` (any round, any position) in a copy of a legal tool loop of the era. */
function onLoopBlock(
  era: Era,
  type: "tool_result" | "tool_use",
  edit: (messages: Json[], at: At, params: Json) => void,
): fc.Arbitrary<Draft> {
  return onRequest(loop(era), fc.constant(0), (params, pick) => {
    const messages = messagesOf(params);
    const [at, position] = choose(blocksOfType(messages, type), pick);
    edit(messages, at, params);
    return position;
  });
}

/** The property a structured-content mutation types in its tool's outputSchema (no generated value has it). */
const SCHEMA_MARK = "mcpxConformSchemaMark";

/** Mutates a copy of a legal exchange's result. */
function onResult(
  base: fc.Arbitrary<LegalExchange>,
  edit: (result: Json, pick: number) => Position | undefined,
): fc.Arbitrary<Draft> {
  return fc.tuple(base, fc.nat()).map(([ex, pick]) => {
    const result = clone(ex.result);
    const position = edit(result, pick);
    return { params: ex.params, capabilities: ex.capabilities, result, ...(position ? { position } : {}) };
  });
}

/** Which field, deleted, makes a block of each type malformed (content.block-shape). */
const REQUIRED_FIELD: Record<string, string> = {
  text: "text",
  image: "mimeType",
  audio: "data",
  tool_use: "id",
  tool_result: "toolUseId",
};

/**
 * A wrong toolUseId for `id`: another id, or the right one with a suffix, without its last character, or
 * trimmed (a relay comparing prefixes or trimmed ids takes these for a match).
 */
function wrongId(id: string, how: number, fresh: string): string {
  switch (how) {
    case 0:
      return fresh;
    case 1:
      return `${id}x`;
    case 2:
      return id.length > 1 ? id.slice(0, -1) : `${id}y`;
    default:
      return id.trim() !== id ? id.trim() : `${id} `;
  }
}

// ---------------------------------------------------------------------------------------------- the table

interface MutationSpec {
  kind: string;
  rule: RuleId;
  eras: readonly Era[];
  target: "request" | "result";
  generate: (era: Era) => fc.Arbitrary<Draft>;
}

/** Every mutation kind: the rule it trips, the eras it applies to, what it breaks, how it is generated. */
export const MUTATIONS = [
  // --- requests, every era
  {
    kind: "non-integer-max-tokens",
    rule: "request.max-tokens",
    eras: ALL,
    target: "request",
    generate: (era) =>
      onRequest(legalRequest(era), fc.constant(0), (params) => {
        params.maxTokens = (params.maxTokens as number) + 0.5;
        return undefined;
      }),
  },
  {
    kind: "message-without-role",
    rule: "message.role",
    eras: ALL,
    target: "request",
    generate: (era) =>
      onRequest(legalRequest(era), fc.constant(0), (params, pick) => {
        const messages = messagesOf(params);
        const [m, position] = choose(messages, pick);
        delete m.role;
        return position;
      }),
  },
  {
    kind: "message-bad-role",
    rule: "message.role",
    eras: ALL,
    target: "request",
    generate: (era) =>
      onRequest(
        legalRequest(era),
        fc.constantFrom("system", "tool", "developer", "User", "Assistant", " user", "assistant\n"),
        (params, pick, role) => {
          const [m, position] = choose(messagesOf(params), pick);
          m.role = role;
          return position;
        },
      ),
  },
  {
    kind: "text-without-text",
    rule: "content.block-shape",
    eras: ALL,
    target: "request",
    generate: (era) => badBlockAnywhere(era, broken(era, "text", "text")),
  },
  {
    kind: "image-without-mime-type",
    rule: "content.block-shape",
    eras: ALL,
    target: "request",
    generate: (era) => badBlockAnywhere(era, broken(era, "image", "mimeType")),
  },
  {
    kind: "image-bad-base64",
    rule: "content.base64",
    eras: ALL,
    target: "request",
    generate: (era) => badBlockAnywhere(era, broken(era, "image", "data", fc.constantFrom(...BAD_BASE64))),
  },
  {
    kind: "audio-without-data",
    rule: "content.block-shape",
    eras: from("2025-03-26"),
    target: "request",
    generate: (era) => badBlockAnywhere(era, broken(era, "audio", "data")),
  },
  // --- requests, eras before tools
  {
    kind: "array-content-old-era",
    rule: "content.array-before-2025-11-25",
    eras: until("2025-06-18"),
    target: "request",
    generate: (era) =>
      onRequest(legalRequest(era), fc.constant(0), (params, pick) => {
        const [m, position] = choose(messagesOf(params), pick);
        m.content = [m.content];
        return position;
      }),
  },
  {
    kind: "audio-in-2024-11-05",
    rule: "content.audio-before-2025-03-26",
    eras: until("2024-11-05"),
    target: "request",
    generate: (era) =>
      badBlockAnywhere(era, fc.constant({ type: "audio", data: "UklGRg==", mimeType: "audio/wav" })),
  },
  {
    kind: "tool-block-old-era",
    rule: "content.tool-blocks-before-2025-11-25",
    eras: until("2025-06-18"),
    target: "request",
    generate: (era) =>
      badBlockAnywhere(
        era,
        fc.constantFrom(
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_result", toolUseId: "toolu_1", content: [] },
        ),
      ),
  },
  // --- requests, tool loops (2025-11-25+)
  {
    kind: "drop-tool-result",
    rule: "message.tool-result-missing",
    eras: from("2025-11-25"),
    target: "request",
    generate: (era) =>
      onLoopBlock(era, "tool_result", (messages, at) => {
        removeBlock(messages, at);
      }),
  },
  {
    kind: "mix-text-into-tool-result",
    rule: "message.tool-result-only",
    eras: from("2025-11-25"),
    target: "request",
    generate: (era) =>
      onRequest(loop(era), mediaContentBlock(era), (params, pick, block) => {
        // Insertion points: before each tool_result block, and after the last one of each message.
        const messages = messagesOf(params);
        const points: At[] = [];
        for (const [i, m] of messages.entries()) {
          const rs = blocks(m).filter(({ block: b }) => b?.type === "tool_result");
          if (rs.length === 0) continue;
          for (let j = 0; j <= rs.length; j++) points.push({ i, j });
        }
        const [at, position] = choose(points, pick);
        const m = messages[at.i]!;
        if (!Array.isArray(m.content)) m.content = [m.content];
        (m.content as Json[]).splice(at.j!, 0, block);
        return position;
      }),
  },
  {
    kind: "wrong-tool-use-id",
    rule: "message.tool-result-unmatched",
    eras: from("2025-11-25"),
    target: "request",
    generate: (era) =>
      onRequest(loop(era), fc.tuple(fc.nat({ max: 3 }), toolId), (params, pick, [how, fresh]) => {
        const messages = messagesOf(params);
        const [at, position] = choose(blocksOfType(messages, "tool_result"), pick);
        const block = getBlock(messages, at);
        const wrong = wrongId(block.toolUseId as string, how, fresh);
        block.toolUseId = toolUseIds(messages[at.i - 1]).has(wrong) ? `${wrong}#none` : wrong;
        return position;
      }),
  },
  {
    kind: "tool-result-id-case",
    rule: "message.tool-result-unmatched",
    eras: from("2025-11-25"),
    target: "request",
    generate: (era) =>
      onLoopBlock(era, "tool_result", (messages, at) => {
        // The toolUseId differs from its tool_use id only in letter case (and from every other id there).
        const block = getBlock(messages, at);
        const taken = toolUseIds(messages[at.i - 1]);
        block.toolUseId = caseVariant(block.toolUseId as string, taken) ?? `${block.toolUseId}#case`;
      }),
  },
  {
    kind: "tool-use-without-id",
    rule: "content.block-shape",
    eras: from("2025-11-25"),
    target: "request",
    generate: (era) =>
      onLoopBlock(era, "tool_use", (messages, at) => {
        // Its tool_result goes too: the tool_use itself is the only violation.
        const use = getBlock(messages, at);
        const reply = messages[at.i + 1];
        const answer = reply && blocks(reply).find(({ block }) => block?.toolUseId === use.id);
        if (answer) removeBlock(messages, { i: at.i + 1, j: answer.j });
        delete use.id;
      }),
  },
  {
    kind: "tool-result-without-tool-use-id",
    rule: "content.block-shape",
    eras: from("2025-11-25"),
    target: "request",
    generate: (era) =>
      onLoopBlock(era, "tool_result", (messages, at) => {
        // Its tool_use goes too: the tool_result itself is the only violation.
        const result = getBlock(messages, at);
        const use = blocks(messages[at.i - 1]!).find(({ block }) => block?.id === result.toolUseId);
        delete result.toolUseId;
        if (use) removeBlock(messages, { i: at.i - 1, j: use.j });
      }),
  },
  {
    kind: "structured-content-breaks-output-schema",
    rule: "message.structured-content-schema",
    eras: from("2025-11-25"),
    target: "request",
    generate: (era) =>
      onLoopBlock(era, "tool_result", (messages, at, params) => {
        // The answered tool gets an outputSchema typing one property as a number, and this tool_result (any round,
        // any block) a string there; the tool's other results hold no such property, so they still conform.
        const result = getBlock(messages, at);
        const use = blocks(messages[at.i - 1]!).find(({ block }) => block?.id === result.toolUseId)!.block;
        const tool = (params.tools as Json[]).find((t) => t.name === use.name)!;
        tool.outputSchema = { type: "object", properties: { [SCHEMA_MARK]: { type: "number" } } };
        const sc = result.structuredContent;
        result.structuredContent = {
          ...(sc && typeof sc === "object" && !Array.isArray(sc) ? sc : {}),
          [SCHEMA_MARK]: "not a number",
        };
      }),
  },
  {
    kind: "tools-without-capability",
    rule: "request.tools-capability",
    eras: from("2025-11-25"),
    target: "request",
    generate: (era) =>
      loop(era).map((req) => {
        const sampling: Json = { ...(req.capabilities?.sampling ?? {}) };
        delete sampling.tools;
        return { params: req.params, capabilities: { ...req.capabilities, sampling } };
      }),
  },
  // --- results, every era
  {
    kind: "missing-model",
    rule: "result.model",
    eras: ALL,
    target: "result",
    generate: (era) =>
      onResult(legalExchange(era), (r) => {
        delete r.model;
        return undefined;
      }),
  },
  {
    kind: "missing-role",
    rule: "result.role",
    eras: ALL,
    target: "result",
    generate: (era) =>
      onResult(legalExchange(era), (r) => {
        delete r.role;
        return undefined;
      }),
  },
  {
    kind: "result-bad-role",
    rule: "result.role",
    eras: ALL,
    target: "result",
    generate: (era) =>
      fc
        .tuple(legalExchange(era), fc.constantFrom("system", "tool", "User", "Assistant", " assistant"))
        .map(([ex, role]) => ({
          params: ex.params,
          capabilities: ex.capabilities,
          result: { ...ex.result, role },
        })),
  },
  {
    kind: "result-malformed-block",
    rule: "content.block-shape",
    eras: ALL,
    target: "result",
    generate: (era) =>
      onResult(legalExchange(era), (r, pick) => {
        // Any block of the content (text, image, audio or tool_use) loses a required field.
        const [{ block }, position] = choose(blocks(r), pick);
        delete block[REQUIRED_FIELD[block.type as string]!];
        return position;
      }),
  },
  {
    kind: "tool-use-stop-reason-without-tools",
    rule: "result.tool-use-without-tools",
    eras: from("2025-11-25"),
    target: "result",
    generate: (era) => {
      const ex = legalExchange(era).filter((x) => !Array.isArray(x.params.tools));
      return onResult(ex, (r) => {
        r.stopReason = "toolUse";
        return undefined;
      });
    },
  },
] as const satisfies readonly MutationSpec[];

export type MutationKind = (typeof MUTATIONS)[number]["kind"];

const SPECS = new Map<string, MutationSpec>(MUTATIONS.map((m) => [m.kind, m]));

/** The table row of `kind`. */
export function mutationSpec(kind: MutationKind): MutationSpec {
  return SPECS.get(kind)!;
}

/** Every mutation kind that applies to `era`, in table order. */
export function mutationKinds(era: Era): MutationKind[] {
  return MUTATIONS.filter((m) => (m.eras as readonly Era[]).includes(era)).map((m) => m.kind);
}

/** One single-mutation arbitrary of `kind` for `era` (throws if the kind does not apply to the era). */
export function mutationOf(era: Era, kind: MutationKind): fc.Arbitrary<Mutation> {
  const spec = mutationSpec(kind);
  if (!spec.eras.includes(era)) throw new RangeError(`mutation ${kind} does not apply to ${era}`);
  return spec.generate(era).map((draft) => ({
    era,
    kind,
    target: spec.target,
    ...draft,
    expectRule: spec.rule,
    expectCode: CHANNEL_CODE[spec.target],
  }));
}

/** Any single mutation that applies to `era`. */
export function mutation(era: Era): fc.Arbitrary<Mutation> {
  return fc.oneof(...mutationKinds(era).map((k) => mutationOf(era, k)));
}
