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
 * A relay may open several MCP sessions (mcp-remote opens a connection test before the session it proxies; a
 * gateway may open one per request it forwards, each numbering its JSON-RPC ids from 1): each session is a
 * connection of its own, handed out by `next()` as its own channel, so the scripted upstream answers each on its
 * own and ids are never matched across sessions. A request or notification the upstream sends on a session's
 * channel on its own (sampling/createMessage during a tool call) goes *related to that session's newest tool call in
 * flight*: on Streamable HTTP it then travels on the tool call's own response stream. Sent `unrelated` (a case's
 * `stream: standalone`) it goes without a related request id, on the standalone GET stream, and is dropped (as the
 * SDK drops it) when the relay never opened one: the host waits a moment for that stream first.
 *
 * 2026-07-28 has no session and no initialize: a POST without Mcp-Session-Id that carries that protocol version
 * (MCP-Protocol-Version header, `_meta`, or server/discover) is served statelessly here, without the SDK: its one
 * request is a connection of its own (a channel whose one response becomes the POST's body, as JSON; a
 * notification gets 202), so two POSTs with the same id are never confused. They share one label: without a
 * session, the relay's JSON-RPC ids all live in one space (a retry that reuses its call's id is seen as such).
 *
 * Frames that belong to no session (a POST without one, or with an unknown one) are reported on the first channel
 * handed out, unlabelled.
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
  /** The session as the scripted upstream sees it: one connection. */
  channel: SessionChannel;
}

/** A LineChannel fed by the host: what arrives before anyone listens is kept until they do. */
class SessionChannel implements LineChannel {
  unrelatedReady?: () => Promise<boolean>;
  private readonly lineHandlers: Array<(line: string, via?: string) => void> = [];
  private readonly rawHandlers: Array<(raw: string, via?: string) => void> = [];
  private readonly closeHandlers: Array<(reason: string) => void> = [];
  private readonly early: Array<[string, string | undefined]> = [];
  private readonly earlyRaw: Array<[string, string | undefined]> = [];
  private closedWith: string | undefined;

  constructor(readonly send: (line: string, options?: SendOptions) => string | undefined) {}

  onLine(h: (line: string, via?: string) => void): void {
    this.lineHandlers.push(h);
    for (const [line, via] of this.early.splice(0)) h(line, via);
  }

  onRaw(h: (raw: string, via?: string) => void): void {
    this.rawHandlers.push(h);
    for (const [raw, via] of this.earlyRaw.splice(0)) h(raw, via);
  }

  onClose(h: (reason: string) => void): void {
    if (this.closedWith !== undefined) h(this.closedWith);
    else this.closeHandlers.push(h);
  }

  line(line: string, via: string | undefined): void {
    if (this.lineHandlers.length === 0) this.early.push([line, via]);
    else for (const h of this.lineHandlers) h(line, via);
  }

  raw(raw: string, via: string | undefined): void {
    if (this.rawHandlers.length === 0) this.earlyRaw.push([raw, via]);
    else for (const h of this.rawHandlers) h(raw, via);
  }

