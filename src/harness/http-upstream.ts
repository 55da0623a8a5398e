import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { text as readText } from "node:stream/consumers";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MRTR_ERA } from "../protocol/eras.ts";
import { META } from "../protocol/wire.ts";
import { debug } from "./debug.ts";
import type { JsonRpcId, LineChannel, SendOptions } from "./jsonrpc-peer.ts";
import { STANDALONE_STREAM_POLL_MS, STANDALONE_STREAM_WAIT_MS } from "./waits.ts";

/**
 * The harness upstream hosted over HTTP: a node:http server on 127.0.0.1 with the SDK's server transports
 * (Streamable HTTP at /mcp, legacy SSE at /sse + /messages), adapted to one LineChannel.
 *
 * The transports only carry frames: each message is serialised with JSON.stringify on the way in and parsed on
 * the way out, so params and results reach the scripted upstream as the relay sent them. (They do parse every
 * frame with the SDK's JSON-RPC envelope schema first: a frame that is not JSON-RPC at all is refused with HTTP
 * 400 and never reaches the scripted upstream, and members of an error object other than code/message/data are
 * dropped.) The evidence does not depend on that parse: every POST body is read here first and reported through
 * the channel's `onRaw` as it came over the wire (non-JSON, refused and unknown-session bodies included), and
 * `recorded` records inbound frames from there.
 *
 * A relay may open several MCP sessions (mcp-remote opens a connection test before the session it proxies);
 * they are multiplexed onto the one channel, so that the scripted upstream answers whichever session speaks.
 * Responses go back to the session that sent the request with that id. A request or notification the upstream
 * sends on its own (sampling/createMessage during a tool call) goes to the session with the newest tool call in
 * flight, *related to that call*: on Streamable HTTP it then travels on the tool call's own response stream. Sent
 * `unrelated` (a case's `stream: standalone`) it goes without a related request id, on the standalone GET stream, and
 * is dropped (as the SDK drops it) when the relay never opened one: the host waits a moment for that stream first.
 *
 * 2026-07-28 has no session and no initialize: a POST without Mcp-Session-Id that carries that protocol version
 * (MCP-Protocol-Version header, `_meta`, or server/discover) is served statelessly here, without the SDK: its one
 * request is handed to the scripted upstream and the response is the POST's body, as JSON (a notification gets
 * 202). All such POSTs share one session label.
 */

export type HttpTransport = "streamable-http" | "sse";

export const STREAMABLE_PATH = "/mcp";
export const SSE_PATH = "/sse";
export const SSE_MESSAGES_PATH = "/messages";

interface UpstreamSession {
  label: string;
  open: boolean;
  /** Streamable HTTP: how many standalone GET streams the relay holds open on this session. */
  standalone: number;
  /** Requests the relay sent on this session that the upstream has not answered yet, oldest first. */
  inFlight: Array<{ id: JsonRpcId; method: string }>;
  send(message: JSONRPCMessage, relatedRequestId?: JsonRpcId): Promise<void>;
  close(): Promise<void>;
}

const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is JsonRpcId => typeof v === "string" || typeof v === "number";

function reply(res: ServerResponse, status: number, message: string, code = -32000): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
}

export class HttpUpstreamHost {
  readonly server: Server;
  url = "";
  private readonly sessions: UpstreamSession[] = [];
  private readonly streamable = new Map<
    string,
    { transport: StreamableHTTPServerTransport; session: UpstreamSession }
  >();
  private readonly sse = new Map<string, { transport: SSEServerTransport; session: UpstreamSession }>();
  private readonly lineHandlers: Array<(line: string, via?: string) => void> = [];
  private readonly rawHandlers: Array<(raw: string, via?: string) => void> = [];
  private readonly earlyRaw: Array<[string, string | undefined]> = [];
  private readonly closeHandlers: Array<(reason: string) => void> = [];
  private readonly early: Array<[string, string]> = [];
  private readonly firstSession: Promise<void>;
  private sessionOpened!: () => void;
  private handedOut = false;
  private closed = false;
  /** 2026-07-28: the one stateless session, once a 2026-07-28 POST came. */
  private modern: UpstreamSession | undefined;
  /** 2026-07-28: POSTs waiting for the upstream's response, by JSON-RPC id (JSON text), oldest first. */
  private readonly modernReplies = new Map<string, ServerResponse[]>();

