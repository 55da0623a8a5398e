import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EvidenceSchema } from "../../src/model/evidence.ts";
import { loadTarget } from "../../src/model/load.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { resolveRunConfig } from "../../src/run/config.ts";
import { runPipeline } from "../../src/run/pipeline.ts";
import { planRun } from "../../src/run/plan.ts";
import { ROOT, tempDir } from "../helpers/cli.ts";

const ERA = "2026-07-28";

/**
 * 2026-07-28 over Streamable HTTP at both ends (targets/reference-http.yaml: the reference relay with --listen and
 * --upstream-url): every case the era has on stdio runs here too, and passes (era bridging included: a legacy
 * downstream over Streamable HTTP before the 2026-07-28 upstream); no initialize and no session at either end of a
 * 2026-07-28 case, each message its own POST.
 */
describe(`run --era ${ERA} over Streamable HTTP at both ends (reference relay)`, () => {
  let out: string;
  let results: Results;

  beforeAll(async () => {
    out = tempDir("mcpx-conform-mrtr-http-");
    const outcome = await runPipeline(
      resolveRunConfig({ target: join(ROOT, "targets/reference-http.yaml"), era: ERA, seed: "11", out }),
    );
    expect(outcome.code).toBe(0);
    results = ResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
  }, 240_000);

  it("runs every 2026-07-28 case the stdio reference runs, era bridging included, and the two-session ones (n/a on stdio), and each passes", () => {
    const stdio = resolveRunConfig({ target: join(ROOT, "targets/reference.yaml"), era: ERA, seed: "11" });
    const http = resolveRunConfig({
      target: join(ROOT, "targets/reference-http.yaml"),
      era: ERA,
      seed: "11",
    });
    // Session isolation needs two clients on one relay: n/a on a stdio downstream, run here.
    const twoSession = planRun(http).work.filter((w) => w.kase.sessions === 2);
    expect(twoSession.map((w) => w.kase.id).sort()).toEqual([
      "two-calls-one-input-key",
      "two-calls-one-input-key-second-answers-first",
    ]);
    const expected = [...planRun(stdio).work, ...twoSession].map((w) => `${w.kase.row}/${w.kase.id}`).sort();
    expect(expected.length).toBeGreaterThanOrEqual(20);
    expect(
      expected.filter((k) => k.startsWith("sampling-relay-adapts-to-downstream-era/")).length,
    ).toBeGreaterThan(0);
    const all = results.cells.flatMap((c) => c.cases.map((x) => ({ key: `${c.row}/${x.id}`, ...x })));
    const ran = all.filter((r) => r.status !== "skip");
    expect([...new Set(ran.map((r) => r.key))].sort()).toEqual(expected);
    for (const r of ran) expect(r.status, `${r.key}: ${r.reason}`).toBe("pass");
  });

  it("keeps both ends in 2026-07-28: no initialize, no session, the input_required result at both ends", () => {
    const roundtrip = results.cells.find((c) => c.row === "sampling-relay-roundtrip" && c.era === ERA)!;
    const evidence = EvidenceSchema.parse(
      JSON.parse(readFileSync(join(out, roundtrip.cases[0]!.evidence!), "utf8")),
    );
    expect(evidence.negotiated).toEqual({ upstream: ERA, downstream: ERA });
    const methods = evidence.frames.map((f) => (f.message as any)?.method).filter(Boolean);
    expect(methods).not.toContain("initialize");
    expect(methods).not.toContain("sampling/createMessage");
    const required = evidence.frames.filter(
      (f) => (f.message as any)?.result?.resultType === "input_required",
    );
    expect(required.map((f) => f.end).sort()).toEqual(["downstream", "upstream"]);
    const retry = evidence.frames.find(
      (f) => f.end === "upstream" && (f.message as any)?.params?.inputResponses,
    );
    expect(retry, "the relay's retry reached the upstream over HTTP").toBeDefined();
  });
});

describe("the profile", () => {
  it("is Streamable HTTP at both ends", () => {
    const profile = loadTarget(join(ROOT, "targets/reference-http.yaml"));
    expect(profile.downstream.transport).toBe("streamable-http");
    expect(profile.upstream.transport).toBe("streamable-http");
  });
});
