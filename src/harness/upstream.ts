import type { UpstreamOutcome } from "../model/evidence.ts";
import type { Era } from "../protocol/eras.ts";
import { type ArmedProbe, type Ask, recordEntry, recordUnsent, type Sequence } from "./ends.ts";
import {
  type JsonRpcId,
  JsonRpcPeer,
  type LineChannel,
  PeerClosedError,
  PeerIdChangedError,
  PeerTimeoutError,
} from "./jsonrpc-peer.ts";
import { DETACHED_AFTER_CALL_MS } from "./waits.ts";

export const PROBE_TOOL = "conformance_probe";

/**
 * A detached request that never went out: the relay had closed the upstream connection once the call was answered (a
 * gateway holding no upstream session between requests), so the upstream could not ask. The case is n/a, not judged.
 */
export const DETACHED_UNSENT =
  "n/a: the relay closed its upstream connection once the call was answered, so the upstream had none to send a request on";
/**
 * The same on a Streamable HTTP upstream whose relay holds no standalone GET stream open once the call is answered (a
 * transparent HTTP proxy opens one only when its client does): a server can send a request tied to no request only
 * there (transports, "Listening for Messages from the Server"), so the upstream could not ask, and the relay is not
 * judged on a request it never received.
 */
export const DETACHED_NO_STREAM =
  "n/a: the relay kept no standalone GET stream open to its Streamable HTTP upstream once the call was answered, so the upstream had nowhere to send a request tied to no request";

/** What the relay asked for at initialize. */
type Initialize = { protocolVersion?: unknown; capabilities?: unknown; clientInfo?: unknown };

/** One upstream connection of the relay (a process it launched, or an HTTP session it opened) and its handshake. */
interface Connection {
  peer: JsonRpcPeer;
  initialize?: Initialize;
}

/**
 * The scripted upstream MCP server (legacy eras: initialize handshake, sampling as a server→client request).
 * It exposes one tool; each call sends the current case's sampling/createMessage to the relay, waits for the
 * answer, and reports exactly what came back (result or error object, raw) to the controller.
 *
 * It serves every upstream connection the relay makes (`attach`): a gateway may launch a process, or open a session,
 * for each request it forwards, each numbering its JSON-RPC ids from 1 again. Each connection has its own JSON-RPC
 * peer (ids are matched per connection, never across), its own handshake, and the armed probe goes to whichever
 * connection calls the probe tool; its sampling request goes out on that connection.
 */
export class ScriptedUpstream {
  private readonly connections: Connection[] = [];
  /** The connection of the latest handshake, and of the latest probe call (its handshake is what the relay declared). */
  private latest: Connection | undefined;
  private called: Connection | undefined;
  negotiated: string | null = null;
  private probe: ArmedProbe | undefined;
  /** Case keys of probe calls that arrived with no probe armed (a late or duplicated call). */
  readonly strayCalls: unknown[] = [];

  constructor(
    channel: LineChannel | undefined,
    private readonly era: Era,
  ) {
    if (channel) this.attach(channel);
  }

  /** Serves one more upstream connection of the relay. */
  attach(channel: LineChannel): void {
    const connection: Connection = { peer: new JsonRpcPeer(channel, "up-") };
    connection.peer.onRequest((method, params) => this.handle(connection, method, params));
    connection.peer.onNotification(() => undefined);
    this.connections.push(connection);
    // A connection that is over is forgotten (the first is kept: `peer`; the latest handshakes stay referenced).
    connection.peer.onClose(() => {
      const at = this.connections.indexOf(connection);
      if (at > 0) this.connections.splice(at, 1);
    });
  }

  /** The first connection's peer. */
  get peer(): JsonRpcPeer {
    return this.connections[0]!.peer;
  }

  /** What the relay asked for at initialize, on the connection that carried the latest probe call (else the latest). */
  get initialize(): Initialize | undefined {
    return (this.called ?? this.latest)?.initialize;
  }

  get declared(): unknown {
    return this.initialize?.capabilities;
  }

  /** Arms the next probe call; undefined disarms a probe whose case has ended. */
  arm(probe: ArmedProbe | undefined): void {
    this.probe = probe;
  }

  disarm(caseKey: string): void {
    if (this.probe?.caseKey === caseKey) this.probe = undefined;
  }

  private async handle(connection: Connection, method: string, params: any) {
    switch (method) {
      case "initialize":
        connection.initialize = params ?? {};
        this.latest = connection;
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
        return this.call(connection, params);
      default:
        return { error: { code: -32601, message: `Method not found: ${method}` } };
    }
  }

