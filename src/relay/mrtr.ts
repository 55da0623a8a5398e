import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MRTR_ERA } from "../protocol/eras.ts";
import { CODE, INPUT_REQUIRED_METHODS, isObject, META, METHOD } from "../protocol/wire.ts";
import { escapeToken, validateInputResponses } from "../validator/index.ts";
import type { SamplingCapabilities, Verdict } from "../validator/types.ts";
import { LegacyUpstreamBridge } from "./bridge-legacy-upstream.ts";
import { checkInputRequests, merged, withPrefix, wrapperOnly } from "./inputs.ts";
import { DEFAULT_LIMITS, limitInputRequests, type RelayLimits } from "./limits.ts";
import { type Id, type Reply, UpstreamLink } from "./link.ts";
import { type ModernReview, ReviewedRounds } from "./mrtr-review.ts";
import type { RelayPolicy, WireError } from "./policy.ts";

/**
 * The reference relay's 2026-07-28 path (multi-round-trip requests). A downstream that opens with a request
 * carrying `_meta["io.modelcontextprotocol/protocolVersion"] === "2026-07-28"` (or with server/discover) and no
 * initialize is served here; the relay then speaks 2026-07-28 to the upstream too (no initialize).
 *
 * Why not the SDK's Client/Server classes: SDK 1.x knows no 2026-07-28. `Client.connect` insists on an
 * initialize handshake (a 2026 upstream refuses it with -32022), and the `Server`'s typed handlers re-parse
 * params with schemas that strip `inputResponses`/`requestState`. So this path keeps the SDK's stdio transports
 * for framing and correlates requests and responses itself over `transport.send` / `onmessage`.
 *
 * What it does at the trust boundary:
 * - a request is forwarded upstream with the downstream's params (and `_meta`) unchanged;
 * - an `input_required` result coming back is checked BEFORE anything is passed down: the map's shape by the
 *   validator (validateInputRequests), each sampling request by the policy against the capabilities the
 *   downstream declared on that very request. An invalid one answers the downstream's call with an error naming
 *   the rule and the question is never forwarded (the upstream sees no retry). Valid ones go down unchanged
 *   and are remembered by requestState (with a TTL) so that the retry can be checked;
 * - a retry's `inputResponses` are checked against those requests (shape by the validator, each sampling
 *   result by the policy); an invalid answer is refused to the downstream and the retry is not forwarded.
 *   A key left out is a decline and is legal. Valid retries go up unchanged.
 */

/** True when the downstream's first message opens a 2026-07-28 session (no initialize). */
export function isModernOpener(message: JSONRPCMessage): boolean {
  if (!("method" in message) || message.method === "initialize") return false;
  if (message.method === "server/discover") return true;
  const meta = isObject(message.params) ? message.params._meta : undefined;
  return isObject(meta) && meta[META.protocolVersion] === MRTR_ERA;
}

/**
 * The downstream transport as the SDK Server sees it: it routes the session by its first message, and only a
 * legacy session's messages ever reach the Server; a modern session's go to `onModern`.
 */
export class DownstreamSwitch implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private mode: "legacy" | "modern" | undefined;

  constructor(
    private readonly real: Transport,
    private readonly onModern: (message: JSONRPCMessage) => void,
  ) {}

  async start(): Promise<void> {
    this.real.onmessage = (message: JSONRPCMessage) => {
      this.mode ??= isModernOpener(message) ? "modern" : "legacy";
      if (this.mode === "modern") this.onModern(message);
      else this.onmessage?.(message);
    };
    this.real.onclose = () => this.onclose?.();
    this.real.onerror = (error) => this.onerror?.(error);
    await this.real.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.real.send(message);
  }

  close(): Promise<void> {
    return this.real.close();
  }
}

/** Input requests passed down and awaiting the downstream's retry. */
interface PendingInputs {
  inputRequests: Record<string, unknown>;
  expiresAt: number;
}

