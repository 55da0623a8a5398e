import type { Mutation } from "../../src/fuzz/mutations.ts";
import { refusalVerdict, type Verdict, validateRequest, validateResult } from "../../src/validator/index.ts";

/** Small builders for validator tests (not a test file itself). */
export type Json = Record<string, unknown>;

export const text = (t = "hello"): Json => ({ type: "text", text: t });
export const image = (data = "iVBORw0KGgo="): Json => ({ type: "image", data, mimeType: "image/png" });
export const audio = (data = "UklGRg=="): Json => ({ type: "audio", data, mimeType: "audio/wav" });
export const toolUse = (id: string, name = "get_weather", input: Json = { city: "Paris" }): Json => ({
  type: "tool_use",
  id,
  name,
  input,
});
export const toolResult = (toolUseId: string, body = "Result data"): Json => ({
  type: "tool_result",
  toolUseId,
  content: [{ type: "text", text: body }],
});
export const user = (content: unknown): Json => ({ role: "user", content });
export const assistant = (content: unknown): Json => ({ role: "assistant", content });

export const WEATHER_TOOL: Json = {
  name: "get_weather",
  description: "Get current weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

/** Params with a text question, as in the spec's first example. */
export function params(messages: unknown[], extra: Json = {}): Json {
  return { messages, maxTokens: 100, ...extra };
}

/** Params with the weather tool declared. */
export function toolParams(messages: unknown[], extra: Json = {}): Json {
  return { messages, maxTokens: 1000, tools: [WEATHER_TOOL], ...extra };
}

export const TOOLS_CAPS = { sampling: { tools: {} } };
export const BASIC_CAPS = { sampling: {} };

export const result = (content: unknown, extra: Json = {}): Json => ({
  role: "assistant",
  content,
  model: "claude-3-sonnet-20240307",
  stopReason: "endTurn",
  ...extra,
});

/**
 * The reference validator's verdict on a generated mutation, as a relay acts on it (refusalVerdict: the SHOULD
 * findings a relay refuses for count as errors): its request, or its result against that request.
 */
export function verdictOf(m: Mutation): Verdict {
  return m.target === "request"
    ? refusalVerdict(
        validateRequest(
          m.params,
          m.capabilities ? { era: m.era, capabilities: m.capabilities } : { era: m.era },
        ),
      )
    : validateResult(m.result, { era: m.era, request: m.params });
}
