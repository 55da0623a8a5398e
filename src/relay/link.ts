import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { CODE } from "../protocol/wire.ts";
import type { WireError } from "./policy.ts";

/** Raw JSON-RPC over the relay's upstream transport, for the 2026-07-28 paths the SDK 1.x cannot speak. */

const UPSTREAM_TIMEOUT_MS = 10 * 60_000;

export type Id = string | number;
export type Reply = { result: Record<string, unknown> } | { error: WireError };

/**
 * The upstream's transport (stdio, or Streamable HTTP with --upstream-url), shared by whoever speaks to the upstream: the SDK Client (legacy upstream) or
 * an UpstreamLink (2026-07-28). It starts once, and a close only detaches its user (the SDK Client closes its
 * transport when initialize is refused, which must not end the upstream the relay then speaks 2026-07-28 to);
 * `shutdown` ends it for good.
 */
export class SharedTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  protocolVersion: string | undefined;
  private started: Promise<void> | undefined;

  constructor(private readonly real: Transport) {}

  start(): Promise<void> {
    this.started ??= (async () => {
      this.real.onmessage = (message) => this.onmessage?.(message);
      this.real.onclose = () => this.onclose?.();
      this.real.onerror = (error) => this.onerror?.(error);
      await this.real.start();
    })();
    return this.started;
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.real.send(message);
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  async close(): Promise<void> {}

  async shutdown(): Promise<void> {
    if (this.started) await this.real.close().catch(() => undefined);
  }
}

/** Answers a request the upstream sends the relay (legacy upstream: sampling/createMessage, ping, roots/list). */
export type UpstreamRequestHandler = (method: string, params: unknown) => Promise<Reply>;

/** Request/response correlation over the upstream's transport. */
export class UpstreamLink {
  private nextId = 1;
  private readonly pending = new Map<Id, { resolve: (reply: Reply) => void; timer: NodeJS.Timeout }>();
  private started: Promise<void> | undefined;
  /** Requests from the upstream; unset: ping answered, the rest refused (a 2026-07-28 server sends none). */
  onRequest: UpstreamRequestHandler | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly onNotification: (message: JSONRPCMessage) => void,
  ) {}

  private start(): Promise<void> {
    this.started ??= (async () => {
      this.transport.onmessage = (message) => this.receive(message);
      this.transport.onerror = (error) => process.stderr.write(`relay: upstream: ${error.message}\n`);
      this.transport.onclose = () => {
        for (const [id, p] of this.pending) {
          clearTimeout(p.timer);
          p.resolve({
            error: { code: CODE.internalError, message: "The upstream server closed the connection" },
          });
          this.pending.delete(id);
        }
      };
      await this.transport.start();
    })();
    return this.started;
  }

  /** Sends a request upstream; resolves with its result or error (never rejects). Returns the id used. */
  async request(method: string, params: unknown, onId?: (id: Id) => void): Promise<Reply> {
    try {
      await this.start();
    } catch (error) {
      return {
        error: {
          code: CODE.internalError,
          message: `The upstream server could not be started: ${String(error)}`,
        },
      };
    }
    const id = this.nextId++;
    onId?.(id);
    return new Promise<Reply>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({
          error: {
            code: CODE.internalError,
            message: `The upstream server did not answer ${method} in time`,
          },
        });
      }, UPSTREAM_TIMEOUT_MS);
      this.pending.set(id, { resolve, timer });
      const message =
        params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
      this.transport.send(message as JSONRPCMessage).catch((error) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve({
          error: {
            code: CODE.internalError,
            message: `Could not reach the upstream server: ${String(error)}`,
          },
        });
      });
    });
  }

  notify(method: string, params: unknown): void {
    if (!this.started) return;
    const message = params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
    void this.transport.send(message as JSONRPCMessage).catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.started) await this.transport.close().catch(() => undefined);
  }

  private receive(message: JSONRPCMessage): void {
    const m = message as Record<string, any>;
    if (typeof m.method === "string") {
      if (m.id === undefined) {
        this.onNotification(message);
        return;
      }
      void this.answer(m.method, m.params).then((reply) =>
        this.transport.send({ jsonrpc: "2.0", id: m.id, ...reply } as JSONRPCMessage).catch(() => undefined),
      );
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    clearTimeout(p.timer);
    p.resolve("error" in m ? { error: m.error } : { result: m.result ?? {} });
  }

  private async answer(method: string, params: unknown): Promise<Reply> {
    if (this.onRequest) {
      try {
        return await this.onRequest(method, params);
      } catch (error) {
        return { error: { code: CODE.internalError, message: `Relay failure: ${String(error)}` } };
      }
    }
    // A 2026-07-28 server sends no requests; answer ping, refuse the rest (legacy sampling included).
    return method === "ping"
      ? { result: {} }
      : { error: { code: CODE.methodNotFound, message: `Method not found: ${method} (2026-07-28 session)` } };
  }
}
