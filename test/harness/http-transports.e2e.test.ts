import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { text as readText } from "node:stream/consumers";
import { afterEach, describe, expect, it } from "vitest";
import { FrameRecorder } from "../../src/harness/frames.ts";
import { httpDownstreamChannel, SSE_STREAM_CLOSED } from "../../src/harness/http-downstream.ts";
import { type HttpTransport, HttpUpstreamHost } from "../../src/harness/http-upstream.ts";
import { JsonRpcPeer } from "../../src/harness/jsonrpc-peer.ts";
import { recorded } from "../../src/harness/lines.ts";
import { DETACHED_NO_STREAM, PROBE_TOOL, ScriptedUpstream } from "../../src/harness/upstream.ts";
import type { UpstreamOutcome } from "../../src/model/evidence.ts";

/**
 * The harness's HTTP ends talking straight to each other (no relay in between): the downstream client channel
 * against the upstream host. What a relay in the middle would see is exactly this traffic.
 */

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const PARAMS = {
  messages: [
    { role: "user", content: { type: "text", text: "hi", _meta: { k: 1 } }, extra: [1, { x: null }] },
  ],
  maxTokens: 8,
  _meta: { "example.com/trace": "t-1" },
  unknownField: { nested: true },
};
const RESULT = { role: "assistant", content: { type: "text", text: "yo" }, model: "m", vendor: { x: 1 } };

async function pair(transport: HttpTransport) {
  const host = await HttpUpstreamHost.start(transport);
  cleanup.push(() => host.close());
  const upstreamChannel = host.next(5000);
  const client = await httpDownstreamChannel(transport, host.url, 5000);
  cleanup.push(() => client.close());
  return { host, client: new JsonRpcPeer(client.channel, "c-"), upstreamChannel };
}

/** A server that answers initialize and, for tools/call, asks the client to sample and returns the answer. */
function serve(server: JsonRpcPeer, params: unknown = PARAMS) {
  server.onRequest(async (method) => {
    if (method === "initialize")
      return {
        result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "s", version: "1" } },
      };
    if (method !== "tools/call") return { error: { code: -32601, message: method } };
    const answer = await server.request("sampling/createMessage", params, 3000);
    return { result: { content: [{ type: "text", text: JSON.stringify(answer) }] } };
  });
}

const INIT = {
  protocolVersion: "2025-11-25",
  capabilities: { sampling: {} },
  clientInfo: { name: "c", version: "1" },
};

for (const transport of ["streamable-http", "sse"] as const) {
  describe(`${transport}: harness upstream host ⇄ harness downstream channel`, () => {
    it("carries a sampling request made during a tool call, and its answer, unchanged", async () => {
      const { client, upstreamChannel } = await pair(transport);
      const asked: unknown[] = [];
      client.onRequest(async (method, params) => {
        asked.push({ method, params });
        return { result: RESULT };
      });
      const initialize = client.request("initialize", INIT, 5000);
      const server = new JsonRpcPeer(await upstreamChannel, "s-");
      serve(server);
      expect((await initialize).result).toMatchObject({ protocolVersion: "2025-11-25" });
      // No notifications/initialized: on Streamable HTTP no standalone GET stream is open, so the sampling
      // request arrives only because it travels on the tool call's own response stream.
      const call = await client.request("tools/call", { name: "probe", arguments: {} }, 5000);
      expect(asked).toEqual([{ method: "sampling/createMessage", params: PARAMS }]);
      const answer = JSON.parse((call.result as any).content[0].text);
      expect(answer).toEqual({ jsonrpc: "2.0", id: "s-1", result: RESULT });
    });

    it("hands each session of one relay out as a connection of its own (same ids, own answers)", async () => {
      const host = await HttpUpstreamHost.start(transport);
      cleanup.push(() => host.close());
      const upstreamChannels = [host.next(5000), host.next(5000)];
      const peers = [];
      for (const name of ["one", "two"]) {
        const c = await httpDownstreamChannel(transport, host.url, 5000);
        cleanup.push(() => c.close());
        const peer = new JsonRpcPeer(c.channel, "same-");
        peer.onRequest(async () => ({ result: { ...RESULT, model: name } }));
        peers.push(peer);
      }
      const inits = peers.map((p) => p.request("initialize", INIT, 5000));
      // One scripted server per connection, as the harness upstream attaches one peer per connection.
      for (const channel of upstreamChannels) serve(new JsonRpcPeer(await channel, "s-"));
      await Promise.all(inits);
      for (const [i, peer] of peers.entries()) {
        const call = await peer.request("tools/call", { name: "probe" }, 5000);
        const answer = JSON.parse((call.result as any).content[0].text);
        expect(answer.result.model).toBe(i === 0 ? "one" : "two");
      }
    });
  });
}

