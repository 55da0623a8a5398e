import { type Era, eraAtLeast } from "../protocol/eras.ts";
import { refusalVerdict, validateRequest, validateResult } from "../validator/index.ts";
import type { SamplingCapabilities, Verdict } from "../validator/types.ts";

/** A JSON-RPC error as the relay sends it upstream. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

/** What the relay sends upstream for an error the downstream answered with: an error, or (defect) a result. */
export type RelayedError = WireError | { result: Record<string, unknown> };

/**
 * The decisions a sampling relay makes at the trust boundary. The reference relay uses `REFERENCE_POLICY`;
 * each deliberately broken relay under targets/broken/ replaces exactly one decision with a realistic defect.
 */
export interface RelayPolicy {
  /** Checks a request from the upstream before any question opens; null means "do not check". */
  checkRequest(params: unknown, ctx: { era: Era; capabilities: SamplingCapabilities }): Verdict | null;
  /** Checks whether the downstream's era can carry the request (content shape, tools). */
  checkDownstreamCarries(
    params: unknown,
    ctx: { era: Era; capabilities: SamplingCapabilities },
  ): Verdict | null;
  /** Checks the downstream's result against the request before relaying it. */
  checkResult(result: unknown, ctx: { era: Era; request: unknown }): Verdict | null;
  /** Turns a refused request into the error sent upstream. */
  refuseRequest(verdict: Verdict): WireError;
  refuseForDownstream(verdict: Verdict, downstreamEra: string): WireError;
  refuseResult(verdict: Verdict): WireError;
  /** Relays an error the downstream answered with (e.g. -1 when the user declined). */
  relayDownstreamError(error: { code: number; message: string; data?: unknown }): RelayedError;
  /** The error sent when nobody answered in time. */
  expired(afterMs: number): WireError;
  /**
   * What of a request the downstream may receive, given what it declared (legacy: at initialize; 2026-07-28: on the
   * call): the reference drops includeContext "thisServer"/"allServers" toward a downstream (2025-11-25 on) without
   * sampling.context, and `task` toward one without tasks.requests.sampling.createMessage. Everything else as sent.
   */
  fitForDownstream(
    params: Record<string, unknown>,
    downstream: { era: Era; capabilities: Record<string, unknown> | undefined },
  ): Record<string, unknown>;
  /**
   * Whether a sampling request waits for the legacy downstream's notifications/initialized before it is sent ("The
   * server SHOULD NOT send requests other than pings and logging before receiving the initialized notification").
   */
  awaitsInitialized: boolean;
  /**
   * Whether a sampling request is sent to a legacy downstream that declared no `sampling` capability ("Both parties
   * MUST: … Only use capabilities that were successfully negotiated", 2025-11-25 basic/lifecycle#operation). The
   * reference: never; the upstream gets -32601, what a client without sampling answers.
   */
  asksUndeclared: boolean;
  /** May rewrite a request's params before asking the downstream (the reference relay never does). */
  rewriteRequest(params: Record<string, unknown>): Record<string, unknown>;
  /** May rewrite a result before relaying it (the reference relay never does). */
  rewriteResult(result: Record<string, unknown>): Record<string, unknown>;
  /**
   * Bridging a legacy downstream to a 2026-07-28 upstream: what goes into the retry's `inputResponses[key]` for an
   * input the downstream declined, failed or let expire (`error` is what the legacy side would have relayed).
   * The reference: nothing, the input is absent (2026-07-28 has no error object for an input).
   */
  inputForUnanswered(error: WireError): unknown;
  /**
   * Bridging a 2026-07-28 downstream to a legacy upstream: what the upstream's sampling request gets when no retry
   * answered it within the deadline (silence: a decline and an expiry look the same). The reference: expiry.
   */
  silenceUpstream(afterMs: number): RelayedError;
}

function firstProblem(verdict: Verdict): string {
  const f = verdict.errors[0];
  return f ? `${f.message} (rule ${f.rule} at ${f.pointer || "/"})` : "invalid";
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * "[Servers] SHOULD NOT use [includeContext thisServer/allServers] unless the client declares `sampling.context`
 * capability" (2025-11-25 client/sampling); "Requestors SHOULD only augment requests with a task if the
 * corresponding capability has been declared by the receiver" (2025-11-25 tasks). As the upstream's client the relay
 * may ignore both fields, so it drops them toward a downstream that did not declare them.
 */
export function fitForDownstream(
  params: Record<string, unknown>,
  downstream: { era: Era; capabilities: Record<string, unknown> | undefined },
): Record<string, unknown> {
  const caps = downstream.capabilities ?? {};
  const sampling = isObject(caps.sampling) ? caps.sampling : {};
  const ic = params.includeContext;
  const dropContext =
    (ic === "thisServer" || ic === "allServers") &&
    eraAtLeast(downstream.era, "2025-11-25") &&
    !isObject(sampling.context);
  const tasks = isObject(caps.tasks) && isObject(caps.tasks.requests) ? caps.tasks.requests : {};
  const samplingTasks = isObject(tasks.sampling) ? tasks.sampling : {};
  const dropTask = params.task !== undefined && !isObject(samplingTasks.createMessage);
  if (!dropContext && !dropTask) return params;
  const { includeContext, task, ...rest } = params;
  return {
    ...rest,
    ...(dropContext ? {} : includeContext === undefined ? {} : { includeContext }),
    ...(dropTask ? {} : task === undefined ? {} : { task }),
  };
}

export const REFERENCE_POLICY: RelayPolicy = {
  // SHOULD rules the relay enforces too (REFUSED_SHOULD: structuredContent against its tool's outputSchema).
  checkRequest: (params, ctx) => refusalVerdict(validateRequest(params, ctx)),
  checkDownstreamCarries: (params, ctx) => validateRequest(params, ctx),
  checkResult: (result, ctx) => validateResult(result, ctx),
  refuseRequest: (verdict) => ({
    code: verdict.code ?? -32602,
    message: `Invalid sampling request: ${firstProblem(verdict)}`,
  }),
  refuseForDownstream: (verdict, downstreamEra) => ({
    code: -32602,
    message: `The client (protocol ${downstreamEra}) cannot carry this sampling request: ${firstProblem(verdict)}`,
  }),
  refuseResult: (verdict) => ({
    code: verdict.code ?? -32603,
    message: `Invalid sampling result from the client: ${firstProblem(verdict)}`,
  }),
  relayDownstreamError: (error) => ({ ...error }),
  expired: (afterMs) => ({
    code: -32603,
    message: `Sampling request expired: no answer from the client within ${afterMs} ms`,
  }),
  fitForDownstream,
  awaitsInitialized: true,
  asksUndeclared: false,
  rewriteRequest: (params) => params,
  rewriteResult: (result) => result,
  inputForUnanswered: () => undefined,
  silenceUpstream: (afterMs) => REFERENCE_POLICY.expired(afterMs),
};
