import { describe, expect, it } from "vitest";
import { CaseSchema } from "../../src/model/case.ts";

/** A case's `requestId` (the id-space cases, issue #32): the kinds of id JSON-RPC allows, in the eras that have one. */
const base = {
  id: "id-case",
  row: "sampling-relay-answers-only-the-asker",
  title: "t",
  why: "w",
  eras: ["2025-11-25"],
  request: { messages: [], maxTokens: 8 },
  answer: {
    action: "accept",
    result: { role: "assistant", content: { type: "text", text: "x" }, model: "m" },
  },
  expect: [{ outcome: "delivered" }],
};
const issues = (c: Record<string, unknown>) =>
  (CaseSchema.safeParse(c).error?.issues ?? []).map((i) => `${i.path.join(".")}: ${i.message}`);

describe("case requestId", () => {
  it("takes a string or a safe integer", () => {
    for (const requestId of ["mcp-remote-1", "ü✓", 9007199254740991, -9007199254740991, 0])
      expect(issues({ ...base, requestId })).toEqual([]);
  });

  it("refuses an empty string, a fraction, an unsafe integer, null", () => {
    for (const requestId of ["", 1.5, 2 ** 53, null]) expect(issues({ ...base, requestId })).not.toEqual([]);
  });

  it("needs eras that leave out 2026-07-28, and no sequence", () => {
    expect(issues({ ...base, eras: undefined, requestId: 5 })).toEqual([
      "requestId: requestId needs eras without 2026-07-28 (that era sends sampling inside a result, with no id of its own)",
    ]);
    expect(issues({ ...base, eras: ["2025-11-25", "2026-07-28"], requestId: 5 })).toHaveLength(1);
    expect(issues({ ...base, requestId: 5, sequence: { burst: 2 } })).toEqual([
      "requestId: requestId is for a case of one sampling request (not with sequence)",
    ]);
  });
});
