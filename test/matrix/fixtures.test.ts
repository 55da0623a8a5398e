import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EvidenceSchema } from "../../src/model/evidence.ts";
import { ResultsSchema } from "../../src/model/results.ts";
import { FIXTURES, fixture, loadFixtureRegister, XSS_BREAKOUT, XSS_IMG, XSS_SCRIPT } from "./helpers.ts";

describe("hand-made fixture runs", () => {
  it("validate against the results, evidence and register contracts, with matching sha256", () => {
    const register = loadFixtureRegister();
    for (const which of ["pass", "fail"] as const) {
      const { results, evidences } = fixture(which); // parses with the zod schemas and checks every sha256
      expect(ResultsSchema.safeParse(results).success).toBe(true);
      const referenced = results.cells.flatMap((c) => c.cases.map((k) => k.evidence));
      expect(Object.keys(evidences).sort()).toEqual([...new Set(referenced)].sort());
      for (const [path, ev] of Object.entries(evidences)) {
        expect(EvidenceSchema.safeParse(ev).success, path).toBe(true);
        const cell = results.cells.find((c) => c.cases.some((k) => k.evidence === path))!;
        expect(ev.case.row).toBe(cell.row);
        expect(ev.era).toBe(cell.era);
        expect(ev.case.side).toBe(cell.side);
        // Transcripts have both ends in them.
        expect(ev.frames.some((f) => f.end === "upstream")).toBe(true);
      }
      const rows = new Set(register.rows.map((r) => r.id));
      for (const cell of results.cells) expect(rows.has(cell.row), cell.row).toBe(true);
    }
  });

  it("the passing target passes everything it runs; the failing one covers every cell status but pass-only", () => {
    const pass = fixture("pass").results;
    expect(new Set(pass.cells.map((c) => c.status))).toEqual(new Set(["pass", "n/a"]));
    const fail = fixture("fail").results;
    expect(new Set(fail.cells.map((c) => c.status))).toEqual(
      new Set(["fail", "gap", "partial", "warn", "error", "not-run", "n/a"]),
    );
  });

  it("plant hostile relay text: <script>, <img onerror> in a reason and </script> inside a transcript", () => {
    const { results } = fixture("fail");
    const reasons = results.cells.flatMap((c) => c.cases.map((k) => k.reason));
    expect(reasons.some((r) => r.includes(XSS_SCRIPT) && r.includes(XSS_IMG))).toBe(true);
    const raw = readFileSync(
      join(
        FIXTURES,
        "fail/evidence/sampling-both-validate-message-content/result-without-role-refused@2025-11-25.json",
      ),
      "utf8",
    );
    expect(JSON.parse(raw).frames.some((f: { raw?: string }) => f.raw?.includes(XSS_BREAKOUT))).toBe(true);
    expect(results.target.name).toContain("<b>");
  });
});
