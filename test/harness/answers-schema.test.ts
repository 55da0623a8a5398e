import { describe, expect, it } from "vitest";
import { ClientAnswerer } from "../../src/harness/answerer.ts";
import { JsonRpcPeer, type LineChannel } from "../../src/harness/jsonrpc-peer.ts";
import { ModernAnswerer, ModernUpstream } from "../../src/harness/mrtr.ts";
import { ScriptedUpstream } from "../../src/harness/upstream.ts";
import { ERAS, type Era, isModernEra } from "../../src/protocol/eras.ts";
import { checkFrame, type Sender } from "../../src/protocol/mcp-schema.ts";

/**
 * The harness's answers to what the reference relay never sends (test/harness/self-conformance.e2e.test.ts drives the
 * rest): a ping, roots/list, an unknown method, an initialize with no protocol version, a call of an unknown tool, a
 * probe call with no case running. Each answer must still conform to the official schema of the harness end's era.
 */

/** Two line channels wired to each other in memory; `sent` keeps what the harness end sent. */
function wire(): { harness: LineChannel; relay: LineChannel; sent: string[] } {
  const handlers: [Array<(l: string) => void>, Array<(l: string) => void>] = [[], []];
  const sent: string[] = [];
  const end = (me: 0 | 1): LineChannel => ({
    send: (line) => {
      if (me === 0) sent.push(line);
      setImmediate(() => {
        for (const h of handlers[(1 - me) as 0 | 1]) h(line);
      });
    },
    onLine: (h) => handlers[me].push(h),
    onClose: () => undefined,
  });
  return { harness: end(0), relay: end(1), sent };
}

/** Sends each request as the relay would and checks the harness's answer to it. */
async function answers(
  era: Era,
  from: Sender,
  make: (channel: LineChannel) => unknown,
  requests: Array<[string, unknown]>,
): Promise<string[]> {
  const { harness, relay, sent } = wire();
  make(harness);
  const peer = new JsonRpcPeer(relay, "relay-");
  const found: string[] = [];
  for (const [method, params] of requests) {
    const before = sent.length;
    await peer.request(method, params, 1000);
    for (const line of sent.slice(before))
      for (const f of checkFrame(JSON.parse(line), { era, from, answers: method }))
        found.push(`${era} ${method}: ${f.definition} ${f.pointer} ${f.message}`);
  }
  return found;
}

describe("the harness's answers to unusual requests conform to its era's schema", () => {
  it.each(ERAS.filter((e) => !isModernEra(e)))("%s: the legacy upstream and answerer", async (era) => {
    const upstream = await answers(era, "server", (c) => new ScriptedUpstream(c, era), [
      ["ping", undefined],
      ["resources/list", {}],
      ["tools/call", { name: "conformance_probe", arguments: {} }],
    ]);
    const answerer = await answers(era, "client", (c) => new ClientAnswerer(c, era, { sampling: {} }), [
      ["ping", undefined],
      ["roots/list", {}],
      ["elicitation/create", { message: "?", requestedSchema: { type: "object", properties: {} } }],
      ["sampling/createMessage", { messages: [], maxTokens: 1 }],
    ]);
    expect([...upstream, ...answerer]).toEqual([]);
  });

  it("2026-07-28: the upstream and the answerer", async () => {
    const era = "2026-07-28";
    const meta = {
      "io.modelcontextprotocol/protocolVersion": era,
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const upstream = await answers(era, "server", (c) => new ModernUpstream(c), [
      ["initialize", { capabilities: {} }],
      ["initialize", { protocolVersion: "2025-11-25", capabilities: {} }],
      ["ping", undefined],
      ["resources/list", { _meta: meta }],
      ["tools/call", { name: "no_such_tool", _meta: meta }],
      ["tools/call", { name: "conformance_probe", arguments: {}, _meta: meta }],
    ]);
    const answerer = await answers(era, "client", (c) => new ModernAnswerer(c, { sampling: {} }), [
      ["ping", undefined],
      ["sampling/createMessage", { messages: [], maxTokens: 1 }],
    ]);
    expect([...upstream, ...answerer]).toEqual([]);
  });
});
