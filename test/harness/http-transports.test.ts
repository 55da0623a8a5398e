import { afterEach, describe, expect, it } from "vitest";
import { httpDownstreamChannel } from "../../src/harness/http-downstream.ts";
import { type HttpTransport, HttpUpstreamHost } from "../../src/harness/http-upstream.ts";
import { JsonRpcPeer } from "../../src/harness/jsonrpc-peer.ts";

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

    it("keeps two sessions of one relay apart on the one upstream channel (same ids, own answers)", async () => {
      const host = await HttpUpstreamHost.start(transport);
      cleanup.push(() => host.close());
      const upstreamChannel = host.next(5000);
      const peers = [];
      for (const name of ["one", "two"]) {
        const c = await httpDownstreamChannel(transport, host.url, 5000);
        cleanup.push(() => c.close());
        const peer = new JsonRpcPeer(c.channel, "same-");
        peer.onRequest(async () => ({ result: { ...RESULT, model: name } }));
        peers.push(peer);
      }
      const inits = peers.map((p) => p.request("initialize", INIT, 5000));
      const server = new JsonRpcPeer(await upstreamChannel, "s-");
      serve(server);
      await Promise.all(inits);
      for (const [i, peer] of peers.entries()) {
        const call = await peer.request("tools/call", { name: "probe" }, 5000);
        const answer = JSON.parse((call.result as any).content[0].text);
        expect(answer.result.model).toBe(i === 0 ? "one" : "two");
      }
    });
  });
}
