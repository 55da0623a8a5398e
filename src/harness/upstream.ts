import type { UpstreamOutcome } from "../model/evidence.ts";
import type { Era } from "../protocol/eras.ts";
import { JsonRpcPeer, type LineChannel, PeerClosedError, PeerTimeoutError } from "./jsonrpc-peer.ts";

export const PROBE_TOOL = "conformance_probe";

/** What the upstream does on the next probe tool call: send these sampling params and report what came back. */
export interface Probe {
  caseKey: string;
  params: Record<string, unknown>;
  /** How long to wait for the relay's answer to the sampling request. */
  waitMs: number;
  done: (outcome: UpstreamOutcome) => void;
  /** Streamable HTTP: send the sampling request on the standalone GET stream (tied to no request) instead. */
  unrelated?: boolean;
}

/**
 * The scripted upstream MCP server (legacy eras: initialize handshake, sampling as a server→client request).
 * It exposes one tool; each call sends the current case's sampling/createMessage to the relay, waits for the
 * answer, and reports exactly what came back (result or error object, raw) to the controller.
 */
export class ScriptedUpstream {
  readonly peer: JsonRpcPeer;
  /** What the relay asked for at initialize. */
  initialize: { protocolVersion?: unknown; capabilities?: unknown; clientInfo?: unknown } | undefined;
  negotiated: string | null = null;
  private probe: Probe | undefined;
  /** Case keys of probe calls that arrived with no probe armed (a late or duplicated call). */
  readonly strayCalls: unknown[] = [];

  constructor(
    channel: LineChannel,
    private readonly era: Era,
  ) {
    this.peer = new JsonRpcPeer(channel, "up-");
    this.peer.onRequest((method, params) => this.handle(method, params));
    this.peer.onNotification(() => undefined);
  }

  /** Arms the next probe call; undefined disarms a probe whose case has ended. */
  get declared(): unknown {
    return this.initialize?.capabilities;
  }

  arm(probe: Probe | undefined): void {
    this.probe = probe;
  }

  disarm(caseKey: string): void {
    if (this.probe?.caseKey === caseKey) this.probe = undefined;
  }

  private async handle(method: string, params: any) {
    switch (method) {
      case "initialize":
        this.initialize = params ?? {};
        this.negotiated = this.era;
        return {
          result: {
            protocolVersion: this.era,
            capabilities: { tools: {} },
            serverInfo: { name: "mcpx-conform-upstream", version: "1" },
          },
        };
      case "ping":
        return { result: {} };
      case "tools/list":
        return {
          result: {
            tools: [
              {
                name: PROBE_TOOL,
                description:
                  "mcpx-conform probe: sends one scripted sampling/createMessage and reports the answer",
                inputSchema: { type: "object", properties: { caseKey: { type: "string" } } },
              },
            ],
          },
        };
      case "tools/call":
        return this.call(params);
      default:
        return { error: { code: -32601, message: `Method not found: ${method}` } };
    }
  }

  private async call(params: any) {
    const probe = this.probe;
    if (!probe) {
      this.strayCalls.push(params);
      return { error: { code: -32603, message: "no conformance case is running" } };
    }
    this.probe = undefined;
    let outcome: UpstreamOutcome;
    const started = performance.now();
    try {
      const response = await this.peer.request(
        "sampling/createMessage",
        probe.params,
        probe.waitMs,
        probe.unrelated ? { unrelated: true } : undefined,
      );
      outcome =
        response.error !== undefined
          ? { kind: "error", error: response.error as any }
          : { kind: "result", result: response.result };
    } catch (error) {
      outcome =
        error instanceof PeerTimeoutError
          ? { kind: "timeout", afterMs: Math.round(performance.now() - started) }
          : { kind: "broken", detail: error instanceof PeerClosedError ? error.message : String(error) };
    }
    probe.done(outcome);
    return { result: { content: [{ type: "text", text: `mcpx-conform recorded the ${outcome.kind}` }] } };
  }
}
