import { type AddressInfo, Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/real-matrices.ts";
import { run } from "../../src/cli/run.ts";
import { tempDir } from "../helpers/cli.ts";

/**
 * Every listener the harness opens (the control channel, the free-port probe, the HTTP/SSE upstream host) binds
 * 127.0.0.1 and nothing else. Runs happen in this process, with net.Server#listen observed: every server that
 * starts listening is recorded with the address it actually bound, whoever created it.
 */

const bound: Array<{ address: AddressInfo | string | null; stack: string }> = [];
const originalListen = Server.prototype.listen;

beforeAll(() => {
  Server.prototype.listen = function (this: Server, ...args: unknown[]) {
    const stack = new Error().stack ?? "";
    this.once("listening", () => bound.push({ address: this.address(), stack }));
    return (originalListen as (...a: unknown[]) => Server).apply(this, args);
  } as typeof Server.prototype.listen;
});

afterAll(() => {
  Server.prototype.listen = originalListen;
});

describe("harness listeners", () => {
  it("bind 127.0.0.1 only, for stdio, Streamable HTTP and SSE upstreams and the two-session runner", async () => {
    const runs = [
      // stdio upstream (control channel + shim), HTTP downstream, the two-session isolation runner
      [
        "targets/broken/broadcast-bridge.yaml",
        "sampling-relay-roundtrip,sampling-relay-answers-only-the-asker",
      ],
      // harness-hosted Streamable HTTP upstream
      ["targets/real/mcp-remote.yaml", "sampling-relay-roundtrip"],
      // harness-hosted SSE upstream
      ["targets/real/mcp-remote-sse.yaml", "sampling-relay-roundtrip"],
    ];
    for (const [target, rows] of runs) {
      const { results } = await run({
        target: join(ROOT, target!),
        rows,
        era: "2025-11-25",
        out: tempDir(),
        seed: "3",
        quiet: true,
        reporter: "md",
      });
      const roundtrip = results.cells.find((c) => c.row === "sampling-relay-roundtrip");
      expect(roundtrip?.status, `${target}: ${roundtrip?.cases.map((c) => c.reason).join("; ")}`).toBe(
        "pass",
      );
    }
    // control server + free-port probes + two HTTP upstream hosts, at least
    expect(bound.length).toBeGreaterThanOrEqual(5);
    expect(bound.filter((b) => b.stack.includes("http-upstream")).length).toBe(2);
    for (const { address, stack } of bound) {
      expect(typeof address === "object" && address !== null, stack).toBe(true);
      expect((address as AddressInfo).address, stack).toBe("127.0.0.1");
    }
  });
});
