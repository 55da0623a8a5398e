import { describe, expect, it } from "vitest";
import { JsonRpcPeer } from "../../src/harness/jsonrpc-peer.ts";
import { DEFAULT_INPUT_KEY, ModernAnswerer, ModernUpstream } from "../../src/harness/mrtr.ts";
import { PROBE_TOOL } from "../../src/harness/upstream.ts";
import type { UpstreamOutcome } from "../../src/model/evidence.ts";
import { META } from "../../src/protocol/wire.ts";
import { linePair } from "../helpers/line-pair.ts";

/** Two line channels wired to each other in memory (delivery on a later tick, like a pipe). */

const PARAMS = { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 8 };
const RESULT = { role: "assistant", content: { type: "text", text: "hello" }, model: "m" };

function armed(
  upstream: ModernUpstream,
  waitMs = 2000,
  mrtr?: { key?: string; requestState?: string | null },
  caseKey = "k",
) {
  let done!: (o: UpstreamOutcome) => void;
  const outcome = new Promise<UpstreamOutcome>((r) => {
    done = r;
  });
  upstream.arm({ caseKey, params: PARAMS, waitMs, done, ...(mrtr ? { mrtr } : {}) });
  return outcome;
}

/** The answerer talking straight to the upstream: a perfect pass-through "relay" of zero length. */
function direct(capabilities: Record<string, unknown> = { sampling: {} }) {
  const [a, b] = linePair();
  return { upstream: new ModernUpstream(a), answerer: new ModernAnswerer(b, capabilities) };
}

/** A raw JSON-RPC peer standing where the relay would, to send the upstream what a faulty relay sends. */
function rawRelay() {
  const [a, b] = linePair();
  return { upstream: new ModernUpstream(a), relay: new JsonRpcPeer(b, "r-") };
}

const meta = { [META.protocolVersion]: "2026-07-28", [META.clientCapabilities]: { sampling: {} } };

