import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EvidenceSchema } from "../../src/model/evidence.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { resolveRunConfig } from "../../src/run/config.ts";
import { runPipeline } from "../../src/run/pipeline.ts";
import { ROOT, tempDir } from "../helpers/cli.ts";

/**
 * Era bridging (issue #15): the reference relay joins a legacy downstream to a 2026-07-28 upstream and the reverse,
 * and the broken bridges of targets/broken/ are caught. Each run is the pipeline behind `mcpx-conform run`, in this
 * process (every relay is a real process).
 */

const ROW = "sampling-relay-adapts-to-downstream-era";
const ERAS = "2024-11-05,2025-11-25,2026-07-28";

async function run(target: string, eras = ERAS): Promise<{ results: Results; out: string }> {
  const out = tempDir("mcpx-conform-bridging-");
  await runPipeline(
    resolveRunConfig({
      target: join(ROOT, target),
      era: eras,
      rows: `${ROW},sampling-relay-roundtrip`,
      out,
      seed: "15",
      reporter: "md",
    }),
  );
  return { results: ResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8"))), out };
}

const casesOf = (results: Results) =>
  new Map(
    results.cells
      .filter((c) => c.row === ROW)
      .flatMap((c) => c.cases.map((k): [string, (typeof c.cases)[number]] => [`${k.id}@${c.era}`, k])),
  );

const BRIDGED = [
  "mrtr-upstream-to-legacy-answerer@2026-07-28",
  "legacy-decline-becomes-absent-input@2026-07-28",
  "legacy-expiry-becomes-absent-input@2026-07-28",
  "legacy-upstream-to-mrtr-answerer@2024-11-05",
  "legacy-upstream-to-mrtr-answerer@2025-11-25",
  "mrtr-silence-becomes-expiry@2025-11-25",
  "mrtr-array-result-to-older-upstream@2024-11-05",
];

describe("era bridging against real relay processes", () => {
  it("the reference relay passes every bridged case, both ways, each end in its own era on the wire", async () => {
    const { results, out } = await run("targets/reference.yaml");
    const cases = casesOf(results);
    for (const id of BRIDGED) expect(cases.get(id)?.status, `${id}: ${cases.get(id)?.reason}`).toBe("pass");
    for (const cell of results.cells.filter((c) => c.row === ROW)) expect(cell.status).toBe("pass");

    const frames = (id: string) =>
      EvidenceSchema.parse(JSON.parse(readFileSync(join(out, cases.get(id)!.evidence!), "utf8")));
    const methods = (e: ReturnType<typeof frames>, end: string) =>
      e.frames.filter((f) => f.end === end).map((f) => (f.message as any)?.method);

    // 2026-07-28 upstream → 2025-11-25 answerer: a server→client request downstream, a retry with inputResponses up.
    const down = frames("mrtr-upstream-to-legacy-answerer@2026-07-28");
    expect(down.negotiated).toEqual({ upstream: "2026-07-28", downstream: "2025-11-25" });
    expect(methods(down, "downstream")).toContain("sampling/createMessage");
    const retry = down.frames.find((f) => f.end === "upstream" && (f.message as any)?.params?.inputResponses);
    expect((retry?.message as any)?.params?.requestState).toEqual(expect.any(String));

    // legacy upstream → 2026-07-28 answerer: an input_required round downstream, a plain response up.
    const up = frames("legacy-upstream-to-mrtr-answerer@2025-11-25");
    expect(up.negotiated).toEqual({ upstream: "2025-11-25", downstream: "2026-07-28" });
    expect(methods(up, "upstream")).toContain("sampling/createMessage");
    expect(methods(up, "downstream")).not.toContain("sampling/createMessage");
    const round = up.frames.find((f) => (f.message as any)?.result?.resultType === "input_required");
    expect(round?.end).toBe("downstream");
  }, 300_000);

  it.each([
    ["targets/broken/bridge-decline-as-result.yaml", "2026-07-28", ["legacy-decline-becomes-absent-input"]],
    ["targets/broken/bridge-error-in-input.yaml", "2026-07-28", ["legacy-decline-becomes-absent-input"]],
    ["targets/broken/bridge-silence-as-result.yaml", "2025-11-25", ["mrtr-silence-becomes-expiry"]],
  ])(
    "%s bridges wrongly and fails its cases in %s",
    async (target, era, failing) => {
      const { results } = await run(target, era);
      const cases = casesOf(results);
      for (const id of failing) expect(cases.get(`${id}@${era}`)?.status, id).toBe("fail");
      expect(results.cells.find((c) => c.row === ROW && c.era === era)?.status).toBe("fail");
      const roundtrip = results.cells.find((c) => c.row === "sampling-relay-roundtrip" && c.era === era);
      expect(roundtrip?.status).toBe("pass");
    },
    300_000,
  );
});

describe("the review surface on the reference relay's 2026-07-28 path", () => {
  const REVIEW_ROWS = [
    "sampling-app-review-responses",
    "sampling-app-review-ui",
    "sampling-app-view-edit-prompts",
    "sampling-client-user-approval-controls",
    "sampling-human-in-loop-can-deny",
  ];
  const runReview = async (target: string) => {
    const out = tempDir("mcpx-conform-review-2026-");
    await runPipeline(
      resolveRunConfig({
        target: join(ROOT, target),
        era: "2026-07-28",
        rows: REVIEW_ROWS.join(","),
        out,
        seed: "15",
        reporter: "md",
      }),
    );
    return ResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
  };

  it("runs every review row in 2026-07-28 and passes them against reference-review", async () => {
    const results = await runReview("targets/reference-review.yaml");
    for (const row of REVIEW_ROWS) {
      const cell = results.cells.find((c) => c.row === row && c.era === "2026-07-28");
      expect(cell?.status, `${row}: ${cell?.cases.map((k) => k.reason).join("; ")}`).toBe("pass");
      expect(cell?.cases.some((k) => k.status === "skip" && !k.na)).toBe(false);
    }
  }, 300_000);

  it("catches a broken review relay there (review-skips-response: no second look at the response)", async () => {
    const results = await runReview("targets/broken/review-skips-response.yaml");
    const cell = results.cells.find(
      (c) => c.row === "sampling-app-review-responses" && c.era === "2026-07-28",
    );
    expect(["fail", "warn"]).toContain(cell?.status);
    const missed = cell?.cases.filter((k) => k.status === "fail" || k.status === "warn").map((k) => k.id);
    expect(missed).toEqual(
      expect.arrayContaining(["declined-response-not-delivered", "response-reviewed-before-delivery"]),
    );
  }, 300_000);
});
