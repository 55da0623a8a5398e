import { isObject, METHOD } from "../protocol/wire.ts";
import type { WireError } from "./policy.ts";

/**
 * The reference relay's limits on what one upstream may make it ask. The spec sets no figures ("Clients SHOULD
 * implement rate limiting"; "Both parties SHOULD implement iteration limits for tool loops"), so these are the
 * relay's choice: far above what one honest exchange needs (the corpus's other cases never come near them), far
 * below a runaway upstream.
 */
export interface RelayLimits {
  /**
   * Sampling requests of one upstream session open at once (legacy: pending sampling/createMessage requests;
   * 2026-07-28: sampling inputRequests in one input_required). The excess is refused without asking anyone
   * (legacy: an error; 2026-07-28: left out, so the retry carries no answer for it).
   */
  maxPendingSampling: number;
  /** Tool-loop rounds one sampling request may carry (user messages with tool results); beyond it, refused. */
  maxToolRounds: number;
}

export const DEFAULT_LIMITS: RelayLimits = { maxPendingSampling: 16, maxToolRounds: 10 };

/** How many tool-loop rounds a sampling request's history holds: its user messages carrying tool_result blocks. */
export function toolRounds(params: unknown): number {
  const messages = isObject(params) && Array.isArray(params.messages) ? params.messages : [];
  return messages.filter((m) => {
    if (!isObject(m) || m.role !== "user") return false;
    const blocks: unknown[] = Array.isArray(m.content) ? m.content : [m.content];
    return blocks.some((b) => isObject(b) && b.type === "tool_result");
  }).length;
}

export function loopLimited(rounds: number, limits: RelayLimits): WireError {
  return {
    code: -32603,
    message: `Tool loop iteration limit reached: the sampling request carries ${rounds} tool rounds, this relay allows ${limits.maxToolRounds}`,
  };
}

export function rateLimited(limits: RelayLimits): WireError {
  return {
    code: -32603,
    message: `Rate limit: ${limits.maxPendingSampling} sampling requests are already open for this server; try again once they are answered`,
  };
}

/**
 * 2026-07-28: an input_required's sampling inputRequests within the limits. A request past the tool-loop limit
 * refuses the call (no question is passed down, the upstream sees no retry); sampling inputs past the rate limit
 * are left out of what is passed down, so the downstream's retry carries no answer for them (withheld).
 */
export function limitInputRequests(
  inputRequests: Record<string, unknown>,
  limits: RelayLimits,
): { error: WireError } | { inputRequests: Record<string, unknown> } {
  let sampling = 0;
  let kept: Record<string, unknown> | undefined;
  for (const [key, request] of Object.entries(inputRequests)) {
    if (!isObject(request) || request.method !== METHOD.createMessage) continue;
    const rounds = toolRounds(request.params);
    if (rounds > limits.maxToolRounds) return { error: loopLimited(rounds, limits) };
    sampling++;
    if (sampling > limits.maxPendingSampling) {
      kept ??= { ...inputRequests };
      delete kept[key];
    }
  }
  return { inputRequests: kept ?? inputRequests };
}
