import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DETACHED_NO_STREAM } from "../../src/harness/upstream.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { resolveRunConfig } from "../../src/run/config.ts";
import { runPipeline } from "../../src/run/pipeline.ts";
import { ROOT, tempDir } from "../helpers/cli.ts";

const ROW = "sampling-relay-unrelated-requests";

/** Runs the row in 2025-11-25 against a target, in process; returns the row's cell. */
async function cellOf(target: string): Promise<Results["cells"][number]> {
  const out = tempDir("mcpx-conform-unrelated-");
  await runPipeline(
    resolveRunConfig({ target: join(ROOT, target), era: "2025-11-25", rows: ROW, seed: "3", out }),
  );
  const results = ResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
  return results.cells.find((c) => c.row === ROW)!;
}

/**
 * Sampling off the request path (#15, #32): over a Streamable HTTP upstream the harness sends the request on the probe
 * call's own response stream (related) or on the standalone GET stream (unrelated); on every upstream it can also
 * answer the call first and ask afterwards, with nothing pending (detached), to an HTTP answerer with or without its
 * GET stream. The reference relay receives all of them (or, with no stream to its answerer, answers with an error);
 * a relay that never opens the GET stream loses the unrelated ones (and is not judged on a detached one: the upstream
 * could not send it); one that drops a request arriving while no call
 * is pending (supergateway --stateful with no GET stream) loses the detached ones.
 */
describe(`${ROW}: requests related and unrelated to the call`, () => {
  const cells: Record<string, Results["cells"][number]> = {};

  beforeAll(async () => {
    for (const target of [
      "targets/reference-http-upstream.yaml",
      "targets/reference-http.yaml",
      "targets/broken/no-standalone-stream.yaml",
      "targets/broken/drops-when-idle.yaml",
      "targets/reference.yaml",
    ])
      cells[target] = await cellOf(target);
  }, 240_000);

  /** The verdict of every case that ran (skipped cases left out). */
  const ran = (target: string) =>
    Object.fromEntries(cells[target]!.cases.filter((c) => c.status !== "skip").map((c) => [c.id, c.status]));
  const statuses = (target: string) =>
    Object.fromEntries(cells[target]!.cases.map((c) => [c.id, `${c.status}: ${c.reason}`]));

  it("the reference relay over an HTTP upstream passes every form its stdio downstream can take", () => {
    const cell = cells["targets/reference-http-upstream.yaml"]!;
    expect(cell.status, JSON.stringify(statuses("targets/reference-http-upstream.yaml"))).toBe("pass");
    expect(Object.keys(ran("targets/reference-http-upstream.yaml")).sort()).toEqual([
      "after-call",
      "related-stream",
      "standalone-stream",
    ]);
  });

  it("the reference relay over HTTP at both ends passes all five, the answerer listening or not", () => {
    const cell = cells["targets/reference-http.yaml"]!;
    expect(cell.status, JSON.stringify(statuses("targets/reference-http.yaml"))).toBe("pass");
    expect(Object.keys(ran("targets/reference-http.yaml")).sort()).toEqual([
      "after-call",
      "after-call-listening-answerer",
      "after-call-no-listening-answerer",
      "related-stream",
      "standalone-stream",
    ]);
  });

  it("a relay that never opens the standalone GET stream fails the unrelated form; the detached one is n/a", () => {
    const cell = cells["targets/broken/no-standalone-stream.yaml"]!;
    expect(cell.status).toBe("fail");
    expect(ran("targets/broken/no-standalone-stream.yaml")).toEqual({
      "related-stream": "pass",
      "standalone-stream": "fail",
    });
    // With no call pending and no GET stream, the upstream has nowhere to send a request: the relay never received
    // it, so it is not judged on it (a fail here, before the recording wrapper passed on unrelatedReady).
    expect(statuses("targets/broken/no-standalone-stream.yaml")["after-call"]).toBe(
      `skip: ${DETACHED_NO_STREAM}`,
    );
  });

  it("a relay that drops a request arriving while no call is pending fails the detached forms", () => {
    const cell = cells["targets/broken/drops-when-idle.yaml"]!;
    expect(cell.status).toBe("fail");
    expect(ran("targets/broken/drops-when-idle.yaml")).toEqual({
      "after-call": "fail",
      "after-call-listening-answerer": "fail",
      "after-call-no-listening-answerer": "fail",
    });
  });

  it("on a stdio upstream and downstream only the detached form runs, the others n/a with the reason", () => {
    const cell = cells["targets/reference.yaml"]!;
    expect(cell.status).toBe("pass");
    expect(ran("targets/reference.yaml")).toEqual({ "after-call": "pass" });
    const reasons = statuses("targets/reference.yaml");
    expect(reasons["standalone-stream"]).toMatch(/n\/a on a stdio upstream.*standalone GET stream/);
    expect(reasons["after-call-no-listening-answerer"]).toMatch(/n\/a on a stdio downstream/);
  });
});
