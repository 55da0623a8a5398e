import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runGate } from "../../src/cli/gate.ts";
import { main } from "../../src/cli/main.ts";
import { applyBaseline, type Baseline, BaselineSchema } from "../../src/matrix/baseline.ts";
import { gate, parseRequire } from "../../src/matrix/gate.ts";
import { InputError } from "../../src/model/errors.ts";
import type { Results } from "../../src/model/results.ts";
import { tempDir } from "../helpers/cli.ts";
import { FAIL_RESULTS, fixture, PASS_RESULTS } from "./helpers.ts";

const TODAY = "2026-12-01";
const pass = fixture("pass").results;
const fail = fixture("fail").results;

const entry = (row: string, extra: Partial<Baseline["expectedFailures"][number]> = {}) => ({
  row,
  reason: "known: every failure is -32603",
  issue: "dezren39/darwin-nix#256",
  expires: "2027-01-31",
  ...extra,
});

const kinds = (r: ReturnType<typeof gate>) => r.lines.map((l) => l.kind);

describe("gate: the four outcomes", () => {
  it("passes when every cell of the required rows passes", () => {
    const r = gate(pass, {
      require: parseRequire(
        "sampling-human-in-loop-can-deny,sampling-both-validate-message-content@2025-11-25",
      ),
      today: TODAY,
    });
    expect(r.ok).toBe(true);
    expect(r.exitCode).toBe(0);
    expect(r.failures).toEqual([]);
    expect(r.lines.filter((l) => l.kind === "ok")).toHaveLength(5 + 2); // five eras; two sides
    expect(r.lines.at(-1)!.text).toBe("gate passed: 7 pass, 0 n/a, 0 expected failure(s)");
  });

  it("fails on a failing required cell, one line per reason", () => {
    const r = gate(fail, {
      require: parseRequire("sampling-human-in-loop-can-deny@2025-11-25"),
      today: TODAY,
    });
    expect(r.exitCode).toBe(1);
    expect(r.failures.map((l) => l.text)).toEqual([
      'FAIL sampling-human-in-loop-can-deny@2025-11-25 (client): fail: decline-reaches-upstream: The upstream got -32603 "the sampling request was decline" where -1 was expected.',
    ]);
    expect(r.lines.at(-1)!.text).toBe("gate failed: 1 reason(s); 0 pass, 0 n/a, 0 expected failure(s)");
  });

  it("accepts an unexpired expected failure that still fails, and reports it", () => {
    const baseline = BaselineSchema.parse({ expectedFailures: [entry("sampling-human-in-loop-can-deny")] });
    const r = gate(fail, {
      require: parseRequire("sampling-human-in-loop-can-deny"),
      baseline,
      today: TODAY,
    });
    expect(r.exitCode).toBe(0);
    expect(kinds(r).filter((k) => k === "expected")).toHaveLength(3);
    expect(r.lines[0]!.text).toContain(
      "baselined by expectedFailures[0] sampling-human-in-loop-can-deny, dezren39/darwin-nix#256 until 2027-01-31",
    );
  });

  it("fails on a stale entry: the expected failure now passes", () => {
    const baseline = BaselineSchema.parse({
      expectedFailures: [entry("sampling-app-review-ui", { era: "2025-11-25" })],
    });
    const r = gate(pass, {
      require: parseRequire("sampling-human-in-loop-can-deny"),
      baseline,
      today: TODAY,
    });
    expect(r.exitCode).toBe(1);
    expect(r.failures.map((l) => l.kind)).toEqual(["stale"]);
    expect(r.failures[0]!.text).toBe(
      "FAIL stale baseline entry expectedFailures[0] sampling-app-review-ui@2025-11-25, dezren39/darwin-nix#256: its cells now pass; remove the entry",
    );
  });

  it("fails on an expired entry, even when the failure it covers is still there", () => {
    const baseline = BaselineSchema.parse({
      expectedFailures: [entry("sampling-human-in-loop-can-deny", { expires: "2026-11-30" })],
    });
    const r = gate(fail, {
      require: parseRequire("sampling-human-in-loop-can-deny@2025-06-18"),
      baseline,
      today: TODAY,
    });
    expect(r.exitCode).toBe(1);
    expect(r.failures.map((l) => l.kind)).toEqual(["fail", "expired"]);
    expect(r.failures[0]!.text).toContain(
      "(its baseline entry expectedFailures[0] sampling-human-in-loop-can-deny, dezren39/darwin-nix#256 expired 2026-11-30)",
    );
    expect(r.failures[1]!.text).toContain("expired 2026-11-30 (today 2026-12-01)");
    // The last day is still honoured.
    expect(
      gate(fail, { require: parseRequire("sampling-human-in-loop-can-deny"), baseline, today: "2026-11-30" })
        .exitCode,
    ).toBe(0);
  });

  it("fails when a required row (or row@era) is absent from the results", () => {
    const r = gate(pass, {
      require: parseRequire(
        "sampling-not-in-results,sampling-client-errors-user-rejected-and-tool-shape@2025-06-18",
      ),
      today: TODAY,
    });
    expect(r.exitCode).toBe(1);
    expect(r.failures.map((l) => l.text)).toEqual([
      "FAIL sampling-not-in-results: not run (no cell in results)",
      "FAIL sampling-client-errors-user-rejected-and-tool-shape@2025-06-18: not run (no cell in results)",
    ]);
  });
});

