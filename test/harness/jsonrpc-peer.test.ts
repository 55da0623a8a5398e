/**
 * The harness's JSON-RPC peer pairs a response with its request by the same id, type included (JSON-RPC 2.0 §5), and
 * never reuses an id on its session (MCP basic). No process, no socket: a channel in memory.
 */
import { describe, expect, it } from "vitest";
import {
  JsonRpcPeer,
  type LineChannel,
  PeerIdChangedError,
  PeerTimeoutError,
} from "../../src/harness/jsonrpc-peer.ts";

function channel() {
  const sent: string[] = [];
  let onLine: (line: string) => void = () => {};
  const ch: LineChannel = {
    send: (line: string) => sent.push(line),
    onLine: (l: (line: string) => void) => {
      onLine = l;
    },
    onClose: () => {},
  } as unknown as LineChannel;
  return { ch, sent, receive: (m: unknown) => onLine(JSON.stringify(m)) };
}

describe("JsonRpcPeer pairing", () => {
  it("sends under the id it is given and resolves on the same id", async () => {
    const { ch, sent, receive } = channel();
    const peer = new JsonRpcPeer(ch, "up-");
    const pending = peer.request("sampling/createMessage", {}, 1000, undefined, 2 ** 40);
    expect(JSON.parse(sent[0]!).id).toBe(2 ** 40);
    receive({ jsonrpc: "2.0", id: 2 ** 40, result: { ok: true } });
    await expect(pending).resolves.toMatchObject({ result: { ok: true } });
  });

  it('refuses a response under the id retyped (5 for "5") at once, naming both', async () => {
    const { ch, receive } = channel();
    const peer = new JsonRpcPeer(ch);
    const pending = peer.request("sampling/createMessage", {}, 60_000, undefined, "5");
    receive({ jsonrpc: "2.0", id: 5, result: {} });
    await expect(pending).rejects.toThrow(PeerIdChangedError);
    await expect(pending).rejects.toThrow('request id "5" came back under id 5 (string → number)');
    expect(peer.garbage).toHaveLength(1);
  });

  it("ignores a response under an id it never sent (the request then times out)", async () => {
    const { ch, receive } = channel();
    const peer = new JsonRpcPeer(ch);
    const pending = peer.request("ping", undefined, 30, undefined, "a");
    receive({ jsonrpc: "2.0", id: "b", result: {} });
    await expect(pending).rejects.toThrow(PeerTimeoutError);
  });

  it("never sends two requests under one id, its own ids stepping over one it was given", async () => {
    const { ch, sent } = channel();
    const peer = new JsonRpcPeer(ch);
    void peer.request("ping", undefined, 10, undefined, 1).catch(() => {});
    expect(() => peer.request("ping", undefined, 10, undefined, 1)).toThrow(/already used/);
    expect(peer.idFree(1)).toBe(false);
    expect(peer.idFree("1")).toBe(true);
    void peer.request("ping", undefined, 10).catch(() => {});
    expect(sent.map((l) => JSON.parse(l).id)).toEqual([1, 2]);
  });
});