/** The from-relay frames a recorder holds at one end, each as its message or raw text. */
function fromRelay(recorder: FrameRecorder, end: "upstream" | "downstream") {
  return recorder
    .since(0)
    .filter((f) => f.end === end && f.dir === "from-relay")
    .map((f) => ({ session: f.session, frame: f.message ?? f.raw }));
}

/** A throwaway HTTP server on 127.0.0.1 playing a relay's downstream side by hand. */
async function handServer(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const server = createServer(async (req, res) => handler(req, res, await readText(req)));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  cleanup.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("frames as they came over the wire, each recorded once", () => {
  for (const transport of ["streamable-http", "sse"] as const) {
    it(`${transport}: every frame of a sampling exchange is in the evidence once, at both ends`, async () => {
      const recorder = new FrameRecorder();
      const host = await HttpUpstreamHost.start(transport);
      cleanup.push(() => host.close());
      const upstreamChannel = host.next(5000);
      const down = await httpDownstreamChannel(transport, host.url, 5000);
      cleanup.push(() => down.close());
      const client = new JsonRpcPeer(recorded(down.channel, recorder, "downstream"), "c-");
      client.onRequest(async () => ({ result: RESULT }));
      const initialize = client.request("initialize", INIT, 5000);
      serve(new JsonRpcPeer(recorded(await upstreamChannel, recorder, "upstream"), "s-"));
      await initialize;
      await client.request("tools/call", { name: "probe", arguments: {} }, 5000);
      const ids = (end: "upstream" | "downstream") =>
        fromRelay(recorder, end).map(({ frame }) => (frame as { id: string }).id);
      // The relay side of each end, here the other harness end: what one end sends, the other records once.
      expect(ids("upstream")).toEqual(["c-1", "c-2", "s-1"]);
      expect(ids("downstream")).toEqual(["c-1", "s-1", "c-2"]);
      expect(fromRelay(recorder, "downstream")[1]!.frame).toEqual({
        jsonrpc: "2.0",
        id: "s-1",
        method: "sampling/createMessage",
        params: PARAMS,
      });
    });
  }

  it("streamable-http downstream: SSE data and JSON bodies the SDK drops are in the evidence as sent", async () => {
    const url = await handServer((req, res, body) => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      const m = JSON.parse(body);
      if (m.method === "initialize") {
        res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "s" });
        res.write("data: <html>502 Bad Gateway</html>\n\n");
        res.write('data: {"jsonrpc":"1.0","not":"json-rpc"}\n\n');
        const result = {
          protocolVersion: "2025-11-25",
          capabilities: {},
          serverInfo: { name: "h", version: "0" },
        };
        res.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: m.id, result })}\n\n`);
        return;
      }
      // A JSON body with a member JSON-RPC does not have: the SDK's strict envelope drops the whole frame.
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: {}, extra: "dropped by the SDK" }));
    });
    const recorder = new FrameRecorder();
    const down = await httpDownstreamChannel("streamable-http", `${url}/mcp`, 5000);
    cleanup.push(() => down.close());
    const client = new JsonRpcPeer(recorded(down.channel, recorder, "downstream"), "c-");
    expect((await client.request("initialize", INIT, 5000)).result).toMatchObject({
      protocolVersion: "2025-11-25",
    });
    // The SDK refuses the body (the channel closes with its complaint); the evidence keeps what was sent.
    await expect(client.request("tools/list", {}, 1000)).rejects.toThrow(/tools\/list/);
    expect(fromRelay(recorder, "downstream").map((f) => f.frame)).toEqual([
      "<html>502 Bad Gateway</html>",
      { jsonrpc: "1.0", not: "json-rpc" },
      expect.objectContaining({ id: "c-1", result: expect.anything() }),
      { jsonrpc: "2.0", id: "c-2", result: {}, extra: "dropped by the SDK" },
    ]);
  });

  it("streamable-http downstream: an HTTP 4xx carrying a JSON-RPC error answers its request, and the session goes on", async () => {
    const url = await handServer((req, res, body) => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      const m = JSON.parse(body);
      const json = (status: number, message: unknown) => {
        res.writeHead(status, { "content-type": "application/json", "mcp-session-id": "s" });
        res.end(JSON.stringify(message));
      };
      if (m.method === "initialize")
        return json(200, {
          jsonrpc: "2.0",
          id: m.id,
          result: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            serverInfo: { name: "h", version: "0" },
          },
        });
      if (m.id === undefined) return void res.writeHead(202).end();
      // As SDKs do on Streamable HTTP: -32602 with HTTP 400 (its id), a session error with id null, and plain text.
      if (m.method === "tools/call")
        return json(400, {
          jsonrpc: "2.0",
          id: m.id,
          error: { code: -32602, message: "bad tool arguments" },
        });
      if (m.method === "prompts/list")
        return json(400, { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Bad Request" } });
      res.writeHead(400, { "content-type": "text/plain" }).end("nope");
    });
    const recorder = new FrameRecorder();
    const down = await httpDownstreamChannel("streamable-http", `${url}/mcp`, 5000);
    cleanup.push(() => down.close());
    const client = new JsonRpcPeer(recorded(down.channel, recorder, "downstream"), "c-");
    await client.request("initialize", INIT, 5000);
    client.notify("notifications/initialized");
    const call = await client.request("tools/call", { name: "probe" }, 2000);
    expect(call).toEqual({
      jsonrpc: "2.0",
      id: "c-2",
      error: { code: -32602, message: "bad tool arguments" },
    });
    const prompts = await client.request("prompts/list", {}, 2000);
    expect(prompts).toMatchObject({ id: "c-3", error: { code: -32000 } });
    expect(client.closed).toBeUndefined();
    expect(down.channel.httpRefusal?.("tools/call")).toBe(400);
    // The evidence keeps each body as it came, with its status (the id null stays null there).
    const refused = recorder.since(0).filter((f) => f.httpStatus !== undefined);
    expect(refused.map((f) => [f.httpStatus, (f.message as { id: unknown }).id])).toEqual([
      [400, "c-2"],
      [400, null],
    ]);
    // A 4xx with no JSON-RPC error in it is no answer: the session ends with the status in the reason.
    await expect(client.request("resources/list", {}, 2000)).rejects.toThrow(/HTTP 400/);
    expect(client.closed).toMatch(/refused the resources\/list request \(HTTP 400\)/);
  });

  it("sse downstream: the relay ending its event stream closes the session with that reason", async () => {
    let stream: ServerResponse | undefined;
    const url = await handServer((req, res) => {
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("event: endpoint\ndata: /messages\n\n");
        stream = res;
        return;
      }
      res.writeHead(202).end("Accepted");
      // The request arrived: end the event stream its answer would travel on.
      setTimeout(() => stream?.end(), 20);
    });
    const down = await httpDownstreamChannel("sse", `${url}/sse`, 5000);
    cleanup.push(() => down.close());
    const client = new JsonRpcPeer(down.channel, "c-");
    const t0 = performance.now();
    const closed = new Promise<string>((r) => client.onClose(r));
    const call = client.request("initialize", INIT, 5000);
    await expect(call).rejects.toThrow(/the relay closed the SSE stream \(the GET \/sse response ended\)/);
    expect(await closed).toMatch(new RegExp(`^${SSE_STREAM_CLOSED}`));
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe("the HTTP upstream host records every request body before the SDK parses it", () => {
  const INIT_REQUEST = { jsonrpc: "2.0", id: 1, method: "initialize", params: INIT };
  const GARBAGE = ["this is not json <at all>", '{"jsonrpc":"2.0","id":2,"method":"x","unknown":1}'];

  /** POSTs a body as a relay would, with the headers the SDK's server transports want. */
  const post = (url: string, body: string, session?: string) =>
    fetch(url, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(session ? { "mcp-session-id": session } : {}),
      },
    });

  it("streamable-http: garbage on a session, and on no session, is in the evidence as sent", async () => {
    const recorder = new FrameRecorder();
    const host = await HttpUpstreamHost.start("streamable-http");
    cleanup.push(() => host.close());
    const channel = host.next(5000);
    const init = await post(host.url, JSON.stringify(INIT_REQUEST));
    const session = init.headers.get("mcp-session-id")!;
    serve(new JsonRpcPeer(recorded(await channel, recorder, "upstream"), "s-"));
    await init.text();
    const statuses = [];
    for (const g of GARBAGE) statuses.push((await post(host.url, g, session)).status);
    statuses.push((await post(host.url, "garbage without a session")).status);
    statuses.push((await post(host.url, "garbage on a session that is not there", "nope")).status);
    expect(statuses).toEqual([400, 400, 400, 404]);
    expect(fromRelay(recorder, "upstream")).toEqual([
      { session: "upstream-1", frame: INIT_REQUEST },
      { session: "upstream-1", frame: GARBAGE[0] },
      { session: "upstream-1", frame: JSON.parse(GARBAGE[1]!) },
      { session: undefined, frame: "garbage without a session" },
      { session: undefined, frame: "garbage on a session that is not there" },
    ]);
  });

  it("sse: garbage POSTed to a session's message endpoint is in the evidence as sent", async () => {
    const recorder = new FrameRecorder();
    const host = await HttpUpstreamHost.start("sse");
    cleanup.push(() => host.close());
    const channel = host.next(5000);
    const abort = new AbortController();
    cleanup.push(async () => abort.abort());
    const stream = await fetch(host.url, { headers: { accept: "text/event-stream" }, signal: abort.signal });
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n\n")) text += (await reader.read()).value;
    const endpoint = new URL(/data: (\S+)/.exec(text)![1]!, host.url).href;
    new JsonRpcPeer(recorded(await channel, recorder, "upstream"), "s-");
    const statuses = [];
    for (const g of GARBAGE) statuses.push((await post(endpoint, g)).status);
    expect(statuses).toEqual([400, 400]);
    expect(fromRelay(recorder, "upstream")).toEqual([
      { session: "upstream-1", frame: GARBAGE[0] },
      { session: "upstream-1", frame: JSON.parse(GARBAGE[1]!) },
    ]);
  });
});

describe("streamable-http: a request tied to no request goes out only on a GET stream the relay holds open", () => {
  /**
   * The harness upstream behind the recording wrapper every session uses, a Streamable HTTP client in front (the
   * relay's side), and a detached probe: the upstream answers the call, then asks on its standalone GET stream.
   */
  async function detachedProbe(
    clientListens: boolean,
  ): Promise<{ outcome: UpstreamOutcome; asked: unknown[] }> {
    const host = await HttpUpstreamHost.start("streamable-http");
    cleanup.push(() => host.close());
    const channel = host.next(5000);
    const down = await httpDownstreamChannel(
      "streamable-http",
      host.url,
      5000,
      undefined,
      undefined,
      !clientListens,
    );
    cleanup.push(() => down.close());
    const client = new JsonRpcPeer(down.channel, "c-");
    const asked: unknown[] = [];
    client.onRequest(async (method) => {
      asked.push(method);
      return { result: RESULT };
    });
    const upstream = new ScriptedUpstream(undefined, "2025-11-25");
    const initialize = client.request("initialize", INIT, 5000);
    upstream.attach(recorded(await channel, new FrameRecorder(), "upstream"));
    await initialize;
    client.notify("notifications/initialized");
    const outcome = new Promise<UpstreamOutcome>((done) =>
      upstream.arm({ caseKey: "k", params: PARAMS, waitMs: 3000, detached: true, done }),
    );
    await client.request("tools/call", { name: PROBE_TOOL, arguments: { caseKey: "k" } }, 5000);
    return { outcome: await outcome, asked };
  }

  it("with no GET stream open the upstream could not ask: the probe says so (n/a), it never waits out a timeout", async () => {
    const { outcome, asked } = await detachedProbe(false);
    expect(outcome).toEqual({ kind: "broken", detail: DETACHED_NO_STREAM });
    expect(asked).toEqual([]);
  });

  it("with the client's GET stream open the request goes out on it and is answered", async () => {
    const { outcome, asked } = await detachedProbe(true);
    expect(outcome).toEqual({ kind: "result", result: RESULT });
    expect(asked).toEqual(["sampling/createMessage"]);
  });
});
