/**
 * The id space the fuzzer sends sampling requests under (src/fuzz/ids.ts) and how a response that does not pair with
 * its request is told (src/fuzz/pairing.ts): a retyped or foreign id is a broken round trip, an exact one is not.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RELAY_ID_PREFIXES, requestIds, uniqueId } from "../../src/fuzz/ids.ts";
import { pairingProblem } from "../../src/fuzz/pairing.ts";
import type { Frame } from "../../src/model/evidence.ts";

describe("requestIds", () => {
  const sample = fc.sample(requestIds(), { numRuns: 2000, seed: 1 });

  it("reaches every kind of id the spec allows", () => {
    const kinds = {
      "small integer": sample.some((id) => typeof id === "number" && id >= 0 && id <= 1000),
      "past 32 bits": sample.some((id) => typeof id === "number" && id > 2 ** 31),
      negative: sample.some((id) => typeof id === "number" && id < 0),
      "digits in a string": sample.some((id) => typeof id === "string" && /^[0-9]+$/.test(id)),
      "a relay's own prefix": sample.some(
        (id) => typeof id === "string" && RELAY_ID_PREFIXES.some((p) => id.startsWith(p)),
      ),
      "beyond ASCII": sample.some(
        (id) => typeof id === "string" && [...id].some((c) => c.codePointAt(0)! > 0x7f),
      ),
      empty: sample.some((id) => id === ""),
    };
    expect(Object.entries(kinds).filter(([, seen]) => !seen)).toEqual([]);
  });

  it("stays within what a JSON parser keeps exactly, and within well-formed Unicode", () => {
    for (const id of sample) {
      if (typeof id === "number") expect(Number.isSafeInteger(id), String(id)).toBe(true);
      // No lone surrogate: a UTF-8 round trip keeps the string (it would turn one into U+FFFD).
      else expect(Buffer.from(id, "utf8").toString("utf8"), JSON.stringify(id)).toBe(id);
      expect(JSON.parse(JSON.stringify(id))).toBe(id);
    }
  });
});

describe("uniqueId", () => {
  it("never hands out an id twice on one session, and keeps the id's kind", () => {
    fc.assert(
      fc.property(fc.array(requestIds(), { maxLength: 60 }), (ids) => {
        const used = new Set<string>();
        const out = ids.map((id) => uniqueId(id, used));
        expect(new Set(out.map((id) => `${typeof id}:${id}`)).size).toBe(out.length);
        expect(out.map((id) => typeof id)).toEqual(ids.map((id) => typeof id));
      }),
      { seed: 1 },
    );
  });

  it('tells 5 from "5": both may be used on one session', () => {
    const used = new Set<string>();
    expect([uniqueId(5, used), uniqueId("5", used), uniqueId(5, used)]).toEqual([5, "5", 6]);
  });
});

const request = (id: unknown): Frame => ({
  t: 0,
  end: "upstream",
  dir: "to-relay",
  message: { jsonrpc: "2.0", id, method: "sampling/createMessage", params: {} },
});
const response = (id: unknown): Frame => ({
  t: 1,
  end: "upstream",
  dir: "from-relay",
  message: { jsonrpc: "2.0", id, result: {} },
});

describe("pairingProblem", () => {
  it("is silent when the response pairs exactly, whatever the id", () => {
    fc.assert(fc.property(requestIds(), (id) => pairingProblem([request(id), response(id)]) === undefined));
  });

  it("names a retyped id, both ways", () => {
    expect(pairingProblem([request(5), response("5")])).toBe(
      'the response to request id 5 came back under id "5" (number → string)',
    );
    expect(pairingProblem([request("5"), response(5)])).toBe(
      'the response to request id "5" came back under id 5 (string → number)',
    );
  });

  it("names a response under an id no request had (a relay's own, say)", () => {
    expect(pairingProblem([request("mcp-remote-1"), response("x-1")])).toMatch(
      /request id "mcp-remote-1" came back under id "x-1", which no request of the upstream had/,
    );
  });

  it("leaves a missing response to the judge (no answer is not a pairing)", () => {
    expect(pairingProblem([request(1)])).toBeUndefined();
  });
});
