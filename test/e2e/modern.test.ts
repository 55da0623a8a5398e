import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EvidenceSchema } from "../../src/model/evidence.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { REVIEW_DELEGATED } from "../../src/run/plan.ts";
import { cli, tempDir } from "../helpers/cli.ts";

const ERA = "2026-07-28";

function readResults(dir: string): Results {
  return ResultsSchema.parse(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")));
}

const statusOf = (results: Results, row: string, side?: string) =>
  results.cells
    .filter((c) => c.row === row && c.era === ERA && (!side || c.side === side))
    .map((c) => c.status);

describe(`mcpx-conform run --era ${ERA} (multi-round-trip requests) against real relay processes`, () => {
  it("passes every exercised 2026-07-28 cell of the reference relay, with modern evidence at both ends", async () => {
    const out = tempDir();
    const r = await cli(
      ["run", "--target", "targets/reference.yaml", "--era", ERA, "--out", out, "--seed", "11", "--quiet"],
      {
        timeoutMs: 240_000,
      },
    );
    expect(r.stderr).toMatch(/cells: \d+ pass, 0 fail/);
    expect(r.code).toBe(0);
    const results = readResults(out);
    expect(results.eras).toEqual([ERA]);
    // n/a cells (a two-session case on this stdio downstream) carry their case, not run: they are not exercised.
    const exercised = results.cells.filter((c) => c.cases.length > 0 && c.status !== "n/a");
    expect(exercised.length).toBeGreaterThanOrEqual(12);
    for (const cell of exercised) {
      // A review case against a plain client answerer is skipped (no review surface): its cell is partial, never pass.
      const delegated = cell.cases.some((c) => c.status === "skip" && c.reason === REVIEW_DELEGATED);
      expect(cell.status, `${cell.row}/${cell.side}: ${cell.cases.map((c) => c.reason).join("; ")}`).toBe(
        delegated ? "partial" : "pass",
      );
    }
    // No cell of the era is left "not driven": a not-run cell is a row the register marks pending (a known
    // coverage gap of the harness, with what it lacks) or a row with no case for this era, and says so.
    for (const cell of results.cells.filter((c) => c.status === "not-run")) {
      expect(cell.note, cell.row).toMatch(/^(pending: needs |no case in the corpus exercises this cell$)/);
    }
    const roundtrip = results.cells.find((c) => c.row === "sampling-relay-roundtrip" && c.era === ERA)!;
    const evidence = EvidenceSchema.parse(
      JSON.parse(readFileSync(join(out, roundtrip.cases[0]!.evidence!), "utf8")),
    );
    expect(evidence.negotiated).toEqual({ upstream: ERA, downstream: ERA });
    const methods = evidence.frames.map((f) => (f.message as any)?.method).filter(Boolean);
    expect(methods).not.toContain("initialize");
    expect(methods).not.toContain("sampling/createMessage");
    const results2026 = evidence.frames
      .map((f) => (f.message as any)?.result)
      .filter((x) => x?.resultType === "input_required");
    expect(results2026.length).toBe(2); // the upstream's, and the same passed down
    const retry = evidence.frames.find(
      (f) => f.end === "upstream" && (f.message as any)?.params?.inputResponses,
    );
    expect(retry, "the relay's retry reached the upstream").toBeDefined();
  }, 300_000);

  it("passes the naive pass-through on round trip and MRTR mechanics but fails it on validation rows", async () => {
    const out = tempDir();
    const r = await cli(
      ["run", "--target", "targets/broken/naive-passthrough.yaml", "--era", ERA, "--out", out, "--quiet"],
      { timeoutMs: 240_000 },
    );
    expect(r.code).toBe(1);
    const results = readResults(out);
    // A raw frame pass-through speaks 2026-07-28 at both ends for free: the MRTR shapes go through untouched.
    for (const row of [
      "sampling-relay-roundtrip",
      "sampling-relay-content-unchanged",
      "sampling-mrtr-carried-in-input-requests",
      "sampling-mrtr-answer-in-input-responses",
      "sampling-mrtr-request-state-echoed",
      "sampling-mrtr-retry-new-id",
      "sampling-mrtr-no-per-input-error",
    ]) {
      expect(statusOf(results, row), row).toEqual(["pass"]);
    }
    // Its denial case passes; the row's review cases need a review surface (skipped): partial, not pass.
    expect(statusOf(results, "sampling-human-in-loop-can-deny"), "human-in-loop").toEqual(["partial"]);
    // It validates nothing: bad questions reach the answerer and bad answers reach the upstream.
    expect(statusOf(results, "sampling-both-validate-message-content", "client")).toEqual(["fail"]);
    expect(statusOf(results, "sampling-both-validate-message-content", "server")).toEqual(["fail"]);
    expect(statusOf(results, "sampling-message-must-have-role-and-content", "client")).toEqual(["fail"]);
    expect(statusOf(results, "sampling-message-must-have-role-and-content", "server")).toEqual(["fail"]);
    expect(statusOf(results, "sampling-mrtr-server-no-input-requests-without-capability")).toEqual(["fail"]);
    const reasons = results.cells
      .filter((c) => c.row === "sampling-both-validate-message-content" && c.era === ERA)
      .flatMap((c) => c.cases.map((x) => x.reason))
      .join("\n");
    expect(reasons).toMatch(/upstream received a result/);
    expect(reasons).toMatch(/expected no response for the input/);
  }, 300_000);
});