describe("ModernUpstream and ModernAnswerer (2026-07-28)", () => {
  it("complete a round trip: input_required, retry with inputResponses and requestState, result recorded", async () => {
    const { upstream, answerer } = direct();
    await answerer.connect(1000);
    expect(answerer.probeTool).toBe(PROBE_TOOL);
    expect(answerer.negotiated).toBe("2026-07-28");
    answerer.script({ action: "accept", result: RESULT });
    const outcome = armed(upstream);
    const final = await answerer.callProbe("k", 1000);
    expect(await outcome).toEqual({ kind: "result", result: RESULT });
    expect((final.result as any).resultType).toBe("complete");
    expect(answerer.asked).toEqual([PARAMS]);
    expect(answerer.answered).toEqual({ result: RESULT });
    expect(upstream.negotiated).toBe("2026-07-28");
    expect(upstream.declared).toEqual({ sampling: {} });
    expect(upstream.declaredVersion).toBe("2026-07-28");
  });

  it("answers delayMs after the questions came: a hold before the answer does not add to the delay", async () => {
    const { upstream, answerer } = direct();
    await answerer.connect(1000);
    answerer.script({ action: "accept", result: RESULT, delayMs: 500 });
    let heldAt = 0;
    answerer.holdAnswer = async () => {
      heldAt = performance.now();
      await new Promise((r) => setTimeout(r, 400));
    };
    const outcome = armed(upstream);
    await answerer.callProbe("k", 2000);
    const answeredAt = performance.now();
    expect(await outcome).toEqual({ kind: "result", result: RESULT });
    expect(answerer.retried).toBe(1);
    // The hold began as the questions came; the answer followed 500 ms after them, not 400 + 500 ms.
    expect(answeredAt - heldAt).toBeGreaterThanOrEqual(490);
    expect(answeredAt - heldAt).toBeLessThan(800);
  });

  it("a decline sends no retry; once settled the upstream records the input as withheld", async () => {
    const { upstream, answerer } = direct();
    await answerer.connect(1000);
    answerer.script({ action: "decline" });
    const outcome = armed(upstream, 60_000);
    const final = await answerer.callProbe("k", 1000);
    expect((final.result as any).resultType).toBe("input_required");
    expect(answerer.asked).toHaveLength(1);
    expect(answerer.answered).toBeUndefined();
    upstream.settle(20, "k");
    expect(await outcome).toMatchObject({ kind: "withheld", detail: expect.stringMatching(/no retry/) });
  });

  it("no retry once the answerer's call has ended is the input withheld; before, the harness's wait timing out", async () => {
    const { upstream, relay } = rawRelay();
    const ended = armed(upstream, 5000, undefined, "ended");
    await relay.request(
      "tools/call",
      { name: PROBE_TOOL, arguments: { caseKey: "ended" }, _meta: meta },
      1000,
    );
    upstream.settle(50, "ended", "within 50 ms");
    expect(await ended).toEqual({
      kind: "withheld",
      detail: "no retry: the downstream's call ended and no retry came within 50 ms",
    });
    // The relay never retried and the answerer's call never ended: the relay decided nothing (a loop it was still
    // running, a question it still held); it is not credited as withholding.
    const open = armed(upstream, 50, undefined, "open");
    await relay.request(
      "tools/call",
      { name: PROBE_TOOL, arguments: { caseKey: "open" }, _meta: meta },
      1000,
    );
    expect(await open).toMatchObject({ kind: "timeout", deadlineMs: 50 });
  });

  it("keeps a settling case's retry apart from the next case's calls (cases overlap on one session)", async () => {
    const { upstream, relay } = rawRelay();
    const a = armed(upstream, 5000, { requestState: "sa" }, "case-a");
    await relay.request("tools/call", { name: PROBE_TOOL, arguments: { caseKey: "case-a" } }, 1000);
    // Case a settles (its question left open); case b starts on the same upstream meanwhile.
    const b = armed(upstream, 5000, { requestState: "sb" }, "case-b");
    const bFirst = await relay.request(
      "tools/call",
      { name: PROBE_TOOL, arguments: { caseKey: "case-b" } },
      1000,
    );
    expect((bFirst.result as any).requestState).toBe("sb");
    // A late stand-in for a (named by its requestState alone) is a's outcome, not b's.
    await relay.request(
      "tools/call",
      {
        name: PROBE_TOOL,
        arguments: {},
        inputResponses: { [DEFAULT_INPUT_KEY]: RESULT },
        requestState: "sa",
      },
      1000,
    );
    expect(await a).toEqual({ kind: "result", result: RESULT });
    await relay.request(
      "tools/call",
      { name: PROBE_TOOL, arguments: { caseKey: "case-b" }, requestState: "sb" },
      1000,
    );
    expect(await b).toMatchObject({ kind: "withheld" });
    expect(upstream.strayCalls).toEqual([]);
  });

  it("refuses initialize with -32022 and answers server/discover", async () => {
    const { upstream, relay } = rawRelay();
    const init = await relay.request("initialize", { protocolVersion: "2025-11-25", capabilities: {} }, 1000);
    expect(init.error).toMatchObject({ code: -32022, data: { supported: ["2026-07-28"] } });
    const discover = await relay.request("server/discover", {}, 1000);
    expect(discover.result).toMatchObject({ resultType: "complete", supportedVersions: ["2026-07-28"] });
    expect(upstream.initializeAttempts).toBe(1);
  });

  it("names what a relay whose client offered an older version sent and was answered, until it speaks the era", async () => {
    const { upstream, relay } = rawRelay();
    expect(upstream.eraRefusal()).toBeUndefined();
    await relay.request(
      "initialize",
      { protocolVersion: "2025-11-25", capabilities: { sampling: {} } },
      1000,
    );
    // Quoted as sent and as answered: the relay's initialize params, the -32022 error with its data.
    expect(upstream.eraRefusal()).toBe(
      `the relay's upstream side does not speak 2026-07-28: its client sent initialize {"protocolVersion":"2025-11-25","capabilities":{"sampling":{}}} and the 2026-07-28 upstream answered error {"code":-32022,"message":"Unsupported protocol version: this server speaks 2026-07-28 only (use server/discover, no initialize)","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}`,
    );
    // A relay that falls back to the era's discovery reaches this upstream (as the reference relay does): whatever
    // ends its start afterwards is not the era's.
    await relay.request("server/discover", { _meta: meta }, 1000);
    expect(upstream.eraRefusal()).toBeUndefined();
  });

  it("does not blame the upstream side of a relay that reached the tools first", async () => {
    const { upstream, relay } = rawRelay();
    await relay.request("tools/list", { _meta: meta }, 1000);
    await relay.request("initialize", { protocolVersion: "2025-11-25", capabilities: {} }, 1000);
    expect(upstream.eraRefusal()).toBeUndefined();
  });

  it("records a retry without the key as withheld, and one under the pinned key as the result", async () => {
    const { upstream, relay } = rawRelay();
    let outcome = armed(upstream, 2000, { key: "a/b~c", requestState: "s1" });
    const first = await relay.request("tools/call", { name: PROBE_TOOL, arguments: {}, _meta: meta }, 1000);
    expect(first.result).toEqual({
      resultType: "input_required",
      inputRequests: { "a/b~c": { method: "sampling/createMessage", params: PARAMS } },
      requestState: "s1",
    });
    await relay.request(
      "tools/call",
      { name: PROBE_TOOL, arguments: {}, inputResponses: { other: RESULT }, requestState: "s1" },
      1000,
    );
    expect(await outcome).toMatchObject({ kind: "withheld", detail: expect.stringContaining('"a/b~c"') });

    outcome = armed(upstream, 2000, { key: "a/b~c", requestState: "s2" });
    await relay.request("tools/call", { name: PROBE_TOOL, arguments: {} }, 1000);
    await relay.request(
      "tools/call",
      { name: PROBE_TOOL, arguments: {}, inputResponses: { "a/b~c": RESULT }, requestState: "s2" },
      1000,
    );
    expect(await outcome).toEqual({ kind: "result", result: RESULT });
  });

  it("records the retry's answer even when the retry breaks a rule (the judge checks the rules from the wire)", async () => {
    const { upstream, relay } = rawRelay();
    const outcome = armed(upstream, 2000, { requestState: "exact+/=" });
    await relay.request("tools/call", { name: PROBE_TOOL, arguments: {} }, 1000);
    await relay.request(
      "tools/call",
      {
        name: PROBE_TOOL,
        arguments: {},
        inputResponses: { [DEFAULT_INPUT_KEY]: RESULT },
        requestState: "exact /=",
      },
      1000,
    );
    // The altered requestState is sampling-mrtr-request-state-echoed's to fail (src/judge/checks/retry.ts), not the round trip's.
    expect(await outcome).toEqual({ kind: "result", result: RESULT });
  });

  it("refuses server-to-client requests at the answerer (2026-07-28 has none) and never counts them as asked", async () => {
    const [a, b] = linePair();
    const answerer = new ModernAnswerer(b, { sampling: {} });
    const legacyRelay = new JsonRpcPeer(a, "x-");
    answerer.script({ action: "accept", result: RESULT });
    const reply = await legacyRelay.request("sampling/createMessage", PARAMS, 1000);
    expect(reply.error).toMatchObject({ code: -32601 });
    expect(answerer.asked).toEqual([]);
    expect(answerer.wireRequests).toEqual([{ method: "sampling/createMessage", params: PARAMS }]);
  });
});