export interface ModernRelayOptions {
  policy: RelayPolicy;
  /** The upstream's transport (shared with the SDK Client of the legacy path; only one of them ever starts it). */
  upstream: Transport;
  downstream: Transport;
  /** How long a question passed down may stay unanswered (the pending requestState's TTL). */
  answerTimeoutMs: number;
  name: string;
  /** A review surface: every sampling input goes through the same review as on the legacy path. */
  review?: ModernReview;
  /** Rate and tool-loop limits (default DEFAULT_LIMITS). */
  limits?: RelayLimits;
}

export class ModernRelay {
  private readonly upstream: UpstreamLink;
  private readonly pending = new Map<string, PendingInputs>();
  /** Downstream request id → upstream request id, while in flight (for cancellation). */
  private readonly inFlight = new Map<Id, Id>();
  private readonly reviewed: ReviewedRounds | undefined;
  /** Which era the upstream speaks: decided once, by server/discover (a legacy upstream is bridged). */
  private upstreamMode: Promise<LegacyUpstreamBridge | { error: WireError } | null> | undefined;

  constructor(private readonly options: ModernRelayOptions) {
    this.upstream = new UpstreamLink(options.upstream, (message) => this.sendDown(message));
    if (options.review) {
      this.reviewed = new ReviewedRounds({
        review: options.review,
        policy: options.policy,
        answerTimeoutMs: options.answerTimeoutMs,
        name: options.name,
        forward: (method, params) => this.upstream.request(method, params),
      });
    }
  }

  /** One message from the downstream. */
  handle(message: JSONRPCMessage): void {
    const m = message as Record<string, any>;
    if (typeof m.method !== "string") return; // the relay sends the downstream no requests in this era
    if (m.id === undefined) {
      this.notification(m.method, m.params);
      return;
    }
    void this.request(m.id, m.method, m.params).then(
      (reply) => this.sendDown({ jsonrpc: "2.0", id: m.id, ...reply } as JSONRPCMessage),
      (error) =>
        this.sendDown({
          jsonrpc: "2.0",
          id: m.id,
          error: {
            code: CODE.internalError,
            message: `Relay failure: ${error instanceof Error ? error.message : String(error)}`,
          },
        } as JSONRPCMessage),
    );
  }

  async close(): Promise<void> {
    await this.upstream.close();
  }

  private sendDown(message: JSONRPCMessage): void {
    void this.options.downstream.send(message).catch(() => undefined);
  }

  private notification(method: string, params: any): void {
    if (method === METHOD.cancelled && isObject(params)) {
      const upId = this.inFlight.get(params.requestId as Id);
      if (upId !== undefined) this.upstream.notify(method, { ...params, requestId: upId });
      return;
    }
    this.upstream.notify(method, params);
  }

  private async request(id: Id, method: string, params: any): Promise<Reply> {
    switch (method) {
      case "server/discover":
        return {
          result: {
            resultType: "complete",
            supportedVersions: [MRTR_ERA],
            capabilities: { tools: {} },
            // DiscoverResult is cacheable (ttlMs and cacheScope required): stale at once, this client's only.
            ttlMs: 0,
            cacheScope: "private",
            _meta: { [META.serverInfo]: { name: this.options.name, version: "1" } },
          },
        };
      case "initialize":
        return {
          error: {
            code: CODE.unsupportedProtocolVersion,
            message: "Unsupported protocol version: this session speaks 2026-07-28 (no initialize)",
            data: {
              supported: [MRTR_ERA],
              // A string, as the schema requires: what the client asked for ("" when it named no version).
              requested: typeof params?.protocolVersion === "string" ? params.protocolVersion : "",
            },
          },
        };
      case "ping":
        return { result: { resultType: "complete" } };
    }
    const bridge = await this.modeOfUpstream(params);
    if (bridge && "error" in bridge) return bridge;
    if (bridge) return bridge.request(method, params);
    if (!INPUT_REQUIRED_METHODS.has(method)) return this.forward(id, method, params);
    return this.exchange(id, method, params);
  }

