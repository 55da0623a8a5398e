import { MRTR_ERA } from "../protocol/eras.ts";
import { CODE, INPUT_REQUIRED_METHODS, isObject, META, METHOD } from "../protocol/wire.ts";
import type { SamplingCapabilities } from "../validator/types.ts";
import { Unanswered, WireFailure } from "./failure.ts";
import { checkInputRequests } from "./inputs.ts";
import type { UpstreamLink } from "./link.ts";
import type { RelayPolicy } from "./policy.ts";

/**
 * Era bridging, a legacy downstream (initialize; sampling as a server→client request) in front of a 2026-07-28
 * upstream (no initialize; sampling travels in `input_required` results). Each sampling input of a round is checked
 * (as on the relay's 2026-07-28 path, against the capabilities the downstream declared at initialize) and asked as
 * a `sampling/createMessage` request of the downstream's era (through the review surface when there is one); the
 * answers go up in one retry of the same call, with a new id, `inputResponses[key]` and the `requestState` echoed.
 *
 * The mappings: a declined, failed or expired question is an absent input (2026-07-28 has no error object for an
 * input). When no input of a round was answered, nothing goes up (the server "is not waiting for a response") and
 * the downstream's call fails with the legacy error of the first unanswered question (its own decline relayed,
 * or -32603 naming expiry). Results lose their `resultType` on the way down.
 */

/** Input rounds one call may go through before the relay stops (a server that keeps asking). */
const MAX_ROUNDS = 8;

export interface ModernUpstreamOptions {
  link: UpstreamLink;
  policy: RelayPolicy;
  /** What the relay declares upstream on each request (mirrored from the downstream's initialize). */
  declared: SamplingCapabilities;
  name: string;
  /**
   * Asks one checked 2026-07-28 sampling request downstream (the era check, review, the result check): resolves with
   * the result to send up, throws Unanswered (declined, failed, expired) or WireFailure (refused).
   */
  sample: (params: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

/** A 2026-07-28 result as a legacy client reads it. */
function legacy(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _t, ...rest } = result;
  return rest;
}

export class ModernUpstreamBridge {
  constructor(private readonly options: ModernUpstreamOptions) {}

  private withMeta(params: unknown): Record<string, unknown> {
    const p = isObject(params) ? params : {};
    const meta = isObject(p._meta) ? p._meta : {};
    return {
      ...p,
      _meta: {
        ...meta,
        [META.protocolVersion]: MRTR_ERA,
        [META.clientCapabilities]: this.options.declared,
        [META.clientInfo]: { name: this.options.name, version: "1" },
      },
    };
  }

  /** One request of the downstream, sent up in 2026-07-28; its error is thrown (the SDK Server sends it down). */
  async request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const call = this.withMeta(params);
    const reply = await this.options.link.request(method, call);
    if ("error" in reply) throw new WireFailure(reply.error);
    if (!INPUT_REQUIRED_METHODS.has(method)) return legacy(reply.result);
    return this.rounds(method, call, reply.result);
  }

  // Long: one loop over the input rounds of a call reads best whole (ask each input, map the unanswered, retry).
  private async rounds(
    method: string,
    call: Record<string, unknown>,
    first: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const { link, policy } = this.options;
    let result = first;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (result.resultType !== "input_required") return legacy(result);
      const refusal = checkInputRequests(policy, result.inputRequests, this.options.declared);
      if (refusal) throw new WireFailure(refusal);
      const requests = isObject(result.inputRequests) ? result.inputRequests : {};
      const responses: Record<string, unknown> = {};
      let unanswered: WireFailure | undefined;
      for (const [key, request] of Object.entries(requests)) {
        if (!isObject(request) || request.method !== METHOD.createMessage) continue;
        try {
          responses[key] = await this.options.sample(isObject(request.params) ? request.params : {});
        } catch (error) {
          if (!(error instanceof Unanswered)) throw error;
          unanswered ??= error;
          const stand = policy.inputForUnanswered(error.wire);
          if (stand !== undefined) responses[key] = stand;
        }
      }
      if (Object.keys(responses).length === 0) {
        throw (
          unanswered ??
          new WireFailure({
            code: CODE.internalError,
            message: "The server asked for input this relay cannot provide",
          })
        );
      }
      const retry: Record<string, unknown> = { ...call, inputResponses: responses };
      if (Object.hasOwn(result, "requestState")) retry.requestState = result.requestState;
      const reply = await link.request(method, retry);
      if ("error" in reply) throw new WireFailure(reply.error);
      result = reply.result;
    }
    throw new WireFailure({
      code: CODE.internalError,
      message: `The server asked for input more than ${MAX_ROUNDS} times in one call`,
    });
  }
}
