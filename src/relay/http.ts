import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { text as readText } from "node:stream/consumers";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type {
  FetchLike,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isObject, META } from "../protocol/wire.ts";
import { isModernOpener } from "./mrtr.ts";

/**
 * The reference relay over Streamable HTTP (`relay --listen PORT`, `relay --upstream-url URL`), kept apart from the
 * relay's logic: both are SDK `Transport`s that relay.ts and mrtr.ts use as they use the stdio ones.
 *
 * Downstream (`HttpDownstreamTransport`, the MCP endpoint at /mcp on 127.0.0.1): a legacy client (initialize, then
 * Mcp-Session-Id) is served by the SDK's stateful StreamableHTTPServerTransport, one session. A 2026-07-28 client
 * has no session and no initialize: a POST without Mcp-Session-Id that opens 2026-07-28 (its `_meta` protocol
 * version, or server/discover) is served statelessly here: its one request goes to the relay and the relay's response
 * to that id is the POST's JSON body; a notification gets 202.
 *
 * Upstream (`httpUpstreamTransport`): the SDK's StreamableHTTPClientTransport. Legacy eras: initialize, session,
 * and the standalone GET stream the SDK opens after initialize (where a server sends requests tied to no call of
 * the client). 2026-07-28 requests carry the headers that era mirrors from the body (MCP-Protocol-Version from
 * `_meta`, Mcp-Method, Mcp-Name), added by the transport's fetch.
 */

export const RELAY_MCP_PATH = "/mcp";

function replyError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
}

export class HttpDownstreamTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly server: Server;
  private readonly legacy: StreamableHTTPServerTransport;
  /** 2026-07-28 POSTs waiting for the relay's response, by JSON-RPC id (JSON text). */
  private readonly waiting = new Map<string, ServerResponse[]>();

  constructor(private readonly port: number) {
    this.legacy = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    this.server = createServer((req, res) => {
      this.route(req, res).catch((error) => {
        process.stderr.write(`relay: downstream HTTP: ${error instanceof Error ? error.message : error}\n`);
        replyError(res, 500, -32603, "relay failure");
      });
    });
  }

  async start(): Promise<void> {
    this.legacy.onmessage = (message, extra) => this.onmessage?.(message, extra);
    this.legacy.onerror = (error) => this.onerror?.(error);
    this.legacy.onclose = () => this.onclose?.();
    await this.legacy.start();
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.port, "127.0.0.1", () => resolve());
    });
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Record<string, unknown>;
    const key = JSON.stringify(m.id);
    const res = m.method === undefined ? this.waiting.get(key)?.shift() : undefined;
    if (res) {
      if (this.waiting.get(key)?.length === 0) this.waiting.delete(key);
      if (res.writableEnded) return;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(message));
      return;
    }
    await this.legacy.send(message, options);
  }

  async close(): Promise<void> {
    for (const list of this.waiting.values())
      for (const res of list) replyError(res, 503, -32603, "the relay is shutting down");
    this.waiting.clear();
    await this.legacy.close().catch(() => undefined);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (path !== RELAY_MCP_PATH) {
      res.writeHead(404).end();
      return;
    }
    if (req.method !== "POST" || req.headers["mcp-session-id"] !== undefined)
      return this.legacy.handleRequest(req, res);
    const text = await readText(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return replyError(res, 400, -32700, "Parse error: the body is not JSON");
    }
    if (isObject(body) && isModernOpener(body as JSONRPCMessage)) return this.modern(res, body);
    return this.legacy.handleRequest(req, res, body);
  }

  /** One 2026-07-28 POST: one request (answered in this POST's body) or one notification (202). */
  private modern(res: ServerResponse, message: Record<string, unknown>): void {
    if (typeof message.id === "string" || typeof message.id === "number") {
      const key = JSON.stringify(message.id);
      this.waiting.set(key, [...(this.waiting.get(key) ?? []), res]);
      res.once("close", () => {
        const left = (this.waiting.get(key) ?? []).filter((r) => r !== res);
        if (left.length > 0) this.waiting.set(key, left);
        else this.waiting.delete(key);
      });
    } else {
      res.writeHead(202).end();
    }
    this.onmessage?.(message as JSONRPCMessage);
  }
}

/** The request-metadata headers of 2026-07-28 on each POST whose body speaks that version. */
function modernHeaders(base: FetchLike = fetch): FetchLike {
  return (url, init) => {
    if (typeof init?.body !== "string") return base(url, init);
    let message: Record<string, any>;
    try {
      message = JSON.parse(init.body);
    } catch {
      return base(url, init);
    }
    const version = message?.params?._meta?.[META.protocolVersion];
    if (typeof version !== "string" || typeof message.method !== "string") return base(url, init);
    const headers = new Headers(init.headers);
    headers.set("mcp-protocol-version", version);
    headers.set("mcp-method", message.method);
    const name = message.params?.name ?? message.params?.uri;
    if (typeof name === "string")
      headers.set(
        "mcp-name",
        /^[\x20-\x7e]*$/.test(name) ? name : `=?base64?${Buffer.from(name).toString("base64")}?=`,
      );
    return base(url, { ...init, headers });
  };
}

/** The upstream MCP server at a Streamable HTTP URL. */
export function httpUpstreamTransport(url: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), { fetch: modernHeaders() });
}
