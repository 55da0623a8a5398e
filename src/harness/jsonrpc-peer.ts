/**
 * A minimal JSON-RPC 2.0 peer over a line channel (newline-delimited JSON).
 *
 * Written by hand rather than on the SDK's Protocol class on purpose: the harness must see every frame
 * exactly as it came over the wire (the SDK's stdio ReadBuffer parses frames with zod, which drops unknown
 * top-level keys and throws on malformed ones) and must be able to send frames the SDK refuses to build
 * (malformed results, bad pairings, raw error objects).
 */

/** How a frame is to travel, where the transport gives a choice (others ignore it). */
export interface SendOptions {
  /**
   * Streamable HTTP upstream (legacy eras): send this server request on the standalone GET stream, tied to no
   * request of the client, instead of on the response stream of the tool call in flight.
   */
  unrelated?: boolean;
}

export interface LineChannel {
  /**
   * Sends one frame. A channel that multiplexes several connections returns the label (a string) of the one it
   * used; whatever any other channel returns is ignored.
   */
  send(line: string, options?: SendOptions): unknown;
  /** `via`: on a channel that multiplexes several connections, the label of the one the line came from. */
  onLine(handler: (line: string, via?: string) => void): void;
  /**
   * Every frame from the relay as it came over the wire, before any parsing, including frames the transport then
   * drops (HTTP: the SDK refuses what is not JSON-RPC). Only channels whose `onLine` delivers something other than
   * the wire text have it; `recorded` then records inbound frames from here instead of from `onLine`.
   */
  onRaw?(handler: (raw: string, via?: string, httpStatus?: number) => void): void;
  onClose(handler: (reason: string) => void): void;
  /**
   * HTTP channels: the status of the latest non-2xx answer to a request of this method, if there was one (a relay
   * that does not serve a client's era refuses its first requests at the HTTP level).
   */
  httpRefusal?(method: string): number | undefined;
}

export type JsonRpcId = string | number;

export interface JsonRpcResponse {
  id: JsonRpcId | null;
  result?: unknown;
  error?: { code: unknown; message: unknown; data?: unknown };
}

/** Handles an incoming request; returns the raw response members (result or error). */
export type RequestHandler = (
  method: string,
  params: unknown,
  id: JsonRpcId,
) => Promise<
  { result: unknown } | { error: { code: number; message: string; data?: unknown } } | { noReply: true }
>;

export class PeerClosedError extends Error {}
export class PeerTimeoutError extends Error {}

interface Pending {
  resolve: (response: JsonRpcResponse) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class JsonRpcPeer {
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private requestHandler: RequestHandler | undefined;
  private notificationHandler: ((method: string, params: unknown) => void) | undefined;
  private closedReason: string | undefined;
  private readonly closeListeners: Array<(reason: string) => void> = [];
  private readonly early: Array<{ method: string; params: unknown; id: JsonRpcId }> = [];
  /** Lines that were not valid JSON-RPC, kept for the verdict. */
  readonly garbage: string[] = [];

  constructor(
    private readonly channel: LineChannel,
    private readonly idPrefix = "",
  ) {
    channel.onLine((line) => this.receive(line));
    channel.onClose((reason) => this.close(reason));
  }

  get closed(): string | undefined {
    return this.closedReason;
  }

  onRequest(handler: RequestHandler): void {
    this.requestHandler = handler;
    // Requests that arrived before the handler was set (a channel may deliver buffered lines at once).
    for (const r of this.early.splice(0)) void this.answer(r.method, r.params, r.id);
  }

  onNotification(handler: (method: string, params: unknown) => void): void {
    this.notificationHandler = handler;
  }

  onClose(listener: (reason: string) => void): void {
    if (this.closedReason !== undefined) listener(this.closedReason);
    else this.closeListeners.push(listener);
  }

  /** Sends a request and waits for its response (result or error), or rejects on timeout/close. */
  request(
    method: string,
    params: unknown,
    timeoutMs: number,
    options?: SendOptions,
  ): Promise<JsonRpcResponse> {
    const id: JsonRpcId = this.idPrefix ? `${this.idPrefix}${this.nextId++}` : this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.closedReason !== undefined) {
        reject(new PeerClosedError(this.closedReason));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(String(id));
        reject(new PeerTimeoutError(`no response to ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(String(id), { resolve, reject, timer });
      this.sendRaw(
        JSON.stringify(
          params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params },
        ),
        options,
      );
    });
  }

  notify(method: string, params?: unknown): void {
    this.sendRaw(
      JSON.stringify(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }),
    );
  }

  /** Sends any text as one frame, legal or not. */
  sendRaw(line: string, options?: SendOptions): void {
    if (this.closedReason !== undefined) return;
    this.channel.send(line, options);
  }

  close(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const [key, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new PeerClosedError(reason));
      this.pending.delete(key);
    }
    for (const listener of this.closeListeners.splice(0)) listener(reason);
  }

  private receive(line: string): void {
    if (line.trim() === "") return;
    let message: any;
    try {
      message = JSON.parse(line);
    } catch {
      this.garbage.push(line);
      return;
    }
    if (message === null || typeof message !== "object" || Array.isArray(message)) {
      this.garbage.push(line);
      return;
    }
    const hasId = "id" in message && (typeof message.id === "string" || typeof message.id === "number");
    if (typeof message.method === "string") {
      if (hasId && !this.requestHandler)
        this.early.push({ method: message.method, params: message.params, id: message.id });
      else if (hasId) void this.answer(message.method, message.params, message.id);
      else this.notificationHandler?.(message.method, message.params);
      return;
    }
    if ("result" in message || "error" in message) {
      const pending = hasId ? this.pending.get(String(message.id)) : undefined;
      if (!pending) {
        this.garbage.push(line);
        return;
      }
      this.pending.delete(String(message.id));
      clearTimeout(pending.timer);
      pending.resolve(message as JsonRpcResponse);
      return;
    }
    this.garbage.push(line);
  }

  private async answer(method: string, params: unknown, id: JsonRpcId): Promise<void> {
    try {
      const reply = await this.requestHandler!(method, params, id);
      if ("noReply" in reply) return;
      this.sendRaw(JSON.stringify({ jsonrpc: "2.0", id, ...reply }));
    } catch (error) {
      this.sendRaw(
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          error: { code: -32603, message: `harness handler failed: ${String(error)}` },
        }),
      );
    }
  }
}
