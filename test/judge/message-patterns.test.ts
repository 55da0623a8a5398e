import { describe, expect, it } from "vitest";
import { judgeCase } from "../../src/judge/case.ts";
import type { Expectation } from "../../src/model/case.ts";
import type { Observation } from "../../src/model/evidence.ts";
import { DEFAULT_CASES, DEFAULT_REGISTER, loadCases, loadRegister } from "../../src/model/load.ts";
import { rowSeverity } from "../../src/model/register.ts";

/**
 * Codes are normative, wording is not: deleting a case's message pattern must never turn a failing verdict into a
 * passing one, except in the rows whose rule is about the message itself (expiry named, no stacked prefixes).
 */
const register = loadRegister(DEFAULT_REGISTER);
const cases = loadCases(register, DEFAULT_CASES);
const rows = new Map(register.rows.map((r) => [r.id, r]));
const MESSAGE_ROWS = new Set(["sampling-relay-expiry-reported", "sampling-relay-error-not-stacked"]);

const withoutPatterns = (expect: Expectation[], keys: Array<"message" | "means" | "notStacked">) =>
  expect.map((e) => {
    const copy: Record<string, unknown> = { ...e };
    for (const k of keys) delete copy[k];
    return copy as Expectation;
  });

/** What a relay might send back: right and wrong codes, with wording that matches nothing a case expects. */
function observations(expect: Expectation[]): Observation[] {
  const codes = new Set<number>([-1, -32602, -32603, 7]);
  for (const e of expect)
    if (e.outcome === "error" && e.code !== undefined) for (const c of [e.code].flat()) codes.add(c);
  const messages = ["zzz", "MCP error -1: MCP error -1: zzz", "request expired", "Declined by the person"];
  const out: Observation[] = [];
  for (const code of codes)
    for (const message of messages)
      for (const asked of [[], [{}]])
        out.push({ sent: {}, asked, upstream: { kind: "error", error: { code, message } } });
  return out;
}

describe("message patterns are advisory outside the rows about the message", () => {
  const patterned = cases.filter((c) =>
    c.expect.some((e) => e.outcome === "error" && (e.message || e.means || e.notStacked)),
  );

  it("the corpus has patterned cases to check", () => {
    expect(patterned.length).toBeGreaterThanOrEqual(2);
  });

  for (const kase of patterned) {
    it(`${kase.row}/${kase.id}: deleting a pattern turns no fail into a pass unless the row is about the message`, () => {
      const severity = kase.severity ?? rowSeverity(rows.get(kase.row)!);
      const era = (kase.eras ?? rows.get(kase.row)!.eras)[0]!;
      for (const observation of observations(kase.expect)) {
        const judge = (expect: Expectation[]) =>
          judgeCase({ expect, era, severity, observation, canary: "cnry" }).status;
        const full = judge(kase.expect);
        const noWording = judge(withoutPatterns(kase.expect, ["message"]));
        // The advisory pattern alone can never make a case fail.
        if (full === "fail") expect(noWording, JSON.stringify(observation.upstream)).toBe("fail");
        const noMeaning = judge(withoutPatterns(kase.expect, ["message", "means", "notStacked"]));
        if (full === "fail" && noMeaning !== "fail") expect(MESSAGE_ROWS.has(kase.row), kase.row).toBe(true);
      }
    });
  }
});
