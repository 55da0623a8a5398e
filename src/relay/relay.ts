import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { type Era, isEra, MRTR_ERA } from "../protocol/eras.ts";
import { CODE } from "../protocol/wire.ts";
import type { SamplingCapabilities } from "../validator/types.ts";
import { ModernUpstreamBridge } from "./bridge-modern-upstream.ts";
import { Unanswered, WireFailure } from "./failure.ts";
import { DEFAULT_LIMITS, loopLimited, type RelayLimits, rateLimited, toolRounds } from "./limits.ts";
import { SharedTransport, UpstreamLink } from "./link.ts";
import { DownstreamSwitch, ModernRelay } from "./mrtr.ts";
import { REFERENCE_POLICY, type RelayPolicy } from "./policy.ts";
import { ReviewSurface } from "./review-surface.ts";
import { REFERENCE_REVIEW, type ReviewPolicy, reviewedSampling } from "./reviewed.ts";

export interface RelayOptions {
  /** The upstream MCP server to launch on stdio: program and arguments (empty with `upstreamUrl`). */
  upstream: string[];
  /** Reach the upstream MCP server over Streamable HTTP at this URL instead of launching it. */
  upstreamUrl?: string;
  /** Serve the downstream over Streamable HTTP on this loopback port (path /mcp) instead of stdio. */
  listen?: number;
  /** How long a sampling question may stay unanswered before the relay reports expiry. */
  answerTimeoutMs: number;
  policy?: RelayPolicy;
  name?: string;
  /** Serve a review surface on this loopback port (0: any free port): a person reviews every question. */
  reviewPort?: number;
  /** How long a reviewed question may stay undecided before expiry (default: answerTimeoutMs). */
  reviewTimeoutMs?: number;
  reviewPolicy?: ReviewPolicy;
  /** Rate and tool-loop limits (default DEFAULT_LIMITS). */
  limits?: Partial<RelayLimits>;
}

/** Results pass through untouched: validate with our own validator, never strip with a schema. */
const Untouched = z.custom<Record<string, unknown>>((v) => typeof v === "object" && v !== null);

