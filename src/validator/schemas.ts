/**
 * zod schemas for `sampling/createMessage`, one set per protocol era, written from the spec's own
 * `schema.ts` / `schema.json` of each revision (schema/<revision>/ in modelcontextprotocol/modelcontextprotocol), not from the
 * SDK. They differ from the SDK's schemas on purpose:
 *
 * - Every object is open (`looseObject`): unknown fields are legal, as in the spec's JSON Schema. Callers must
 *   only *validate* with these schemas and never forward the parsed output (zod copies the input).
 * - Nothing is defaulted: a `tool_result` without `content` is an error (the SDK fills `[]`).
 * - Integer-ness, ranges and enums are exact: `maxTokens` is any JSON integer (not only a safe one), priorities
 *   are in [0, 1], image/audio `data` is RFC 4648 base64 with padding.
 * - Features exist only in the era that introduced them: audio from 2025-03-26; block `_meta` and
 *   `annotations.lastModified` from 2025-06-18; array content, `tool_use`/`tool_result`, `tools`, `toolChoice`,
 *   `task` and message `_meta` from 2025-11-25; `task` and the declared params `_meta` gone again in 2026-07-28,
 *   where `structuredContent` becomes any JSON value. Before its era a field is simply an unknown (legal) key;
 *   a block type before its era is an unknown block type (illegal).
 *
 * Pairing, capability and result-vs-request rules are not expressible here; they run in one linear pass
 * (see pairing.ts / result.ts).
 */
import { z } from "zod";
import { ERAS, type Era, type EraFeatures, featuresOf } from "../protocol/eras.ts";

/** A JSON object (not null, not an array). Checked without copying, unlike `z.looseObject({})`. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** RFC 4648 §4 base64: standard alphabet, padded, no whitespace. The empty string is valid base64. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export function isBase64(value: string): boolean {
  return BASE64.test(value);
}

const jsonObject = z.custom<Record<string, unknown>>(isJsonObject, { message: "expected a JSON object" });
const jsonInteger = z.number().refine(Number.isInteger, { message: "expected an integer" });
const unitInterval = z.number().min(0).max(1);
const base64 = z.string().refine(isBase64, { message: "expected base64 (RFC 4648, padded)" });
const role = z.enum(["user", "assistant"]);
/** ToolExecution.taskSupport (2025-11-25). */
export const TASK_SUPPORT = ["forbidden", "optional", "required"] as const;

export { type EraFeatures, featuresOf } from "../protocol/eras.ts";

/** The schema set of one era. */
export interface EraSchemas {
  era: Era;
  features: EraFeatures;
  annotations: z.ZodType;
  textContent: z.ZodType;
  imageContent: z.ZodType;
  /** Undefined before 2025-03-26. */
  audioContent?: z.ZodType;
  /** Undefined before 2025-11-25. */
  toolUseContent?: z.ZodType;
  toolResultContent?: z.ZodType;
  /** ContentBlock as allowed inside `tool_result.content` (text, image, audio, resource_link, resource). */
  contentBlock?: z.ZodType;
  /** One block of a SamplingMessage / CreateMessageResult for this era. */
  samplingContentBlock: z.ZodType;
  /** `content` of a SamplingMessage: a block, or (from 2025-11-25) a block or an array of blocks. */
  samplingContent: z.ZodType;
  samplingMessage: z.ZodType;
  modelHint: z.ZodType;
  modelPreferences: z.ZodType;
  tool?: z.ZodType;
  toolChoice?: z.ZodType;
  createMessageRequestParams: z.ZodType;
  /** The request with `method` + `params` (2026-07-28: the embedded form, no jsonrpc/id). */
  createMessageRequest: z.ZodType;
  createMessageResult: z.ZodType;
  /**
   * 2026-07-28 only: `InputRequiredResult.inputRequests` (key → `{method, params}`; sampling requests in full,
   * elicitation/roots requests by method only — they are not sampling's concern) and the retry's
   * `params.inputResponses` (key → an object; which result type each key must hold depends on its request, so
   * the per-key check is `createMessageResult` applied by the validator).
   */
  inputRequests?: z.ZodType;
  inputResponses?: z.ZodType;
}

