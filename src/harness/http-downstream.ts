import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { type Era, isModernEra } from "../protocol/eras.ts";
import { debug } from "./debug.ts";
import type { HttpTransport } from "./http-upstream.ts";
import type { LineChannel } from "./jsonrpc-peer.ts";
import { TERMINATE_SESSION_MS, within } from "./waits.ts";
import { tapFetch } from "./wire-tap.ts";

/** The reason a legacy SSE session ends with when the relay ends (or breaks) its event stream. */
export const SSE_STREAM_CLOSED = "the relay closed the SSE stream";

/**
 * 2026-07-28 Streamable HTTP mirrors body fields into headers on every POST: `Mcp-Method` (the method) and, for
 * tools/call, resources/read and prompts/get, `Mcp-Name` (params.name or params.uri; Base64 sentinel when not plain
 * ASCII). The MCP-Protocol-Version header the SDK transport sets itself once told the version.
 */
export function modernHeadersFetch(base: FetchLike = fetch): FetchLike {
  return (url, init) => {
    if ((init?.method ?? "GET").toUpperCase() !== "POST" || typeof init?.body !== "string")
      return base(url, init);
    let message: Record<string, any>;
    try {
      message = JSON.parse(init.body);
    } catch {
      return base(url, init);
    }
    const headers = new Headers(init.headers);
    if (typeof message?.method === "string") headers.set("mcp-method", message.method);
    const name = message?.params?.name ?? message?.params?.uri;
    if (typeof name === "string")
      headers.set(
        "mcp-name",
        /^[\x20-\x7e]*$/.test(name) ? name : `=?base64?${Buffer.from(name).toString("base64")}?=`,
      );
    return base(url, { ...init, headers });
  };
}

/**
 * A client session on the relay's downstream side (Streamable HTTP or legacy SSE, through the SDK's client
 * transports) as a LineChannel: one JSON text per message each way.
 *
 * Order is kept where it matters: a frame sent after a notification waits until the relay has accepted the
 * notification (so `notifications/initialized` lands before `tools/list`); requests and responses do not wait
 * for each other (an answer to a sampling request must not queue behind the tool call that caused it).
 * A request the relay refuses at the HTTP level with a JSON-RPC error in the body (an HTTP 4xx: SDKs map -32602 and
 * others to 400) is answered by that error, as if it had come with a 2xx: the frame is recorded with its status,
 * and the session goes on. A refusal with anything else in the body closes the channel with the reason, as a dead
 * stdio would.
 * The negotiated protocol version is handed to the transport (the MCP-Protocol-Version header) as soon as the
 * initialize result passes by.
 *
 * Frames from the relay are reported twice, on purpose, by two hooks: `onRaw` gets each one as it came over the
 * wire, before the SDK parses it (`tapFetch`: SSE event data and JSON bodies, garbage included), and `onLine` gets
 * what the SDK delivered. `recorded` records from `onRaw`, so each frame is in the evidence once, as sent.
 * On legacy SSE the session lives on its one event stream: when the relay ends it, the channel closes with
 * SSE_STREAM_CLOSED (the SDK would only try to reconnect, and the case would wait out its deadline).
 * `era` 2026-07-28 (Streamable HTTP only): no session and no initialize; every POST carries the MCP-Protocol-Version
 * header and the mirrored Mcp-Method / Mcp-Name headers from the start (the SDK transport asks for no session id).
 */
