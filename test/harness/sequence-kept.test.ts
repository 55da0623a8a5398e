import { describe, expect, it } from "vitest";
import { recordEntry } from "../../src/harness/ends.ts";
import { sequenceFor } from "../../src/harness/sequence.ts";
import type { SequenceInput } from "../../src/judge/checks/sequence.ts";
import { SEQUENCE } from "../../src/judge/checks/sequence.ts";
import type { Case } from "../../src/model/case.ts";
import { compactedOf } from "../../src/model/compact.ts";
import type { Observation, SequenceEntry } from "../../src/model/evidence.ts";
import type { Era } from "../../src/protocol/eras.ts";
import { familyChecks } from "../helpers/checks.ts";

const sequenceChecks = (
  sequence: SequenceInput,
  observation: Observation,
  era: Era,
  side: "client" | "server",
) => familyChecks(SEQUENCE, { sequence, observation, era, cell: { row: "r", side } });

/**
 * A case that sends several sampling requests keeps the first outcome whole (the probe's, judged in full) and the
 * others compacted (their judge reads only their kind): a relay answering a burst of 48 with 10 MiB each costs the
 * harness one 10 MiB answer, not 48.
 */
const PAD = "x".repeat(10 * 1024 * 1024);
const kase = (over: Partial<Case>): Case =>
  ({
    id: "c",
    row: "r",
    title: "t",
    why: "w",
    request: { messages: [{ role: "user", content: { type: "text", text: "hi {{canary}}" } }], maxTokens: 8 },
    answer: {
      action: "accept",
      result: { role: "assistant", content: { type: "text", text: "ok" }, model: "m" },
    },
    expect: [{ outcome: "delivered" }],
    ...over,
  }) as Case;
const padded = (round: number, token: string): SequenceEntry => ({
  round,
  token,
  sent: {},
  outcome: {
    kind: "result",
    result: { model: "m", _meta: { pad: PAD }, content: { type: "text", text: token } },
  },
});

describe("what a sequence keeps of each request", () => {
  it("a burst keeps the first outcome whole and compacts the others; their kinds judge it as before", () => {
    const { sequence } = sequenceFor(kase({ sequence: { burst: 3 } }), "cnry", 64 * 1024)!;
    const whole = sequence.first.map((a) => ({ ...padded(0, a.token), key: a.key }));
    for (const e of whole) recordEntry(sequence, e);
    const [first, ...rest] = sequence.record;
    expect(first).toBe(whole[0]);
    for (const e of rest) {
      const pad = (e.outcome as { result: { _meta: { pad: string } } }).result._meta.pad;
      expect(compactedOf(pad)).toMatchObject({ bytes: PAD.length });
      expect(e.outcome.kind).toBe("result");
    }
    const o = { sent: {}, asked: [{}, {}, {}], upstream: first!.outcome };
    expect(
      sequenceChecks({ kind: "burst", n: 3 }, { ...o, sequence: sequence.record }, "2025-11-25", "client"),
    ).toEqual(sequenceChecks({ kind: "burst", n: 3 }, { ...o, sequence: whole }, "2025-11-25", "client"));
  });

  it("a tool loop and a chain of requests keep the same way; mrtr.keys keeps every outcome whole (its tokens)", () => {
    expect(sequenceFor(kase({ sequence: { loop: 4 } }), "cnry")!.sequence.keptOutcome).toBeTypeOf("function");
    expect(
      sequenceFor(kase({ sequence: { after: [kase({}).request] } }), "cnry")!.sequence.keptOutcome,
    ).toBeTypeOf("function");
    const keys = sequenceFor(kase({ mrtr: { keys: ["a", "b"] } as Case["mrtr"] }), "cnry")!.sequence;
    expect(keys.keptOutcome).toBeUndefined();
    const whole = padded(0, "t2");
    recordEntry(keys, padded(0, "t1"));
    recordEntry(keys, whole);
    expect(keys.record[1]).toBe(whole);
  });
});
