import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { connectWhenReady, listensAt } from "../../src/harness/endpoints.ts";
import type { LineChannel } from "../../src/harness/jsonrpc-peer.ts";
import { freePort } from "../../src/harness/relay-process.ts";

/**
 * Start-up against an HTTP relay that is not listening yet: each try first knocks on the port with a bare TCP
 * connection, so the downstream transport (an SDK client and a request) is built only once something listens.
 */

const channel: LineChannel = { send: () => undefined, onLine: () => undefined, onClose: () => undefined };
let server: Server | undefined;
afterEach(() => server?.close());

/** connectWhenReady over HTTP against 127.0.0.1:port, with an answerer that connects at once. */
function whenReady(
  port: number,
  open: () => Promise<{ channel: LineChannel; close(): Promise<void> }>,
  options: { withinMs?: number; waiting?: (why: string) => void } = {},
) {
  return connectWhenReady(open, () => ({ connect: async () => undefined }), {
    http: true,
    deadline: performance.now() + (options.withinMs ?? 5_000),
    gone: () => undefined,
    waiting: options.waiting ?? (() => undefined),
    listening: { host: "127.0.0.1", port },
  });
}

function listenLater(port: number, ms: number): void {
  setTimeout(() => {
    server = createServer((socket) => socket.destroy()).listen(port, "127.0.0.1");
  }, ms);
}

describe("connectWhenReady over HTTP", () => {
  it("opens the downstream only once the relay's port accepts a connection", async () => {
    const port = await freePort();
    listenLater(port, 400);
    let opens = 0;
    const waited: string[] = [];
    await whenReady(
      port,
      async () => {
        opens++;
        return { channel, close: async () => undefined };
      },
      { waiting: (why) => waited.push(why) },
    );
    // Without the knock, each 50 ms try of the 400 ms would have built a transport.
    expect(opens).toBe(1);
    expect(waited.length).toBeGreaterThan(2);
    // The wait says what it waits for (the session's start-up step reads ECONNREFUSED as "to listen at").
    expect(waited[0]).toMatch(/ECONNREFUSED/);
  });

  it("still tries the full connection again when a listening relay is not ready (a 503)", async () => {
    const port = await freePort();
    listenLater(port, 0);
    let opens = 0;
    await whenReady(port, async () => {
      if (++opens < 3) throw new Error("HTTP 503 Service Unavailable");
      return { channel, close: async () => undefined };
    });
    expect(opens).toBe(3);
  });

  it("gives up at the deadline while nothing listens", async () => {
    const port = await freePort();
    const t0 = performance.now();
    await expect(
      whenReady(port, async () => ({ channel, close: async () => undefined }), { withinMs: 300 }),
    ).rejects.toThrow(/ECONNREFUSED/);
    expect(performance.now() - t0).toBeLessThan(3_000);
  });
});

describe("listensAt", () => {
  it("reads the host and port of a relay URL, the scheme's port when it names none", () => {
    expect(listensAt("http://127.0.0.1:8931/mcp")).toEqual({ host: "127.0.0.1", port: 8931 });
    expect(listensAt("https://relay.example/mcp")).toEqual({ host: "relay.example", port: 443 });
    expect(listensAt("http://localhost/sse")).toEqual({ host: "localhost", port: 80 });
    expect(listensAt("http://[::1]:9000/mcp")).toEqual({ host: "::1", port: 9000 });
  });
});