describe("gate: other statuses", () => {
  it("reports n/a cells without failing, and fails warn, gap, partial, error and not-run cells", () => {
    const require = parseRequire("sampling-client-must-respect-maxtokens");
    // A requirement with nothing judged (every cell n/a) fails unless n/a is explicitly accepted.
    const refused = gate(pass, { require, today: TODAY });
    expect(refused.exitCode).toBe(1);
    expect(refused.failures[0]!.text).toBe(
      "FAIL sampling-client-must-respect-maxtokens: every cell is n/a, so nothing was judged (--allow-na accepts that)",
    );
    const na = gate(pass, { require, today: TODAY, allowNa: true });
    expect(na.exitCode).toBe(0);
    expect(na.lines[0]!.text).toMatch(
      /^n\/a sampling-client-must-respect-maxtokens@2026-07-28 \(client\): a relay runs no model/,
    );
    for (const [req, status] of [
      ["sampling-app-review-responses@2025-06-18", "warn"],
      ["sampling-app-review-ui@2025-06-18", "gap"],
      ["sampling-app-view-edit-prompts@2025-11-25", "partial"],
      ["sampling-app-review-responses@2025-11-25", "error"],
      ["sampling-app-review-responses@2026-07-28", "not run"],
    ] as const) {
      const r = gate(fail, { require: parseRequire(req), today: TODAY });
      expect(r.exitCode, req).toBe(1);
      expect(r.failures[0]!.text).toContain(`: ${status}: `);
    }
  });

  it("uses the most specific unexpired entry and ignores entries for other sides", () => {
    const baseline = BaselineSchema.parse({
      expectedFailures: [
        entry("sampling-both-validate-message-content", { side: "server" }),
        entry("sampling-both-validate-message-content", {
          expires: "2020-01-01",
          era: "2025-11-25",
          side: "client",
        }),
      ],
    });
    const r = gate(fail, {
      require: parseRequire("sampling-both-validate-message-content@2025-11-25"),
      baseline,
      today: TODAY,
    });
    expect(r.lines.find((l) => l.text.includes("(client)"))!.kind).toBe("fail");
    expect(r.lines.find((l) => l.text.includes("(server)"))!.kind).toBe("expected");
    expect(r.failures.map((l) => l.kind)).toEqual(["fail", "expired"]);
  });
});

describe("parseRequire and the baseline schema", () => {
  it("parses ROW[@ERA] lists and rejects bad eras", () => {
    expect(parseRequire(["a-row,b-row@2025-11-25", " a-row "])).toEqual([
      { row: "a-row" },
      { row: "b-row", era: "2025-11-25" },
    ]);
    expect(() => parseRequire("a-row@2025-01-01")).toThrow(InputError);
    expect(() => parseRequire(",")).toThrow(/at least one/);
    expect(() => parseRequire("Not A Row")).toThrow(/row id/);
  });

  it("validates entries: era, side, dates and unknown fields", () => {
    const bad = (e: object) =>
      BaselineSchema.safeParse({ expectedFailures: [{ ...entry("r"), ...e }] }).success;
    expect(bad({})).toBe(true);
    expect(bad({ expires: "2026-02-30" })).toBe(false);
    expect(bad({ expires: "31/01/2027" })).toBe(false);
    expect(bad({ era: "2025-01-01" })).toBe(false);
    expect(bad({ side: "both" })).toBe(false);
    expect(bad({ extra: 1 })).toBe(false);
    expect(bad({ issue: "" })).toBe(false);
    expect(
      BaselineSchema.parse({
        expectedFailures: [{ ...entry("r"), expires: new Date("2027-01-31T00:00:00Z") }],
      }).expectedFailures[0]!.expires,
    ).toBe("2027-01-31");
  });
});