  close(reason: string): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = reason;
    for (const h of this.closeHandlers.splice(0)) h(reason);
  }
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
  /** Sessions not yet handed out by next(), oldest first, and the next() calls waiting for one. */
  private readonly unclaimed: UpstreamSession[] = [];
  private readonly claims: Array<(session: UpstreamSession) => void> = [];
  /** The first channel handed out: frames of no session are reported on it. */
  private first: SessionChannel | undefined;
  private readonly orphans: string[] = [];
  private closed = false;
  /** How many sessions have been opened, for their labels (2026-07-28 POSTs share one: modernLabel). */
  private opened = 0;
  private modernLabel: string | undefined;

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

  /** The channel of the next session (connection) the relay opens, in the order they opened. */
  next(timeoutMs: number): Promise<LineChannel> {
    const ready = this.unclaimed.shift();
    if (ready) return Promise.resolve(this.handOut(ready));
    return new Promise((resolve, reject) => {
      const claim = (session: UpstreamSession) => {
        clearTimeout(timer);
        resolve(this.handOut(session));
      };
      const timer = setTimeout(() => {
        const at = this.claims.indexOf(claim);
        if (at >= 0) this.claims.splice(at, 1);
        reject(
          new Error(
            `the relay did not connect to the harness upstream at ${this.url} within ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      timer.unref();
      this.claims.push(claim);
    });
  }

  private handOut(session: UpstreamSession): LineChannel {
    if (!this.first) {
      this.first = session.channel;
      for (const raw of this.orphans.splice(0)) this.first.raw(raw, undefined);
    }
    return session.channel;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.sessions.map((s) => s.close().catch(() => undefined)));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sessions) s.channel.close("the harness closed its HTTP upstream");
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
      this.wire(text, known?.session);
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
      this.wire(text, known?.session);
      if (!known) return reply(res, 404, "Session not found");
      if (!json) return reply(res, 400, "Parse error: the body is not JSON", -32700);
      return known.transport.handleRequest(req, res, body);
    }
    // A legacy-era upstream serves 2026-07-28 POSTs only for server/discover (a relay probing for the era gets its
    // -32601 in the POST's body); anything else without a session gets the legacy answer below, HTTP 400, as a legacy
    // server gives it (it could never carry that request's server-to-client requests).
    if (json && (this.modernOnly || (isModernPost(req, body) && isDiscover(body))))
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
    // A request tied to no request of the relay's goes on its standalone GET stream, if it holds one open.
    session.channel.unrelatedReady = () => standaloneStream(session).then(() => session.standalone > 0);
    transport.onmessage = (message) => this.inbound(session, message);
    transport.onerror = (error) => debug(`upstream ${session.label}: ${error.message}`);
    transport.onclose = () => {
      if (transport.sessionId) this.streamable.delete(transport.sessionId);
      this.ended(session, "the relay's upstream session closed");
    };
    this.wire(text, session);
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
      this.sse.delete(transport.sessionId);
      this.ended(session, "the relay's upstream SSE stream closed");
    };
    await transport.start();
  }

  /**
   * 2026-07-28: one POST, one message, no session. A request waits for the upstream's response, which becomes the
   * POST's JSON body; a notification is accepted at once (202).
   */
  private modernPost(res: ServerResponse, text: string, message: Record<string, unknown>): void {
    // One POST, one connection: its one response is the POST's body, and then the connection is over.
    this.modernLabel ??= `upstream-${++this.opened}`;
    const session = this.addSession(
      async (answer) => {
        this.ended(session, "the 2026-07-28 POST was answered");
        if (res.writableEnded) {
          debug(`upstream ${session.label}: the 2026-07-28 POST was gone before its response`);
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(answer));
      },
      async () => {
        session.open = false;
        reply(res, 503, "the harness closed its HTTP upstream");
      },
      this.modernLabel,
    );
    this.wire(text, session);
    if (typeof message.method !== "string") {
      session.open = false;
      reply(res, 400, "Invalid Request: not a request", -32600);
      return;
    }
    if (!isId(message.id)) res.writeHead(202).end();
    this.inbound(session, message as JSONRPCMessage);
    // A notification is over once handed on; a request once answered (or its POST gone).
    if (!isId(message.id)) this.ended(session, "the 2026-07-28 notification was handed on");
    else res.once("close", () => this.ended(session, "the 2026-07-28 POST closed"));
  }

  /** A connection is over (a 2026-07-28 POST answered, a session closed): its channel closes, the host forgets it. */
  private ended(session: UpstreamSession, why: string): void {
    if (!session.open) return;
    session.open = false;
    const at = this.sessions.indexOf(session);
    if (at >= 0) this.sessions.splice(at, 1);
    queueMicrotask(() => session.channel.close(why));
  }

  private addSession(
    send: UpstreamSession["send"],
    close: UpstreamSession["close"],
    label = `upstream-${++this.opened}`,
  ): UpstreamSession {
    const session: UpstreamSession = {
      label,
      open: true,
      standalone: 0,
      inFlight: [],
      send,
      close,
      channel: new SessionChannel((line, options) => this.outbound(session, line, options)),
    };
    this.sessions.push(session);
    const claim = this.claims.shift();
    if (claim) claim(session);
    else this.unclaimed.push(session);
    return session;
  }

  /** A request body as it came over the wire, for the evidence (`onRaw`), before anything parses it. */
  private wire(text: string, session?: UpstreamSession): void {
    if (text.trim() === "") return;
    if (session) session.channel.raw(text, session.label);
    else if (this.first) this.first.raw(text, undefined);
    else this.orphans.push(text);
  }

  private inbound(session: UpstreamSession, message: JSONRPCMessage): void {
    const m = message as Record<string, unknown>;
    if (typeof m.method === "string" && isId(m.id)) session.inFlight.push({ id: m.id, method: m.method });
    session.channel.line(JSON.stringify(message), session.label);
  }

  /**
   * A frame the scripted upstream sends on one session: a response goes back to the request of that id on this
   * session; anything else goes related to the session's newest tool call in flight (else its newest request).
   */
  private outbound(session: UpstreamSession, line: string, options?: SendOptions): string | undefined {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line);
    } catch {
      debug(`upstream host: cannot send a frame that is not JSON over HTTP: ${line.slice(0, 120)}`);
      return undefined;
    }
    const isResponse = typeof message.method !== "string" && isId(message.id);
    let related: JsonRpcId | undefined;
    if (isResponse) {
      const at = session.inFlight.findIndex((r) => r.id === message.id);
      if (at >= 0) session.inFlight.splice(at, 1);
    } else {
      const pick =
        session.inFlight.filter((r) => r.method === "tools/call").at(-1) ?? session.inFlight.at(-1);
      related = options?.unrelated ? undefined : pick?.id;
    }
    const label = session.label;
    const ready =
      !isResponse && options?.unrelated && this.transport === "streamable-http"
        ? standaloneStream(session)
        : Promise.resolve();
    ready
      .then(() => session.send(message as JSONRPCMessage, related))
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

const isDiscover = (body: unknown) => isObject(body) && body.method === "server/discover";

/** A POST of 2026-07-28 (no session): by its MCP-Protocol-Version header, its `_meta` or server/discover. */
function isModernPost(req: IncomingMessage, body: unknown): boolean {
  if (req.headers["mcp-protocol-version"] === MRTR_ERA) return true;
  if (!isObject(body)) return false;
  if (body.method === "server/discover") return true;
  const meta = isObject(body.params) ? body.params._meta : undefined;
  return isObject(meta) && meta[META.protocolVersion] === MRTR_ERA;
}
