import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { debug } from "./debug.ts";
import type { HttpTransport } from "./http-upstream.ts";

/**
 * What came over HTTP before the SDK parsed it. The SDK's client transports parse every SSE event and JSON body
 * with their JSON-RPC envelope schema and drop (or report to `onerror`) whatever fails it: non-JSON, JSON that is
 * not JSON-RPC, a member the envelope does not know. The harness hands them a `fetch` that tees each response body
 * it gets and reports every frame of it, as text, before the SDK sees it.
 */

export interface SseEvent {
  /** The event type ("" when the event named none, which means "message"). */
  event: string;
  data: string;
}

/**
 * An incremental parser of a text/event-stream (the WHATWG rules: lines end in CRLF, LF or CR; `data:` lines are
 * joined with "\n"; one leading space after the colon is dropped; a blank line dispatches an event whose data is
 * not empty; `:` starts a comment).
 * `end()` reports an event the stream ended in the middle of (a browser would drop it; evidence keeps it).
 * Each chunk is scanned once, so a 10 MB event costs linear time.
 */
export function sseParser(onEvent: (event: SseEvent) => void): { feed(text: string): void; end(): void } {
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let pendingCr = false;
  const dispatch = () => {
    const text = data.join("\n");
    if (text !== "") onEvent({ event, data: text });
    event = "";
    data = [];
  };
  const line = (text: string) => {
    if (text === "") return dispatch();
    if (text.startsWith(":")) return;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
  };
  return {
    feed(text) {
      let start = 0;
      // A CR that ended the previous chunk already ended its line: an LF right after it is part of that ending.
      if (pendingCr && text.startsWith("\n")) start = 1;
      pendingCr = false;
      for (let i = start; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        line(buffer + text.slice(start, i));
        buffer = "";
        if (c === 13) {
          if (i + 1 === text.length) pendingCr = true;
          else if (text.charCodeAt(i + 1) === 10) i++;
        }
        start = i + 1;
      }
      buffer += text.slice(start);
    },
    end() {
      if (buffer !== "") line(buffer);
      buffer = "";
      dispatch();
    },
  };
}

/** The media type of a Content-Type header, lower case, without parameters. */
const mediaType = (header: string | null) => (header ?? "").split(";")[0]!.trim().toLowerCase();

export interface WireTap {
  /** One frame as it came over the wire: an SSE event's data, or a whole JSON response body. */
  frame(raw: string): void;
  /** The legacy SSE event stream (GET) ended or broke; `how` says which. */
  eventStreamEnded?(how: string): void;
}

async function readBody(
  body: ReadableStream<Uint8Array>,
  events: boolean,
  tap: WireTap,
  onEnd?: (how: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  const parser = events ? sseParser((e) => e.event !== "endpoint" && tap.frame(e.data)) : undefined;
  let whole = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const chunk = decoder.decode(value, { stream: !done });
      if (parser) parser.feed(chunk);
      else whole += chunk;
      if (done) break;
    }
  } catch (error) {
    parser?.end();
    onEnd?.(`broke (${error instanceof Error ? error.message : String(error)})`);
    return;
  }
  parser?.end();
  if (!parser && whole.trim() !== "") tap.frame(whole);
  onEnd?.("ended");
}

/**
 * A `fetch` for the SDK's client transports that reports every frame the relay sends back: the events of each
 * text/event-stream response (any request), and on Streamable HTTP the body of a POST's other 2xx responses (a
 * JSON-RPC response, or whatever else the relay put there). A legacy SSE POST's reply ("Accepted") carries no
 * frame, nor does an HTTP error (the refusal is the channel's reason), nor the legacy `endpoint` event.
 */
export function tapFetch(transport: HttpTransport, tap: WireTap, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    const method = (init?.method ?? "GET").toUpperCase();
    if (!response.ok || response.status === 202 || response.status === 204 || response.body === null)
      return response;
    const events = mediaType(response.headers.get("content-type")) === "text/event-stream";
    if (!events && !(transport === "streamable-http" && method === "POST")) return response;
    const [mine, theirs] = response.body.tee();
    const copy = new Response(theirs, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    Object.defineProperty(copy, "url", { value: response.url });
    Object.defineProperty(copy, "redirected", { value: response.redirected });
    const onEnd = transport === "sse" && method === "GET" && events ? tap.eventStreamEnded : undefined;
    readBody(mine, events, tap, onEnd).catch((error) => debug(`wire tap: ${String(error)}`));
    return copy;
  };
}