// Long: one transport adapter: the SDK client transport, its frame recording and its close live in one closure.
export async function httpDownstreamChannel(
  transport: HttpTransport,
  url: string,
  timeoutMs: number,
  headers?: Record<string, string>,
  era?: Era,
  /** Never open the standalone GET stream (Streamable HTTP): the GET is answered 405 here, as the relay is never asked. */
  noStandaloneStream = false,
): Promise<{ channel: LineChannel; close(): Promise<void> }> {
  const modern = era !== undefined && isModernEra(era);
  const target = new URL(url);
  const lineHandlers: Array<(line: string) => void> = [];
  const rawHandlers: Array<(raw: string, via?: string, status?: number) => void> = [];
  const closeHandlers: Array<(reason: string) => void> = [];
  const early: string[] = [];
  const earlyRaw: Array<[string, number | undefined]> = [];
  const initializeIds = new Set<string>();
  let closedReason: string | undefined;
  let started = false;
  let streamEnded: string | undefined;
  const closeWith = (reason: string) => {
    if (closedReason !== undefined) return;
    closedReason = reason;
    for (const h of closeHandlers) h(reason);
  };
  const emitRaw = (raw: string, status?: number) => {
    if (rawHandlers.length === 0) earlyRaw.push([raw, status]);
    else for (const h of rawHandlers) h(raw, undefined, status);
  };
  const emitLine = (line: string) => {
    if (lineHandlers.length === 0) early.push(line);
    else for (const h of lineHandlers) h(line);
  };
  const tapped = tapFetch(
    transport,
    {
      frame: (raw) => emitRaw(raw),
      eventStreamEnded: (how) => {
        debug(`downstream ${url}: the SSE event stream ${how}`);
        streamEnded = `${SSE_STREAM_CLOSED} (the GET ${target.pathname} response ${how})`;
        // Before start() resolved, the failed start says why; after, the session is over.
        if (started) closeWith(streamEnded);
      },
    },
    modern ? modernHeadersFetch() : undefined,
  );
  // The status of the relay's latest HTTP refusal: the SDK's error text leaves it out, the reason keeps it.
  let refusedWith: number | undefined;
  /** The latest refusal status per method (httpRefusal). */
  const refusals = new Map<string, number>();
  /** Requests (JSON text of their id) a 4xx answered with a JSON-RPC error: their failed POST ends nothing. */
  const answeredByRefusal = new Set<string>();
  const fetch: typeof tapped = async (input, init) => {
    // A client that never listens: the SDK takes 405 to mean "no standalone stream here" and goes on without one.
    if (noStandaloneStream && (init?.method ?? "GET").toUpperCase() === "GET")
      return new Response(null, { status: 405 });
    const response = await tapped(input, init);
    if (!response.ok) {
      refusedWith = response.status;
      const sent = postedMessage(init);
      if (typeof sent?.method === "string") refusals.set(sent.method, response.status);
      if (sent && response.status >= 400 && response.status < 500) {
        const text = await response
          .clone()
          .text()
          .catch(() => "");
        const answer = refusalAnswer(text, sent);
        if (answer) {
          answeredByRefusal.add(JSON.stringify(sent.id));
          emitRaw(text, response.status);
          emitLine(JSON.stringify(answer));
        }
      }
    }
    return response;
  };
  // The profile's headers (an auth token, an Origin) go on every request, the SSE stream's GET included.
  const options = { fetch, ...(headers ? { requestInit: { headers } } : {}) };
  const client =
    transport === "sse"
      ? new SSEClientTransport(target, options)
      : new StreamableHTTPClientTransport(target, options);

  if (modern && era) client.setProtocolVersion?.(era);
  client.onmessage = (message: JSONRPCMessage) => {
    const m = message as Record<string, any>;
    if (m.method === undefined && initializeIds.delete(String(m.id))) {
      const version = m.result?.protocolVersion;
      if (typeof version === "string") client.setProtocolVersion?.(version);
    }
    emitLine(JSON.stringify(message));
  };
  client.onerror = (error) => debug(`downstream ${url}: ${error.message}`);
  client.onclose = () => closeWith("the downstream HTTP session closed");

  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.start(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(new Error(`the relay's ${transport} endpoint ${url} did not open within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  started = true;
  if (streamEnded !== undefined) closeWith(streamEnded);

  let afterNotification: Promise<unknown> = Promise.resolve();
  const channel: LineChannel = {
    confirmsWrites: true,
    send: (line, options) => {
      if (closedReason !== undefined) return;
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line);
      } catch {
        debug(`downstream ${url}: cannot send a frame that is not JSON over HTTP: ${line.slice(0, 120)}`);
        return;
      }
      const isRequest = typeof message.method === "string" && message.id !== undefined;
      if (isRequest && message.method === "initialize") initializeIds.add(String(message.id));
      const sent = afterNotification.then(() => client.send(message as JSONRPCMessage));
      if (options?.written) sent.then(options.written, options.written);
      sent.catch((error: Error) => {
        debug(`downstream ${url}: POST failed: ${error.message}`);
        const status = refusedWith !== undefined ? ` (HTTP ${refusedWith})` : "";
        // Refused with a JSON-RPC error in the body: that error was this request's answer.
        if (isRequest && answeredByRefusal.delete(JSON.stringify(message.id))) return;
        if (isRequest)
          closeWith(`the relay refused the ${message.method} request${status}: ${error.message}`);
      });
      if (typeof message.method === "string" && message.id === undefined)
        afterNotification = sent.catch(() => undefined);
    },
    onLine: (h) => {
      lineHandlers.push(h);
      for (const line of early.splice(0)) h(line);
    },
    onRaw: (h) => {
      rawHandlers.push(h);
      for (const [raw, status] of earlyRaw.splice(0)) h(raw, undefined, status);
    },
    httpRefusal: (method) => refusals.get(method),
    onClose: (h) => {
      if (closedReason !== undefined) h(closedReason);
      else closeHandlers.push(h);
    },
  };
  return {
    channel,
    close: async () => {
      closedReason ??= "the harness closed the downstream session";
      if (client instanceof StreamableHTTPClientTransport) {
        // DELETE the session (a stateful relay frees what it holds for it), but never wait long on a stuck relay.
        await within(
          client.terminateSession().catch(() => undefined),
          TERMINATE_SESSION_MS,
        );
      }
      await client.close().catch(() => undefined);
    },
  };
}

/** The one JSON-RPC request or notification a POST carried, if its body was one. */
function postedMessage(init: RequestInit | undefined): Record<string, unknown> | undefined {
  if ((init?.method ?? "GET").toUpperCase() !== "POST" || typeof init?.body !== "string") return undefined;
  try {
    const message: unknown = JSON.parse(init.body);
    return typeof message === "object" && message !== null && !Array.isArray(message)
      ? (message as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The answer an HTTP 4xx body gives the request its POST carried: a JSON-RPC error response for that request's id,
 * or for id null (the relay could not tie it to a request: the HTTP exchange does). Handed on with the request's id
 * so that the request ends with it; the evidence keeps the body as it came. Anything else (no request, no error,
 * another id, not JSON) is no answer.
 */
export function refusalAnswer(
  body: string,
  sent: Record<string, unknown>,
): Record<string, unknown> | undefined {
  if (sent.id === undefined || typeof sent.method !== "string") return undefined;
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const m = message as Record<string, unknown>;
  const error = m.error;
  if (m.jsonrpc !== "2.0" || typeof error !== "object" || error === null || "result" in m) return undefined;
  if (m.id !== null && m.id !== sent.id) return undefined;
  return { ...m, id: sent.id };
}
