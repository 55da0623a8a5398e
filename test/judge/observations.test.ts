import { describe, expect, it } from "vitest";
import { observationsOf } from "../../src/judge/observations.ts";
import type { Frame } from "../../src/model/evidence.ts";

/** A 2026-07-28 exchange: the upstream's input_required (with `given`) and what the relay's client was shown (`shown`). */
function exchange(given: string | undefined, shown: string | undefined): Frame[] {
  const result = (state: string | undefined) => ({
    resultType: "input_required",
    inputRequests: { k: { method: "sampling/createMessage", params: { messages: [], maxTokens: 8 } } },
    ...(state === undefined ? {} : { requestState: state }),
  });
  return [
    {
      t: 1,
      end: "downstream",
      dir: "to-relay",
      message: { jsonrpc: "2.0", id: 1, method: "tools/call", params: {} },
    },
    {
      t: 2,
      end: "upstream",
      dir: "from-relay",
      message: { jsonrpc: "2.0", id: 7, method: "tools/call", params: {} },
    },
    { t: 3, end: "upstream", dir: "to-relay", message: { jsonrpc: "2.0", id: 7, result: result(given) } },
    { t: 4, end: "downstream", dir: "from-relay", message: { jsonrpc: "2.0", id: 1, result: result(shown) } },
  ];
}

describe("observations of a 2026-07-28 exchange (not verdicts)", () => {
  it("shows a relay that hands its client a requestState of its own, by its shape (a random handle varies)", () => {
    const uuid = "sgw:8d0c6f3e-3b9a-4c1e-9f55-1d2a3b4c5d6e";
    expect(observationsOf(exchange("st.cnry-1", uuid), "2026-07-28")).toEqual([
      {
        id: "request-state-substituted",
        seen: `the relay's client was given requestState a 40-character string beginning "sgw:", not the upstream's "st.cnry-1"; what reached the upstream on the retry is sampling-mrtr-request-state-echoed's to judge`,
      },
    ]);
  });

  it("shows a relay that gives its client a requestState where the upstream gave none", () => {
    expect(observationsOf(exchange(undefined, "c2VhbGVk"), "2026-07-28")).toEqual([
      {
        id: "request-state-minted",
        seen: "the upstream's input_required carried no requestState; the relay's client was given a 8-character string",
      },
    ]);
  });

  it("shows nothing for a relay that passes the state through, or for none on both ends, or outside 2026-07-28", () => {
    expect(observationsOf(exchange("st.cnry-1", "st.cnry-1"), "2026-07-28")).toEqual([]);
    expect(observationsOf(exchange(undefined, undefined), "2026-07-28")).toEqual([]);
    expect(observationsOf(exchange("st.cnry-1", "other"), "2025-11-25")).toEqual([]);
    expect(observationsOf(undefined, "2026-07-28")).toEqual([]);
  });
});