  /** The one channel every session of this host is multiplexed onto. */
  readonly channel: LineChannel = {
    send: (line, options) => this.outbound(line, options),
    onLine: (h) => {
      this.lineHandlers.push(h);
      for (const [line, via] of this.early.splice(0)) h(line, via);
    },
    onRaw: (h) => {
      this.rawHandlers.push(h);
      for (const [raw, via] of this.earlyRaw.splice(0)) h(raw, via);
    },
    onClose: (h) => this.closeHandlers.push(h),
  };

  private constructor(
    readonly transport: HttpTransport,
    /** The upstream speaks 2026-07-28 only: every POST without a session is its (an initialize too, which it refuses). */
    private readonly modernOnly = false,
  ) {
    this.server = createServer((req, res) => {
      this.route(req, res).catch((error) => {
        debug(`upstream host: ${req.method} ${req.url}: ${error instanceof Error ? error.message : error}`);
        reply(res, 500, "mcpx-conform upstream host failed");
      });
    });
    this.firstSession = new Promise((resolve) => {
      this.sessionOpened = resolve;
    });
  }

  /** Starts a host listening on a free port of 127.0.0.1 (never any other interface). */
  static async start(
    transport: HttpTransport,
    options: { modern?: boolean } = {},
  ): Promise<HttpUpstreamHost> {
    const host = new HttpUpstreamHost(transport, options.modern === true);
    await new Promise<void>((resolve, reject) => {
      host.server.once("error", reject);
      host.server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = host.server.address() as AddressInfo;
    host.url = `http://127.0.0.1:${port}${transport === "sse" ? SSE_PATH : STREAMABLE_PATH}`;
    return host;
  }

  /**
   * The upstream channel, once the relay has opened its first session. All of a relay's sessions share this one
   * channel, so a later call only times out: the relay makes no further upstream "connection".
   */
  next(timeoutMs: number): Promise<LineChannel> {
    if (this.handedOut) {
      return new Promise((_, reject) => {
        setTimeout(
          () => reject(new Error("every session of an HTTP relay shares the one upstream channel")),
          timeoutMs,
        ).unref();
      });
    }
    return new Promise((resolve, reject) => {
      let expired = false;
      const timer = setTimeout(() => {
        expired = true;
        reject(
          new Error(
            `the relay did not connect to the harness upstream at ${this.url} within ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      timer.unref();
      void this.firstSession.then(() => {
        if (expired || this.handedOut) return;
        clearTimeout(timer);
        this.handedOut = true;
        resolve(this.channel);
      });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.sessions.map((s) => s.close().catch(() => undefined)));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const h of this.closeHandlers.splice(0)) h("the harness closed its HTTP upstream");
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (this.transport === "streamable-http" && url.pathname === STREAMABLE_PATH)
      return this.streamableRequest(req, res);
    if (this.transport === "sse" && url.pathname === SSE_PATH && req.method === "GET")
      return this.openSse(res);
    if (this.transport === "sse" && url.pathname === SSE_MESSAGES_PATH && req.method === "POST") {
      const known = this.sse.get(url.searchParams.get("sessionId") ?? "");
      const text = await readText(req);
      this.wire(text, known?.session.label);
      if (!known) return reply(res, 404, "Session not found");
      // The SDK parses the text itself (and answers 400 to what is not JSON-RPC), as if it had read the body.
      return known.transport.handlePostMessage(req, res, text);
    }
    // OAuth discovery (/.well-known/…) and anything else: there is nothing here.
    res.writeHead(404).end();
  }

  // Long: one request of the Streamable HTTP endpoint, from its raw body to the session it opens or belongs to.
  private async streamableRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers["mcp-session-id"];
    const known = typeof sessionId === "string" ? this.streamable.get(sessionId) : undefined;
    if (req.method !== "POST") {
      if (typeof sessionId !== "string") return reply(res, 400, "Bad Request: no session (initialize first)");
      if (!known) return reply(res, 404, "Session not found");
      if (req.method === "GET") {
        known.session.standalone++;
        res.once("close", () => known.session.standalone--);
      }
      return known.transport.handleRequest(req, res);
    }
    const text = await readText(req);
    let body: unknown;
    let json = true;
    try {
      body = JSON.parse(text);
    } catch {
      json = false;
    }
    if (typeof sessionId === "string") {
      this.wire(text, known?.session.label);
      if (!known) return reply(res, 404, "Session not found");
      if (!json) return reply(res, 400, "Parse error: the body is not JSON", -32700);
      return known.transport.handleRequest(req, res, body);
    }
    if (json && (this.modernOnly || isModernPost(req, body)))
      return this.modernPost(res, text, body as Record<string, unknown>);
    const opens =
      json && (Array.isArray(body) ? body : [body]).some((m) => isObject(m) && m.method === "initialize");
    if (!opens) {
      this.wire(text);
      if (!json) return reply(res, 400, "Parse error: the body is not JSON", -32700);
      return reply(res, 400, "Bad Request: no session (initialize first)");
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.streamable.set(id, { transport, session });
      },
    });
    const session = this.addSession(
      (message, relatedRequestId) =>
        transport.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId }),
      () => transport.close(),
    );
    transport.onmessage = (message) => this.inbound(session, message);
    transport.onerror = (error) => debug(`upstream ${session.label}: ${error.message}`);
    transport.onclose = () => {
      session.open = false;
      if (transport.sessionId) this.streamable.delete(transport.sessionId);
    };
    this.wire(text, session.label);
    await transport.start();
    await transport.handleRequest(req, res, body);
  }

  private async openSse(res: ServerResponse): Promise<void> {
    const transport = new SSEServerTransport(SSE_MESSAGES_PATH, res);
    const session = this.addSession(
      (message) => transport.send(message),
      () => transport.close(),
    );
    this.sse.set(transport.sessionId, { transport, session });
    transport.onmessage = (message) => this.inbound(session, message);
    transport.onerror = (error) => debug(`upstream ${session.label}: ${error.message}`);
    transport.onclose = () => {
      session.open = false;
      this.sse.delete(transport.sessionId);
    };
    await transport.start();
  }

  /**
   * 2026-07-28: one POST, one message, no session. A request waits for the upstream's response, which becomes the
   * POST's JSON body; a notification is accepted at once (202).
   */
  private modernPost(res: ServerResponse, text: string, message: Record<string, unknown>): void {
    this.modern ??= this.addSession(
      (reply) => this.modernReply(reply),
      async () => {
        for (const waiting of this.modernReplies.values())
          for (const r of waiting) reply(r, 503, "the harness closed its HTTP upstream");
        this.modernReplies.clear();
      },
    );
    const session = this.modern;
    this.wire(text, session.label);
    if (typeof message.method !== "string") {
      reply(res, 400, "Invalid Request: not a request", -32600);
      return;
    }
    if (isId(message.id)) {
      const key = JSON.stringify(message.id);
      const waiting = this.modernReplies.get(key) ?? [];
      waiting.push(res);
      this.modernReplies.set(key, waiting);
      res.once("close", () => {
        const left = (this.modernReplies.get(key) ?? []).filter((r) => r !== res);
        if (left.length > 0) this.modernReplies.set(key, left);
        else this.modernReplies.delete(key);
      });
    } else {
      res.writeHead(202).end();
    }
    this.inbound(session, message as JSONRPCMessage);
  }

  private async modernReply(message: JSONRPCMessage): Promise<void> {
    const m = message as Record<string, unknown>;
    const key = JSON.stringify(m.id);
    const res = this.modernReplies.get(key)?.shift();
    if (this.modernReplies.get(key)?.length === 0) this.modernReplies.delete(key);
    if (!res || res.writableEnded) {
      debug(`upstream host: no 2026-07-28 POST waits for the response ${key}`);
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(message));
  }

  private addSession(send: UpstreamSession["send"], close: UpstreamSession["close"]): UpstreamSession {
    const session: UpstreamSession = {
      label: `upstream-${this.sessions.length + 1}`,
      open: true,
      standalone: 0,
      inFlight: [],
      send,
      close,
    };
    this.sessions.push(session);
    this.sessionOpened();
    return session;
  }

  /** A request body as it came over the wire, for the evidence (`onRaw`), before anything parses it. */
  private wire(text: string, via?: string): void {
    if (text.trim() === "") return;
    if (this.rawHandlers.length === 0) this.earlyRaw.push([text, via]);
    else for (const h of this.rawHandlers) h(text, via);
  }

  private inbound(session: UpstreamSession, message: JSONRPCMessage): void {
    const m = message as Record<string, unknown>;
    if (typeof m.method === "string" && isId(m.id)) session.inFlight.push({ id: m.id, method: m.method });
    const line = JSON.stringify(message);
    if (this.lineHandlers.length === 0) this.early.push([line, session.label]);
    else for (const h of this.lineHandlers) h(line, session.label);
  }

  private outbound(line: string, options?: SendOptions): string | undefined {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line);
    } catch {
      debug(`upstream host: cannot send a frame that is not JSON over HTTP: ${line.slice(0, 120)}`);
      return undefined;
    }
    const isResponse = typeof message.method !== "string" && isId(message.id);
    let session: UpstreamSession | undefined;
    let related: JsonRpcId | undefined;
    if (isResponse) {
      session = this.sessions.find((s) => s.inFlight.some((r) => r.id === message.id));
      if (session)
        session.inFlight.splice(
          session.inFlight.findIndex((r) => r.id === message.id),
          1,
        );
    } else {
      // Newest tool call in flight first, then any request in flight, then the newest open session.
      const open = this.sessions.filter((s) => s.open);
      const calls = open.flatMap((s) => s.inFlight.map((r) => ({ s, r })));
      const pick = calls.filter((c) => c.r.method === "tools/call").at(-1) ?? calls.at(-1);
      session = pick?.s ?? open.at(-1);
      related = options?.unrelated ? undefined : pick?.r.id;
    }
    if (!session) {
      debug(`upstream host: no session to send ${line.slice(0, 120)}`);
      return undefined;
    }
    const label = session.label;
    const target = session;
    const ready =
      !isResponse && options?.unrelated && this.transport === "streamable-http"
        ? standaloneStream(target)
        : Promise.resolve();
    ready
      .then(() => target.send(message as JSONRPCMessage, related))
      .catch((error) =>
        debug(`upstream ${label}: send failed: ${error instanceof Error ? error.message : error}`),
      );
    return label;
  }
}

/**
 * Before a request goes on the standalone GET stream: the relay opens that stream on its own after initialize, so
 * give it a moment (STANDALONE_STREAM_WAIT_MS) when it is not open yet; a relay that never opens it loses the request.
 */
async function standaloneStream(session: UpstreamSession): Promise<void> {
  const deadline = performance.now() + STANDALONE_STREAM_WAIT_MS;
  while (session.standalone === 0 && performance.now() < deadline)
    await new Promise((r) => setTimeout(r, STANDALONE_STREAM_POLL_MS));
  if (session.standalone === 0)
    debug(`upstream ${session.label}: no standalone GET stream open; the unrelated request goes nowhere`);
}

/** A POST of 2026-07-28 (no session): by its MCP-Protocol-Version header, its `_meta` or server/discover. */
function isModernPost(req: IncomingMessage, body: unknown): boolean {
  if (req.headers["mcp-protocol-version"] === MRTR_ERA) return true;
  if (!isObject(body)) return false;
  if (body.method === "server/discover") return true;
  const meta = isObject(body.params) ? body.params._meta : undefined;
  return isObject(meta) && meta[META.protocolVersion] === MRTR_ERA;
}