  /**
   * The upstream's era, asked once with server/discover before the first request goes up: a 2026-07-28 server lists
   * it in supportedVersions; any other answer (a legacy server: -32601) makes the relay initialize it and bridge.
   */
  private modeOfUpstream(params: unknown): Promise<LegacyUpstreamBridge | { error: WireError } | null> {
    this.upstreamMode ??= (async () => {
      const meta = isObject(params) && isObject(params._meta) ? params._meta : {};
      const discovered = await this.upstream.request(METHOD.discover, { _meta: meta });
      const versions = "result" in discovered ? discovered.result.supportedVersions : undefined;
      if (Array.isArray(versions) && versions.includes(MRTR_ERA)) return null;
      const bridge = new LegacyUpstreamBridge({
        link: this.upstream,
        policy: this.options.policy,
        answerTimeoutMs: this.options.answerTimeoutMs,
        name: this.options.name,
      });
      const refused = await bridge.initialize(this.declaredBy(params));
      return refused ? { error: refused } : bridge;
    })();
    return this.upstreamMode;
  }

  private async forward(id: Id, method: string, params: unknown): Promise<Reply> {
    try {
      return await this.upstream.request(method, params, (upId) => this.inFlight.set(id, upId));
    } finally {
      this.inFlight.delete(id);
    }
  }

  /** A request that may take part in a multi-round-trip exchange (tools/call, prompts/get, resources/read). */
  private async exchange(id: Id, method: string, params: any): Promise<Reply> {
    const { policy } = this.options;
    if (this.reviewed?.owns(params)) return this.reviewed.resume(params);
    let up = this.reviewed ? withSampling(params) : params;
    if (isObject(params) && params.inputResponses !== undefined) {
      const key = this.pendingKey(method, params, params.requestState);
      this.sweep();
      const pending = this.pending.get(key);
      if (!pending) {
        return {
          error: {
            code: CODE.invalidParams,
            message:
              "Invalid params: inputResponses answer no input request this relay passed on (unknown or forgotten requestState); call again without inputResponses",
          },
        };
      }
      if (performance.now() > pending.expiresAt) {
        this.pending.delete(key);
        return { error: policy.expired(this.options.answerTimeoutMs) };
      }
      const checked = this.checkResponses(params.inputResponses, pending.inputRequests);
      if (checked.verdict && !checked.verdict.legal) {
        // The downstream's own params are what is invalid: -32602 (unless the policy says otherwise).
        return { error: policy.refuseResult({ ...checked.verdict, code: CODE.invalidParams }) };
      }
      this.pending.delete(key);
      if (checked.rewritten) up = { ...params, inputResponses: checked.rewritten };
    }

    const reply = await this.forward(id, method, up);
    if (!("result" in reply)) return reply;
    const result = reply.result;
    if (!isObject(result) || result.resultType !== "input_required" || result.inputRequests === undefined)
      return reply;

    const capabilities = this.declaredBy(params);
    const refusal = this.checkRequests(result.inputRequests, this.declaredBy(up));
    if (refusal) return { error: refusal };
    const limited = limitInputRequests(
      result.inputRequests as Record<string, unknown>,
      this.options.limits ?? DEFAULT_LIMITS,
    );
    if ("error" in limited) return limited;
    const inputRequests = limited.inputRequests;
    if (this.reviewed) return this.reviewed.start(method, up, { ...result, inputRequests }, capabilities);
    this.pending.set(this.pendingKey(method, params, result.requestState), {
      inputRequests,
      expiresAt: performance.now() + this.options.answerTimeoutMs,
    });
    const down = this.rewriteRequests(inputRequests, capabilities);
    return down === result.inputRequests ? reply : { result: { ...result, inputRequests: down } };
  }