  private async call(connection: Connection, params: any) {
    const probe = this.probe;
    if (!probe) {
      this.strayCalls.push(params);
      return { error: { code: -32603, message: "no conformance case is running" } };
    }
    this.probe = undefined;
    this.called = connection;
    const { peer } = connection;
    if (probe.detached) {
      const waitMs = Math.max(1, probe.waitMs - DETACHED_AFTER_CALL_MS);
      setTimeout(() => {
        if (peer.closed !== undefined)
          return probe.done({ kind: "broken", detail: `${DETACHED_UNSENT} (${peer.closed})` });
        void peer
          .unrelatedReady()
          .then((ready) =>
            ready
              ? this.sample(peer, probe.params, waitMs, probe.waitMs, true, probe.requestId).then(probe.done)
              : probe.done({ kind: "broken", detail: DETACHED_NO_STREAM }),
          );
      }, DETACHED_AFTER_CALL_MS);
      return {
        result: {
          content: [{ type: "text", text: "mcpx-conform sends its sampling request after this result" }],
        },
      };
    }
    const outcome = probe.sequence
      ? await this.sequence(peer, probe.sequence, performance.now() + probe.waitMs, probe.waitMs)
      : await this.sample(peer, probe.params, probe.waitMs, probe.waitMs, probe.unrelated, probe.requestId);
    probe.done(outcome);
    return { result: { content: [{ type: "text", text: `mcpx-conform recorded the ${outcome.kind}` }] } };
  }

  /**
   * One sampling request and what came back for it, waiting at most `waitMs` (what is left of the probe's deadline);
   * a timeout names the probe's whole deadline, `deadlineMs`, a fixed figure, and the time it measured.
   */
  private async sample(
    peer: JsonRpcPeer,
    params: Record<string, unknown>,
    waitMs: number,
    deadlineMs: number,
    unrelated?: boolean,
    requestId?: JsonRpcId,
  ): Promise<UpstreamOutcome> {
    const started = performance.now();
    try {
      const response = await peer.request(
        "sampling/createMessage",
        params,
        Math.max(1, waitMs),
        unrelated ? { unrelated: true } : undefined,
        requestId !== undefined && peer.idFree(requestId) ? requestId : undefined,
      );
      return response.error !== undefined
        ? { kind: "error", error: response.error as any }
        : { kind: "result", result: response.result };
    } catch (error) {
      return error instanceof PeerTimeoutError
        ? { kind: "timeout", deadlineMs, afterMs: Math.round(performance.now() - started) }
        : {
            kind: "broken",
            detail:
              error instanceof PeerClosedError || error instanceof PeerIdChangedError
                ? error.message
                : String(error),
          };
    }
  }

  /**
   * Several sampling requests within the probe's one deadline: each round's at once, the next round once every
   * request of this one has its outcome. The first request's outcome is the probe's.
   */
  private async sequence(
    peer: JsonRpcPeer,
    sequence: Sequence,
    deadline: number,
    deadlineMs: number,
  ): Promise<UpstreamOutcome> {
    let asks: Ask[] | undefined = sequence.first;
    for (let round = 0; asks && asks.length > 0; round++) {
      const many = asks.length > 1;
      const outcomes: UpstreamOutcome[] = await Promise.all(
        asks.map((a, i) =>
          this.sample(peer, a.params, deadline - performance.now(), deadlineMs).then((o) =>
            // Of a round of several (a burst), each outcome but the probe's is kept as the sequence keeps it as soon
            // as it comes, not once the whole round is in; a round of one is the next round's input first.
            many && (round > 0 || i > 0) && sequence.keptOutcome ? sequence.keptOutcome(o) : o,
          ),
        ),
      );
      const answered: Array<{ ask: Ask; outcome: UpstreamOutcome }> = asks.map((ask, i) => ({
        ask,
        outcome: outcomes[i]!,
      }));
      for (const { ask, outcome } of answered)
        recordEntry(sequence, { round, key: ask.key, token: ask.token, sent: ask.params, outcome });
      asks = sequence.next?.(round, answered);
      if (asks?.length && performance.now() >= deadline) {
        recordUnsent(sequence, round + 1, asks, deadlineMs);
        break;
      }
    }
    return sequence.record[0]?.outcome ?? { kind: "broken", detail: "the sequence sent no request" };
  }
}