describe("applyBaseline (run --baseline)", () => {
  it("exits 0 when every failing cell is baselined and unexpired, 1 otherwise (3 when only harness errors remain)", () => {
    expect(applyBaseline(pass, undefined, TODAY).exitCode).toBe(0);
    const bare = applyBaseline(fail, undefined, TODAY);
    expect(bare.exitCode).toBe(1);
    // fail, error and gap fail a run; warn, partial and not-run do not
    expect(bare.failures.map((c) => c.status).sort()).toEqual(
      fail.cells
        .filter((c) => ["fail", "error", "gap"].includes(c.status))
        .map((c) => c.status)
        .sort(),
    );
    const rows = [...new Set(bare.failures.map((c) => c.row))];
    const all = BaselineSchema.parse({ expectedFailures: rows.map((row) => entry(row)) });
    const covered = applyBaseline(fail, all, TODAY);
    expect(covered.exitCode).toBe(0);
    expect(covered.expectedFailures).toHaveLength(bare.failures.length);
    expect(covered.lines.every((l) => l.startsWith("expected "))).toBe(true);
    const expired = applyBaseline(fail, all, "2027-02-01");
    expect(expired.exitCode).toBe(1);
    expect(expired.hygiene.expired).toHaveLength(rows.length);
    // Cells the harness could not drive are not the relay's failure: exit 3, not 1.
    const harnessOnly = {
      ...fail,
      cells: fail.cells.filter((c) => c.status !== "fail" && c.status !== "gap"),
    };
    expect(harnessOnly.cells.some((c) => c.status === "error")).toBe(true);
    expect(applyBaseline(harnessOnly, undefined, TODAY).exitCode).toBe(3);
  });

  it("flags a stale entry, and notes entries that match nothing in a narrower run", () => {
    const baseline = BaselineSchema.parse({
      expectedFailures: [entry("sampling-app-review-ui"), entry("sampling-row-not-run")],
    });
    const r = applyBaseline(pass, baseline, TODAY);
    expect(r.exitCode).toBe(1);
    expect(r.hygiene.stale.map((s) => s.entry.row)).toEqual(["sampling-app-review-ui"]);
    expect(r.hygiene.unmatched.map((s) => s.entry.row)).toEqual(["sampling-row-not-run"]);
  });
});

describe("gate CLI", () => {
  const capture = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const o = process.stdout.write.bind(process.stdout);
    const e = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((s: string) => out.push(String(s)) > 0) as typeof process.stdout.write;
    process.stderr.write = ((s: string) => err.push(String(s)) > 0) as typeof process.stderr.write;
    try {
      const code = await main(argv);
      return { code, stdout: out.join(""), stderr: err.join("") };
    } finally {
      process.stdout.write = o;
      process.stderr.write = e;
    }
  };

  it("exit 0 pass, 1 fail, with one line per reason", async () => {
    const ok = await capture([
      "gate",
      "--results",
      PASS_RESULTS,
      "--require",
      "sampling-app-review-ui",
      "--today",
      TODAY,
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout.trim().split("\n").at(-1)).toBe("gate passed: 5 pass, 0 n/a, 0 expected failure(s)");
    const bad = await capture([
      "gate",
      "--results",
      FAIL_RESULTS,
      "--require",
      "sampling-app-review-ui@2025-06-18",
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("FAIL sampling-app-review-ui@2025-06-18 (client): gap: recorded gap");
  });

  it("an unknown row in --require is a usage error (exit 2, one line naming the flag)", async () => {
    const r = await capture(["gate", "--results", PASS_RESULTS, "--require", "sampling-nope"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      "mcpx-conform: --require: unknown register row 'sampling-nope' (mcpx-conform list rows shows them)",
    );
  });

  it("a baseline file is honoured, a bad one exits 2 with one line naming the file and field", async () => {
    const dir = tempDir();
    const good = join(dir, "baseline.yaml");
    writeFileSync(
      good,
      "expectedFailures:\n  - row: sampling-app-review-ui\n    reason: no review UI yet\n    issue: dezren39/darwin-nix#256\n    expires: 2027-01-31\n",
    );
    const ok = await capture([
      "gate",
      "--results",
      FAIL_RESULTS,
      "--require",
      "sampling-app-review-ui",
      "--baseline",
      good,
      "--today",
      TODAY,
    ]);
    expect(ok.code).toBe(0);
    const broken = join(dir, "broken.yaml");
    writeFileSync(
      broken,
      "expectedFailures:\n  - row: sampling-app-review-ui\n    reason: x\n    issue: y\n    expires: soon\n",
    );
    const r = await capture([
      "gate",
      "--results",
      FAIL_RESULTS,
      "--require",
      "sampling-app-review-ui",
      "--baseline",
      broken,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`${broken}: expectedFailures[0].expires: `);
    const missing = await capture(["gate", "--results", join(dir, "nope.json"), "--require", "x-row"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.json: cannot read file (ENOENT)");
    expect((await capture(["gate", "--results", PASS_RESULTS, "--require", "x@2020-01-01"])).code).toBe(2);
  });

  it("runGate returns the exit code and prints through the given sink", () => {
    const lines: string[] = [];
    const r: Results = fail;
    expect(
      runGate({ results: FAIL_RESULTS, require: ["sampling-human-in-loop-can-deny"], today: TODAY }, (l) =>
        lines.push(l),
      ),
    ).toBe(1);
    expect(lines).toHaveLength(r.cells.filter((c) => c.row === "sampling-human-in-loop-can-deny").length + 1);
  });
});
