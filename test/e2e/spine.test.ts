import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EvidenceSchema } from "../../src/model/evidence.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { cliInProcess, tempDir } from "../helpers/cli.ts";
import { ISSUE_256_ROWS } from "../helpers/issue-256.ts";

/**
 * The #256 completion evidence of a run: bullet 6 (the review surface) not met, and the issue stays open. The bullet
 * rests on what review questions showed, and a relay without a review surface put none: not met (not run).
 */
async function expectReviewBulletNotMet(out: string): Promise<void> {
  const evidence = await cliInProcess([
    "evidence",
    "--results",
    join(out, "results.json"),
    "--issue",
    "dezren39/darwin-nix#256",
  ]);
  expect(evidence.stdout).toMatch(/\| 6 \| The review surface shows[^\n]*\| ⏸️ not met \(not run\) \|/);
  expect(evidence.stdout).toContain("no review-request check ran in");
  expect(evidence.stdout).toMatch(/This issue may not be closed/);
}

/** The rows whose rule is a review by a person: credited only through an exercised review surface. */
const REVIEW_ROWS = [
  "sampling-app-review-ui",
  "sampling-app-view-edit-prompts",
  "sampling-app-review-responses",
  "sampling-client-user-approval-controls",
];

function readResults(dir: string): Results {
  return ResultsSchema.parse(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")));
}

describe("mcpx-conform run against real relay processes", () => {
  it("passes every exercised cell of the reference relay, each with evidence", async () => {
    const out = tempDir();
    const r = await cliInProcess(["run", "--era", "2024-11-05,2025-11-25", "--out", out, "--seed", "7"]);
    expect(r.stderr).toMatch(/cells: \d+ pass, 0 fail/);
    expect(r.code).toBe(0);
    const results = readResults(out);
    expect(results.seed).toBe(7);
    const exercised = results.cells.filter((c) => c.cases.some((x) => x.status !== "skip"));
    expect(exercised.length).toBeGreaterThan(10);
    for (const cell of exercised) {
      expect(
        cell.status,
        `${cell.row}@${cell.era}/${cell.side}: ${cell.cases.map((c) => c.reason).join("; ")}`,
      ).toBe("pass");
      for (const c of cell.cases) {
        if (c.status === "skip") continue;
        expect(c.evidence).toBeDefined();
        const evidence = EvidenceSchema.parse(JSON.parse(readFileSync(join(out, c.evidence!), "utf8")));
        expect(evidence.frames.length).toBeGreaterThan(0);
        expect(evidence.frames.some((f) => f.end === "downstream")).toBe(true);
      }
    }
    // No cell passes without evidence; every row of darwin-nix#256 is exercised (the default target has a review
    // surface, so the review rows run too).
    for (const row of ISSUE_256_ROWS) {
      const cells = results.cells.filter((c) => c.row === row && c.era === "2025-11-25");
      expect(cells.length, row).toBeGreaterThan(0);
      for (const cell of cells) expect(cell.status, `${row}/${cell.side}`).toBe("pass");
    }
    expect(existsSync(join(out, "results.json"))).toBe(true);
  });

  it("fails the naive pass-through relay on validation and error codes, naming what the upstream received", async () => {
    const out = tempDir();
    const r = await cliInProcess([
      "run",
      "--target",
      "targets/broken/naive-passthrough.yaml",
      "--era",
      "2025-11-25",
      "--out",
      out,
      "--quiet",
    ]);
    expect(r.code).toBe(1);
    const results = readResults(out);
    const status = (row: string, side?: string) =>
      results.cells
        .filter((c) => c.row === row && c.era === "2025-11-25" && (!side || c.side === side))
        .map((c) => c.status);
    expect(status("sampling-both-validate-message-content", "client")).toEqual(["fail"]);
    expect(status("sampling-both-validate-message-content", "server")).toEqual(["fail"]);
    expect(status("sampling-client-errors-user-rejected-and-tool-shape")).toEqual(["fail"]);
    // What a pass-through does do right still passes: it relays, keeps content, and honours a denial.
    expect(status("sampling-relay-roundtrip")).toEqual(["pass"]);
    expect(status("sampling-relay-content-unchanged")).toEqual(["pass"]);
    // A pass-through has no review surface: the review rows are partial at best, never credited.
    expect(status("sampling-human-in-loop-can-deny")).toEqual(["partial"]);
    for (const row of REVIEW_ROWS) expect(status(row), row).not.toContain("pass");
    await expectReviewBulletNotMet(out);
    const reasons = results.cells
      .filter((c) => c.row === "sampling-client-errors-user-rejected-and-tool-shape")
      .flatMap((c) => c.cases.map((x) => x.reason));
    expect(reasons.join("\n")).toMatch(/upstream received a result/);
    expect(reasons.join("\n")).toMatch(/error code -32603, expected -1/i);
  });

  it("credits no review row to the reference relay without its review surface, and #256 stays open", async () => {
    const out = tempDir();
    const r = await cliInProcess([
      "run",
      "--target",
      "targets/reference.yaml",
      "--era",
      "2025-11-25",
      "--rows",
      [...REVIEW_ROWS, "sampling-human-in-loop-can-deny"].join(","),
      "--out",
      out,
      "--quiet",
    ]);
    // Partial is reported, not failed: the relay delegated the review to its downstream.
    expect(r.code).toBe(0);
    const results = readResults(out);
    for (const row of REVIEW_ROWS) {
      const cells = results.cells.filter((c) => c.row === row);
      expect(cells.length, row).toBeGreaterThan(0);
      for (const cell of cells) {
        expect(cell.status, row).toBe("partial");
        expect(cell.note).toMatch(/delegated to the downstream client; no review surface exercised/);
      }
    }
    await expectReviewBulletNotMet(out);
  });

  it("reports a bad target profile in one line naming the file and field, exit 2", async () => {
    const dir = tempDir();
    const file = join(dir, "bad.yaml");
    writeFileSync(
      file,
      "name: bad\ncommand: []\ndownstream: { transport: stdio }\nupstream: { transport: stdio }\n",
    );
    const r = await cliInProcess(["run", "--target", file, "--out", join(dir, "out")]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(file);
    expect(lines[0]).toContain("command");
  });

  it("reports a bad case file in one line naming the file and field, exit 2", async () => {
    const dir = tempDir();
    const casesDir = join(dir, "cases", "sampling-relay-roundtrip");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(casesDir, { recursive: true });
    writeFileSync(
      join(casesDir, "broken.yaml"),
      "id: broken\nrow: sampling-relay-roundtrip\ntitle: t\nwhy: w\nrequest: {}\nanswer: { action: shrug }\nexpect: [{ outcome: delivered }]\n",
    );
    const r = await cliInProcess(["run", "--cases", join(dir, "cases"), "--out", join(dir, "out")]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("broken.yaml");
    expect(lines[0]).toContain("answer.action");
  });

  it("rejects an unknown era with exit 2", async () => {
    const r = await cliInProcess(["run", "--era", "1999-01-01"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--era");
  });
});
