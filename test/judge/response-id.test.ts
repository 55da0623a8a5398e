import { describe, expect, it } from "vitest";
import { judgeCase } from "../../src/judge/case.ts";
import { responseIdOutcomes } from "../../src/judge/checks/response-id.ts";
import type { Frame, Observation } from "../../src/model/evidence.ts";

/** The upstream's sampling request under `id` and the relay's response under `answeredAs`, as the upstream saw them. */
function wire(
  id: string | number,
  answeredAs: unknown,
  opts: { error?: boolean; session?: string } = {},
): Frame[] {
  const response: Record<string, unknown> = { jsonrpc: "2.0", id: answeredAs };
  if (opts.error) response.error = { code: -32600, message: "reserved id" };
  else response.result = { role: "assistant", content: { type: "text", text: "ok" }, model: "m" };
  return [
    {
      t: 1,
      end: "upstream",
      dir: "from-relay",
      message: { jsonrpc: "2.0", id: 1, method: "tools/call", params: {} },
    },
    {
      t: 2,
      end: "upstream",
      dir: "to-relay",
      message: {
        jsonrpc: "2.0",
        id,
        method: "sampling/createMessage",
        params: { messages: [], maxTokens: 8 },
      },
    },
    {
      t: 3,
      end: "upstream",
      dir: "from-relay",
      ...(opts.session ? { session: opts.session } : {}),
      message: response,
    },
  ];
}

const verdictOf = (frames: Frame[], id: string | number) =>
  responseIdOutcomes(frames, id).map((c) => [c.ok, c.detail]);

describe("upstream-response-id-paired: the response under the request's own id", () => {
  it("passes each id of the space when the response carries it unchanged (an error response pairs too)", () => {
    for (const id of [9007199254740991, "7", "mcp-remote-1", "sgw:1", "ü✓𝄞中"])
      expect(responseIdOutcomes(wire(id, id), id)[0]!.ok).toBe(true);
    expect(
      responseIdOutcomes(wire("mcp-remote-1", "mcp-remote-1", { error: true }), "mcp-remote-1")[0]!.ok,
    ).toBe(true);
  });

  it("fails a retyped id, naming both types", () => {
    expect(verdictOf(wire(9007199254740991, "9007199254740991"), 9007199254740991)).toEqual([
      [
        false,
        'the response to request id 9007199254740991 came back under id "9007199254740991" (number → string)',
      ],
    ]);
    expect(verdictOf(wire("7", 7), "7")).toEqual([
      [false, 'the response to request id "7" came back under id 7 (string → number)'],
    ]);
  });

  it("fails an id rewritten into one no request had, and a response that never came", () => {
    expect(verdictOf(wire("ü✓𝄞中", "?✓?中"), "ü✓𝄞中")).toEqual([
      [
        false,
        'the response to request id "ü✓𝄞中" came back under id "?✓?中", which no request of the upstream had',
      ],
    ]);
    expect(verdictOf(wire("sgw:1", "sgw:1").slice(0, 2), "sgw:1")).toEqual([
      [false, 'no response came back under the request\'s id "sgw:1"'],
    ]);
    // A response on another upstream connection answers a request of that connection, not this one.
    expect(verdictOf(wire("sgw:1", "sgw:1", { session: "upstream-2" }), "sgw:1")[0]![0]).toBe(false);
  });

  it("says nothing when the case chose no id, or the request did not go out under it", () => {
    expect(responseIdOutcomes(wire(5, 5), undefined)).toEqual([]);
    expect(responseIdOutcomes(wire(5, 5), "mcp-remote-1")).toEqual([]);
  });

  it("decides a case that rests on it: retyped fails, paired passes, never judged fails (relied-check-ran)", () => {
    const sent = { messages: [{ role: "user", content: { type: "text", text: "Hi c-1" } }], maxTokens: 8 };
    const answer = { role: "assistant", content: { type: "text", text: "Hello c-1" }, model: "m" };
    const o: Observation = {
      sent,
      asked: [sent],
      answered: { result: answer },
      upstream: { kind: "result", result: answer },
    };
    const judge = (frames: Frame[], requestId: string | number) =>
      judgeCase({
        expect: [{ outcome: "delivered" }],
        era: "2025-11-25",
        severity: "failure",
        observation: o,
        canary: "c-1",
        frames,
        requestId,
        reliesOn: ["upstream-response-id-paired"],
      });
    expect(judge(wire("sgw:1", "sgw:1"), "sgw:1").status).toBe("pass");
    const retyped = judge(wire(9007199254740991, "9007199254740991"), 9007199254740991);
    expect(retyped.status).toBe("fail");
    expect(retyped.reason).toMatch(/came back under id "9007199254740991" \(number → string\)/);
    expect(judge(wire(5, 5), "sgw:1").checks.find((c) => c.id === "relied-check-ran")?.ok).toBe(false);
  });
});
