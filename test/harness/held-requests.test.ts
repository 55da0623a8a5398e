import { describe, expect, it } from "vitest";
import { ClientAnswerer } from "../../src/harness/answerer.ts";
import { ClientEraRefused, ClientShapeRefused, InitializedRequired } from "../../src/harness/ends.ts";
import { JsonRpcPeer, type LineChannel } from "../../src/harness/jsonrpc-peer.ts";
import { ModernAnswerer } from "../../src/harness/mrtr.ts";
import { PROBE_TOOL } from "../../src/harness/upstream.ts";
import { HELD_REQUEST_MS } from "../../src/harness/waits.ts";
import { linePair } from "../helpers/line-pair.ts";

/**
 * A relay that answers no request before the client's notifications/initialized (the official Java SDK's server holds
 * each one until then: McpServerSession.handleIncomingRequest waits on its exchange, made at initialized). The harness
 * must read that as a kind of client the relay does not serve (n/a), never as a relay that fails to start (error).
 */

const TOOLS = { tools: [{ name: PROBE_TOOL, inputSchema: { type: "object" } }] };

/** A legacy server on `channel`: initialize at once; tools/list at once, or (holding) only after initialized. */
function legacyServer(channel: LineChannel, holds: boolean) {
  const peer = new JsonRpcPeer(channel, "s-");
  let initialized!: () => void;
  const ready = new Promise<void>((r) => {
    initialized = r;
  });
  if (!holds) initialized();
  peer.onNotification((method) => {
    if (method === "notifications/initialized") initialized();
  });
  peer.onRequest(async (method) => {
    if (method === "initialize")
      return {
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "s", version: "1" },
        },
      };
    if (method === "server/discover")
      return { error: { code: -32601, message: "Method not found: server/discover" } };
    await ready;
    if (method === "tools/list") return { result: TOOLS };
    return { error: { code: -32601, message: `Method not found: ${method}` } };
  });
  return peer;
}

describe("a relay that holds requests until initialized", () => {
  it("holding back initialized: InitializedRequired once tools/list comes only after the notification", async () => {
    const [a, b] = linePair();
    legacyServer(a, true);
    const answerer = new ClientAnswerer(b, "2025-11-25", { sampling: {} }, undefined, true);
    const started = performance.now();
    const error = await answerer.connect(HELD_REQUEST_MS * 3).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InitializedRequired);
    expect(error).toBeInstanceOf(ClientShapeRefused);
    expect((error as Error).message).toMatch(/answers no request before notifications\/initialized/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(HELD_REQUEST_MS - 50);
  }, 20_000);

  it("holding back initialized: a relay that answers tools/list at once is driven as before", async () => {
    const [a, b] = linePair();
    legacyServer(a, false);
    const answerer = new ClientAnswerer(b, "2025-11-25", { sampling: {} }, undefined, true);
    await answerer.connect(HELD_REQUEST_MS * 3);
    expect(answerer.probeTool).toBe(PROBE_TOOL);
  });

  it("holding back initialized: a relay that never answers tools/list is not excused (the start fails)", async () => {
    const [a, b] = linePair();
    const peer = new JsonRpcPeer(a, "s-");
    peer.onRequest(async (method) =>
      method === "initialize"
        ? {
            result: {
              protocolVersion: "2025-11-25",
              capabilities: {},
              serverInfo: { name: "s", version: "1" },
            },
          }
        : new Promise(() => undefined),
    );
    const answerer = new ClientAnswerer(b, "2025-11-25", { sampling: {} }, undefined, true);
    const error = await answerer.connect(HELD_REQUEST_MS * 2 + 500).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ClientShapeRefused);
  }, 20_000);

  it("a 2026-07-28 client: server/discover refused, tools/list held: ClientEraRefused, not a start that times out", async () => {
    const [a, b] = linePair();
    legacyServer(a, true);
    const answerer = new ModernAnswerer(b, { sampling: {} });
    const error = await answerer.connect(HELD_REQUEST_MS * 3).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientEraRefused);
    expect((error as Error).message).toMatch(
      /server\/discover answered with error -32601 .*tools\/list not answered within \d+ ms/,
    );
  }, 20_000);

  it("a 2026-07-28 client: a late server/discover refusal (a relay still starting) still counts", async () => {
    const [a, b] = linePair();
    const peer = new JsonRpcPeer(a, "s-");
    peer.onRequest(async (method) => {
      if (method !== "server/discover") return new Promise(() => undefined);
      await new Promise((r) => setTimeout(r, 5_500));
      return { error: { code: -32601, message: "Method not found: server/discover" } };
    });
    const answerer = new ModernAnswerer(b, { sampling: {} });
    const error = await answerer.connect(HELD_REQUEST_MS * 4).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientEraRefused);
  }, 30_000);

  it("a 2026-07-28 client: server/discover refused, tools/list answered: no refusal", async () => {
    const [a, b] = linePair();
    legacyServer(a, false);
    const answerer = new ModernAnswerer(b, { sampling: {} });
    await answerer.connect(HELD_REQUEST_MS * 3);
    expect(answerer.probeTool).toBe(PROBE_TOOL);
  });
});