  /** The capabilities the downstream declared on this request (2026-07-28: per request, in _meta). */
  private declaredBy(params: unknown): SamplingCapabilities | undefined {
    const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
    const declared = meta?.[META.clientCapabilities];
    return isObject(declared) ? (declared as SamplingCapabilities) : undefined;
  }

  /** Retries are matched by requestState; without one, by the call itself (method, name/uri, arguments). */
  private pendingKey(method: string, params: any, requestState: unknown): string {
    if (typeof requestState === "string") return `state:${requestState}`;
    const p = isObject(params) ? params : {};
    return `call:${JSON.stringify([method, p.name ?? p.uri ?? null, p.arguments ?? null])}`;
  }

  private sweep(): void {
    const now = performance.now();
    for (const [key, p] of this.pending)
      if (now > p.expiresAt + 10 * this.options.answerTimeoutMs) this.pending.delete(key);
  }

  /** The upstream's inputRequests, checked before any question is passed down; returns the refusal, if any. */
  private checkRequests(
    inputRequests: unknown,
    capabilities: SamplingCapabilities | undefined,
  ): WireError | null {
    return checkInputRequests(this.options.policy, inputRequests, capabilities);
  }

  /** The downstream's inputResponses, checked against the requests they answer; rewritten only when the policy changes one. */
  private checkResponses(
    inputResponses: unknown,
    inputRequests: Record<string, unknown>,
  ): { verdict: Verdict | null; rewritten?: Record<string, unknown> } {
    const { policy } = this.options;
    const wrapper = wrapperOnly(validateInputResponses(inputResponses, { era: MRTR_ERA, inputRequests }));
    if (!wrapper.legal) return { verdict: wrapper };
    const responses = inputResponses as Record<string, unknown>;
    const verdicts: Verdict[] = [];
    let rewritten: Record<string, unknown> | undefined;
    for (const [key, response] of Object.entries(responses)) {
      const request = inputRequests[key];
      if (!isObject(request) || request.method !== METHOD.createMessage) continue;
      const v = policy.checkResult(response, { era: MRTR_ERA, request: request.params });
      if (v) verdicts.push(withPrefix(v, `/${escapeToken(key)}`));
      if (isObject(response)) {
        const after = policy.rewriteResult(response);
        if (after !== response) {
          rewritten ??= { ...responses };
          rewritten[key] = after;
        }
      }
    }
    return { verdict: merged(verdicts), ...(rewritten ? { rewritten } : {}) };
  }

  /** The policy may rewrite a sampling request before it is passed down (the reference relay never does). */
  private rewriteRequests(
    inputRequests: Record<string, unknown>,
    capabilities: SamplingCapabilities | undefined,
  ): Record<string, unknown> {
    const { policy } = this.options;
    let out: Record<string, unknown> | undefined;
    for (const [key, request] of Object.entries(inputRequests)) {
      if (!isObject(request) || request.method !== METHOD.createMessage || !isObject(request.params))
        continue;
      const params = policy.rewriteRequest(
        policy.fitForDownstream(request.params, { era: MRTR_ERA, capabilities }),
      );
      if (params !== request.params) {
        out ??= { ...inputRequests };
        out[key] = { ...request, params };
      }
    }
    return out ?? inputRequests;
  }
}

/**
 * With a review surface a person can answer when no model is connected downstream: the relay declares sampling
 * upstream on every call (as the legacy path does at initialize).
 */
function withSampling(params: unknown): unknown {
  if (!isObject(params)) return params;
  const meta = isObject(params._meta) ? params._meta : {};
  const caps = meta[META.clientCapabilities];
  const declared: Record<string, unknown> = isObject(caps) ? caps : {};
  if (isObject(declared.sampling)) return params;
  return {
    ...params,
    _meta: { ...meta, [META.clientCapabilities]: { ...declared, sampling: {} } },
  };
}