// Long: the era's whole zod schema set, declared in spec order; it is data more than code.
function buildEra(era: Era): EraSchemas {
  const f = featuresOf(era);
  const meta = f.blockMeta ? { _meta: jsonObject.optional() } : {};

  const annotations = z.looseObject({
    audience: z.array(role).optional(),
    priority: unitInterval.optional(),
    ...(f.blockMeta ? { lastModified: z.string().optional() } : {}),
  });
  const textContent = z.looseObject({
    type: z.literal("text"),
    text: z.string(),
    annotations: annotations.optional(),
    ...meta,
  });
  const imageContent = z.looseObject({
    type: z.literal("image"),
    data: base64,
    mimeType: z.string(),
    annotations: annotations.optional(),
    ...meta,
  });
  const audioContent = f.audio
    ? z.looseObject({
        type: z.literal("audio"),
        data: base64,
        mimeType: z.string(),
        annotations: annotations.optional(),
        ...meta,
      })
    : undefined;

  let toolUseContent: z.ZodType | undefined;
  let toolResultContent: z.ZodType | undefined;
  let contentBlock: z.ZodType | undefined;
  let tool: z.ZodType | undefined;
  let toolChoice: z.ZodType | undefined;
  if (f.tools && audioContent) {
    // Icon as schema.json types it (its src is a URI; the URI format is not checked).
    const icons = z
      .array(
        z.looseObject({
          src: z.string(),
          mimeType: z.string().optional(),
          sizes: z.array(z.string()).optional(),
          theme: z.enum(["light", "dark"]).optional(),
        }),
      )
      .optional();
    const resourceLink = z.looseObject({
      type: z.literal("resource_link"),
      uri: z.string(),
      name: z.string(),
      title: z.string().optional(),
      description: z.string().optional(),
      mimeType: z.string().optional(),
      size: jsonInteger.optional(),
      icons,
      annotations: annotations.optional(),
      _meta: jsonObject.optional(),
    });
    const resourceContents = z.union([
      z.looseObject({
        uri: z.string(),
        mimeType: z.string().optional(),
        text: z.string(),
        _meta: jsonObject.optional(),
      }),
      z.looseObject({
        uri: z.string(),
        mimeType: z.string().optional(),
        blob: base64,
        _meta: jsonObject.optional(),
      }),
    ]);
    const embeddedResource = z.looseObject({
      type: z.literal("resource"),
      resource: resourceContents,
      annotations: annotations.optional(),
      _meta: jsonObject.optional(),
    });
    contentBlock = z.discriminatedUnion("type", [
      textContent,
      imageContent,
      audioContent,
      resourceLink,
      embeddedResource,
    ] as unknown as [z.ZodObject, z.ZodObject]);
    toolUseContent = z.looseObject({
      type: z.literal("tool_use"),
      id: z.string(),
      name: z.string(),
      input: jsonObject,
      _meta: jsonObject.optional(),
    });
    toolResultContent = z.looseObject({
      type: z.literal("tool_result"),
      toolUseId: z.string(),
      content: z.array(contentBlock),
      structuredContent: f.anyStructuredContent ? z.unknown().optional() : jsonObject.optional(),
      isError: z.boolean().optional(),
      _meta: jsonObject.optional(),
    });
    // 2025-11-25 types inputSchema and outputSchema alike, each property's schema an object (schema.ts
    // `{ [key: string]: object }`); 2026-07-28 leaves the properties untyped.
    const objectSchema = z.looseObject({
      type: z.literal("object"),
      properties: (f.mrtr ? jsonObject : z.record(z.string(), jsonObject)).optional(),
      required: z.array(z.string()).optional(),
    });
    const hint = z.boolean().optional();
    tool = z.looseObject({
      name: z.string(),
      title: z.string().optional(),
      description: z.string().optional(),
      inputSchema: objectSchema,
      // 2026-07-28: any JSON Schema object, as structuredContent may be any JSON value (schema.ts `outputSchema`).
      outputSchema: (f.mrtr ? z.looseObject({ $schema: z.string().optional() }) : objectSchema).optional(),
      annotations: z
        .looseObject({
          title: z.string().optional(),
          readOnlyHint: hint,
          destructiveHint: hint,
          idempotentHint: hint,
          openWorldHint: hint,
        })
        .optional(),
      icons,
      ...(f.task
        ? { execution: z.looseObject({ taskSupport: z.enum(TASK_SUPPORT).optional() }).optional() }
        : {}),
      _meta: jsonObject.optional(),
    });
    toolChoice = z.looseObject({ mode: z.enum(["auto", "required", "none"]).optional() });
  }

  const blocks = [textContent, imageContent, audioContent, toolUseContent, toolResultContent].filter(
    (s): s is z.ZodType => s !== undefined,
  );
  const samplingContentBlock = z.discriminatedUnion("type", blocks as unknown as [z.ZodObject, z.ZodObject]);
  const samplingContent = f.tools
    ? z.union([samplingContentBlock, z.array(samplingContentBlock)])
    : samplingContentBlock;
  const samplingMessage = z.looseObject({
    role,
    content: samplingContent,
    ...(f.tools ? { _meta: jsonObject.optional() } : {}),
  });

  const modelHint = z.looseObject({ name: z.string().optional() });
  const modelPreferences = z.looseObject({
    hints: z.array(modelHint).optional(),
    costPriority: unitInterval.optional(),
    speedPriority: unitInterval.optional(),
    intelligencePriority: unitInterval.optional(),
  });

  const createMessageRequestParams = z.looseObject({
    messages: z.array(samplingMessage),
    modelPreferences: modelPreferences.optional(),
    systemPrompt: z.string().optional(),
    includeContext: z.enum(["none", "thisServer", "allServers"]).optional(),
    temperature: z.number().optional(),
    maxTokens: jsonInteger,
    stopSequences: z.array(z.string()).optional(),
    metadata: jsonObject.optional(),
    ...(f.paramsMeta
      ? {
          _meta: z.looseObject({ progressToken: z.union([z.string(), jsonInteger]).optional() }).optional(),
        }
      : {}),
    // ttl in ms is an integer (schema.json; schema.ts `number` without `@TJS-type number`, as maxTokens).
    ...(f.task ? { task: z.looseObject({ ttl: jsonInteger.optional() }).optional() } : {}),
    ...(tool && toolChoice ? { tools: z.array(tool).optional(), toolChoice: toolChoice.optional() } : {}),
  });
  const createMessageRequest = z.looseObject({
    method: z.literal("sampling/createMessage"),
    params: createMessageRequestParams,
  });
  const createMessageResult = z.looseObject({
    role,
    content: samplingContent,
    model: z.string(),
    stopReason: z.string().optional(),
    _meta: jsonObject.optional(),
  });

  const mrtr = featuresOf(era).mrtr;
  const inputRequests = mrtr
    ? z.record(
        z.string(),
        z.discriminatedUnion("method", [
          createMessageRequest,
          z.looseObject({ method: z.literal("elicitation/create"), params: z.unknown().optional() }),
          z.looseObject({ method: z.literal("roots/list"), params: z.unknown().optional() }),
        ] as unknown as [z.ZodObject, z.ZodObject]),
      )
    : undefined;
  const inputResponses = mrtr ? z.record(z.string(), z.unknown()) : undefined;

  return {
    era,
    features: f,
    annotations,
    textContent,
    imageContent,
    audioContent,
    toolUseContent,
    toolResultContent,
    contentBlock,
    samplingContentBlock,
    samplingContent,
    samplingMessage,
    modelHint,
    modelPreferences,
    tool,
    toolChoice,
    createMessageRequestParams,
    createMessageRequest,
    createMessageResult,
    inputRequests,
    inputResponses,
  };
}

/** The schema set of every era, built once at load. */
export const SCHEMAS: Readonly<Record<Era, EraSchemas>> = Object.fromEntries(
  ERAS.map((era) => [era, buildEra(era)]),
) as Record<Era, EraSchemas>;
