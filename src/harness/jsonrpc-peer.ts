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
  /**
   * Called once the frame has left the harness: at once on a channel that writes as it is handed a frame; over HTTP
   * when its POST was answered (the channel says so with `confirmsWrites`). The harness times its own actions by it.
   */
  written?: () => void;
}

export interface LineChannel {
  /**
   * Sends one frame. A channel that multiplexes several connections returns the label (a string) of the one it
   * used; whatever any other channel returns is ignored.
   */
  send(line: string, options?: SendOptions): unknown;
  /** The channel calls `options.written` itself, once the frame has left (HTTP: its POST was answered). */
  confirmsWrites?: boolean;
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
  /**
   * Streamable HTTP upstream: whether a request tied to no request of the relay can go out now (the relay holds a
   * standalone GET stream open, after a moment's wait for it). Other channels can always send.
   */
  unrelatedReady?(): Promise<boolean>;
}

export type JsonRpcId = string | number;

export interface JsonRpcResponse {
  id: JsonRpcId | null;
  result?: unknown;
  error?: { code: unknown; message: unknown; data?: unknown };
}

/**
 * Handles an incoming request; returns the raw response members (result or error), and optionally `onWritten`,
 * called with the moment (performance.now()) the response left the harness.
 */
export type RequestHandler = (
  method: string,
  params: unknown,
  id: JsonRpcId,
) => Promise<
  ({ result: unknown } | { error: { code: number; message: string; data?: unknown } } | { noReply: true }) & {
    onWritten?: (at: number) => void;
  }
>;

export class PeerClosedError extends Error {}
export class PeerTimeoutError extends Error {}
/** A response came back under an id equal to a pending request's only as text (5 for "5", or "5" for 5). */
export class PeerIdChangedError extends Error {}

interface Pending {
  id: JsonRpcId;
  resolve: (response: JsonRpcResponse) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * A response pairs with its request by the same id, type included (JSON-RPC 2.0 §5: "It MUST be the same as the
 * value of the id member in the Request Object"): 5 and "5" are different ids, so pending requests are keyed by both.
 */
export function idKey(id: JsonRpcId): string {
  return `${typeof id}:${id}`;
}

export class JsonRpcPeer {
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  /** Every id this peer has sent a request under: ids are never reused in a session (MCP basic: "MUST NOT have been previously used"). */
  private readonly used = new Set<string>();
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

  /**
   * Sends a request and waits for its response (result or error), or rejects on timeout/close. `id`: the request's
   * own id (the fuzzer's), which must not have been used on this peer; else the next of the peer's own.
   */
  request(
    method: string,
    params: unknown,
    timeoutMs: number,
    options?: SendOptions,
    id: JsonRpcId = this.ownId(),
  ): Promise<JsonRpcResponse> {
    if (this.used.has(idKey(id)))
      throw new Error(`request id ${JSON.stringify(id)} was already used on this peer`);
    this.used.add(idKey(id));
    return new Promise((resolve, reject) => {
      if (this.closedReason !== undefined) {
        reject(new PeerClosedError(this.closedReason));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(idKey(id));
        reject(new PeerTimeoutError(`no response to ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(idKey(id), { id, resolve, reject, timer });
      this.sendRaw(
        JSON.stringify(
          params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params },
        ),
        options,
      );
    });
  }

  /** Whether a request tied to no request of the other side can go out on this channel now (LineChannel.unrelatedReady). */
  unrelatedReady(): Promise<boolean> {
    return this.channel.unrelatedReady?.() ?? Promise.resolve(true);
  }

  /** Whether `id` is free for a request of this peer (never sent under before). */
  idFree(id: JsonRpcId): boolean {
    return !this.used.has(idKey(id));
  }

  private ownId(): JsonRpcId {
    for (;;) {
      const id: JsonRpcId = this.idPrefix ? `${this.idPrefix}${this.nextId++}` : this.nextId++;
      if (!this.used.has(idKey(id))) return id;
    }
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
    if (options?.written && !this.channel.confirmsWrites) options.written();
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
      const pending = hasId ? this.pending.get(idKey(message.id)) : undefined;
      if (!pending) {
        this.garbage.push(line);
        // The relay changed the id's type on the way: the exchange is broken now, not after the request's wait.
        const changed = hasId
          ? [...this.pending.values()].find((p) => String(p.id) === String(message.id))
          : undefined;
        if (changed) {
          this.pending.delete(idKey(changed.id));
          clearTimeout(changed.timer);
          changed.reject(
            new PeerIdChangedError(
              `the response to request id ${JSON.stringify(changed.id)} came back under id ${JSON.stringify(message.id)} (${typeof changed.id} → ${typeof message.id})`,
            ),
          );
        }
        return;
      }
      this.pending.delete(idKey(message.id));
      clearTimeout(pending.timer);
      pending.resolve(message as JsonRpcResponse);
      return;
    }
    this.garbage.push(line);
  }

  private async answer(method: string, params: unknown, id: JsonRpcId): Promise<void> {
    try {
      const { onWritten, ...reply } = await this.requestHandler!(method, params, id);
      if ("noReply" in reply) return;
      const written = onWritten ? { written: () => onWritten(performance.now()) } : undefined;
      this.sendRaw(JSON.stringify({ jsonrpc: "2.0", id, ...reply }), written);
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