/** The SDK prefixes received error messages with "MCP error <code>: "; relay the peer's own words. */
export function unprefixed(error: McpError): string {
  const prefix = `MCP error ${error.code}: `;
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

/** Mirrors only what the downstream declared for sampling, so the upstream never asks for more than can be answered. */
function samplingCapabilitiesFrom(downstream: Record<string, any> | undefined): SamplingCapabilities {
  const sampling = downstream?.sampling;
  if (!sampling || typeof sampling !== "object") return {};
  const mirrored: Record<string, object> = {};
  if (sampling.tools) mirrored.tools = {};
  if (sampling.context) mirrored.context = {};
  return { sampling: mirrored };
}

/**
 * The SDK client refuses a task-augmented request (`params.task`) when it did not declare the tasks capability,
 * but the spec says: "Receivers that do not declare the task capability for a request type MUST process
 * requests of that type normally, ignoring any task-augmentation metadata" (2025-11-25 tasks.mdx). The relay
 * does so, and forwards the request unchanged. (Found by the differential fuzzer.)
 */
class RelayClient extends Client {
  protected override assertTaskHandlerCapability(): void {}
}

/** The upstream refused initialize because it speaks 2026-07-28 only: the relay bridges to it. */
function refusedForModern(error: unknown): boolean {
  if (!(error instanceof McpError) || error.code !== CODE.unsupportedProtocolVersion) return false;
  const supported = (error.data as { supported?: unknown } | undefined)?.supported;
  return !Array.isArray(supported) || supported.includes(MRTR_ERA);
}

/**
 * The reference sampling relay: a stdio MCP server to its downstream client and a stdio MCP client of the
 * upstream server it launches. It forwards tools and relays sampling, validating requests before a question
 * opens and results before they are relayed, and answers with honest codes.
 */
// Long: the relay's wiring (both SDK ends, handlers, review surface, shutdown) reads best as one program.
export async function runRelay(options: RelayOptions): Promise<void> {
  const policy = options.policy ?? REFERENCE_POLICY;
  const limits: RelayLimits = { ...DEFAULT_LIMITS, ...options.limits };
  /** Sampling requests of the upstream open now (the rate limit counts them). */
  let openSampling = 0;
  const name = options.name ?? "mcpx-conform-reference-relay";
  let downstreamEra: Era | undefined;
  let upstreamEra: Era | undefined;
  let declared: SamplingCapabilities = {};

  let review: ReviewSurface | undefined;
  if (options.reviewPort !== undefined) {
    review = new ReviewSurface();
    await review.listen(options.reviewPort);
    process.stderr.write(`${name}: review surface at http://127.0.0.1:${review.port}/v1/questions\n`);
  }
  const server = new Server({ name, version: "1" }, { capabilities: { tools: {} } });
  const client = new RelayClient({ name, version: "1" }, { capabilities: {} });
  const [program, ...args] = options.upstream;
  if (!program && !options.upstreamUrl) throw new Error("no upstream command given");
  // Loaded only for an HTTP end: the SDK's Streamable HTTP transports pull in Node's fetch (undici) and an HTTP
  // server framework, a third of what a stdio relay process would otherwise spend starting up.
  const http =
    options.upstreamUrl !== undefined || options.listen !== undefined ? await import("./http.ts") : undefined;
  const upstreamTransport = new SharedTransport(
    options.upstreamUrl && http
      ? http.httpUpstreamTransport(options.upstreamUrl)
      : new StdioClientTransport({
          command: program!,
          args,
          env: process.env as Record<string, string>,
          stderr: "inherit",
        }),
  );
  /** Set when the upstream speaks 2026-07-28 to a legacy downstream. */
  let bridge: ModernUpstreamBridge | undefined;

  // The upstream is launched once the downstream has said what it can answer, so that the relay declares
  // sampling (and sampling.tools / sampling.context) upstream only when its downstream can honour them.
  let upstreamReady: Promise<void> | undefined;
  const connectUpstream = () => {
    upstreamReady ??= (async () => {
      declared = samplingCapabilitiesFrom(server.getClientCapabilities());
      // With a review surface a person can answer even when no model is connected downstream.
      if (review && !declared.sampling) declared = { sampling: {} };
      client.registerCapabilities(declared);
      try {
        await client.connect(upstreamTransport);
      } catch (error) {
        if (!refusedForModern(error)) throw error;
        upstreamEra = MRTR_ERA;
        bridge = new ModernUpstreamBridge({
          link: new UpstreamLink(upstreamTransport, () => undefined),
          policy,
          declared,
          name,
          sample: (params) => sample(params, MRTR_ERA, new AbortController().signal),
        });
        return;
      }
      const v = upstreamTransport.protocolVersion;
      upstreamEra = isEra(v) ? v : undefined;
    })();
    return upstreamReady;
  };

  // Sampling waits for the downstream's notifications/initialized (within the answer deadline).
  let initialized = false;
  const onInitialized: Array<() => void> = [];
  server.oninitialized = () => {
    initialized = true;
    for (const resolve of onInitialized.splice(0)) resolve();
  };
  const untilInitialized = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(initialized), ms);
      onInitialized.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });

  const originalInitialize = (server as any)._oninitialize.bind(server);
  server.removeRequestHandler("initialize");
  server.setRequestHandler(InitializeRequestSchema, async (request) => {
    const result = await originalInitialize(request);
    downstreamEra = isEra(result.protocolVersion) ? result.protocolVersion : undefined;
    return result;
  });

  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    await connectUpstream();
    if (bridge) return bridge.request("tools/list", request.params);
    return client.request({ method: "tools/list", params: request.params }, Untouched);
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    await connectUpstream();
    if (bridge) return bridge.request("tools/call", request.params);
    return client.request({ method: "tools/call", params: request.params }, Untouched, {
      signal: extra.signal,
      timeout: 10 * 60_000,
    });
  });

  // Sampling arrives through the fallback handler on purpose: the SDK's typed handler re-parses the request
  // with its own lax schemas and reports invalid params as -32603, while the relay must judge the raw request.
  client.fallbackRequestHandler = async (request, extra) => {
    if (request.method !== "sampling/createMessage") {
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    }
    const params = request.params ?? {};
    const era = upstreamEra ?? downstreamEra ?? "2025-11-25";
    const verdict = policy.checkRequest(params, { era, capabilities: declared });
    if (verdict && !verdict.legal) throw new WireFailure(policy.refuseRequest(verdict));
    const rounds = toolRounds(params);
    if (rounds > limits.maxToolRounds) throw new WireFailure(loopLimited(rounds, limits));
    if (openSampling >= limits.maxPendingSampling) throw new WireFailure(rateLimited(limits));
    openSampling++;
    try {
      return (await sample(params, era, extra.signal)) as any;
    } finally {
      openSampling--;
    }
  };

  /**
   * One sampling request the upstream (of `era`) sent and the relay has checked: adapted to the downstream's era,
   * reviewed or asked, and its result checked. Throws WireFailure (refused) or Unanswered (declined, failed, expired).
   */
  const sample = async (
    params: Record<string, unknown>,
    era: Era,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> => {
    if (downstreamEra && downstreamEra !== era) {
      const carried = policy.checkDownstreamCarries(params, {
        era: downstreamEra,
        capabilities: samplingCapabilitiesFrom(server.getClientCapabilities()),
      });
      if (carried && !carried.legal)
        throw new WireFailure(policy.refuseForDownstream(carried, downstreamEra));
    }
    if (review) {
      const legal = { legal: true, errors: [], warnings: [], code: null };
      const outcome = await reviewedSampling({
        surface: review,
        server: client.getServerVersion() ?? { name: "upstream" },
        params,
        deadline: Date.now() + (options.reviewTimeoutMs ?? options.answerTimeoutMs),
        expired: policy.expired(options.reviewTimeoutMs ?? options.answerTimeoutMs),
        policy: options.reviewPolicy ?? REFERENCE_REVIEW,
        checkRequest: (p) => policy.checkRequest(p, { era, capabilities: declared }) ?? legal,
        checkResult: (r) => policy.checkResult(r, { era, request: params }) ?? legal,
        askModel: server.getClientCapabilities()?.sampling
          ? (p) => askDownstream(p, signal).then((asked) => asked.result)
          : null,
      });
      if (!outcome.ok) throw new Unanswered(outcome.error);
      return policy.rewriteResult(outcome.result);
    }
    const asked = await askDownstream(params, signal);
    if (asked.relayedAsIs) return asked.result;
    const result = asked.result;
    const checked = policy.checkResult(result, { era, request: params });
    if (checked && !checked.legal) throw new WireFailure(policy.refuseResult(checked));
    return policy.rewriteResult(result);
  };

  /**
   * Asks the downstream client; its errors become the relay's wire errors (expiry, disconnect, or the client's
   * own error relayed). `relayedAsIs` marks a result a policy made up from an error (a defect of broken relays).
   */
  const askDownstream = async (
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ result: Record<string, unknown>; relayedAsIs: boolean }> => {
    // The SDK server sends requests its client never negotiated unless strict; the relay refuses them itself.
    const sampling = server.getClientCapabilities()?.sampling;
    if (!policy.asksUndeclared && (typeof sampling !== "object" || sampling === null)) {
      throw new WireFailure({
        code: ErrorCode.MethodNotFound,
        message: "Method not found: the client declared no sampling capability",
      });
    }
    if (policy.awaitsInitialized && !initialized && !(await untilInitialized(options.answerTimeoutMs)))
      throw new Unanswered(policy.expired(options.answerTimeoutMs));
    try {
      const asked = policy.rewriteRequest(
        policy.fitForDownstream(params, {
          era: downstreamEra ?? "2025-11-25",
          capabilities: server.getClientCapabilities(),
        }),
      );
      const result = await server.request({ method: "sampling/createMessage", params: asked }, Untouched, {
        timeout: options.answerTimeoutMs,
        signal,
      });
      return { result, relayedAsIs: false };
    } catch (error) {
      if (error instanceof McpError) {
        if (error.code === ErrorCode.RequestTimeout)
          throw new Unanswered(policy.expired(options.answerTimeoutMs));
        if (error.code === ErrorCode.ConnectionClosed) {
          throw new Unanswered({
            code: -32603,
            message: "The client disconnected before answering the sampling request",
          });
        }
        const relayed = policy.relayDownstreamError({
          code: error.code,
          message: unprefixed(error),
          data: error.data,
        });
        if ("result" in relayed)
          return { result: relayed.result as Record<string, unknown>, relayedAsIs: true };
        throw new Unanswered(relayed);
      }
      throw new WireFailure({
        code: -32603,
        message: `Sampling failed: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  };

  const downstreamTransport =
    options.listen !== undefined && http
      ? new http.HttpDownstreamTransport(options.listen)
      : new StdioServerTransport();
  // A 2026-07-28 downstream (no initialize; _meta protocolVersion on its first request) is served by the modern
  // path, which speaks 2026-07-28 upstream too; the SDK Server above only ever sees a legacy session.
  const modern = new ModernRelay({
    policy,
    upstream: upstreamTransport,
    downstream: downstreamTransport,
    answerTimeoutMs: options.answerTimeoutMs,
    name,
    limits,
    ...(review
      ? {
          review: {
            surface: review,
            timeoutMs: options.reviewTimeoutMs ?? options.answerTimeoutMs,
            ...(options.reviewPolicy ? { policy: options.reviewPolicy } : {}),
          },
        }
      : {}),
  });
  await server.connect(new DownstreamSwitch(downstreamTransport, (message) => modern.handle(message)));
  await new Promise<void>((resolve) => {
    const done = () => resolve();
    server.onclose = done;
    process.stdin.once("end", done);
    process.once("SIGTERM", done);
  });
  await review?.close();
  await client.close().catch(() => undefined);
  await modern.close().catch(() => undefined);
  await server.close().catch(() => undefined);
  await upstreamTransport.shutdown();
}
