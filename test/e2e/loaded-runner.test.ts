import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LATE_FRAMES } from "../../src/harness/late-rerun.ts";
import { LATE_REASON } from "../../src/harness/lateness.ts";
import { EvidenceSchema } from "../../src/model/evidence.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { resolveRunConfig } from "../../src/run/config.ts";
import { runPipeline } from "../../src/run/pipeline.ts";
import { ROOT, tempDir } from "../helpers/cli.ts";

/**
 * A correct relay on a loaded CI runner stays green (issue #35): beside busy processes (two per core here, more than
 * the harness and the relay can share fairly), the rows whose verdicts rest on the relay's deadline — a burst the
 * answerer takes 400 ms over each, an answer held behind notifications/initialized, a decline — give no `fail` and
 * no `warn`. A case the harness was late for (it waited for a core: src/harness/core-wait.ts) runs again; one still
 * late is an `error` naming the harness's lateness, and its transcript keeps the late attempts, small.
 */

const BUSY = 6;
// The independent relay over stdio: its timing is its own process's. (Behind the HTTP gateway, legacy-only-http, a
// loaded machine can still delay the answers inside the relay's own front process: not the harness's lateness.)
const TARGET = "targets/independent.yaml";
const ROWS = [
  "sampling-relay-roundtrip",
  "sampling-client-rate-limit",
  "sampling-server-not-before-initialized",
  "sampling-client-errors-user-rejected-and-tool-shape",
];
const ERAS = ["2024-11-05", "2025-11-25"];

const busy: ChildProcess[] = [];
let out: string;
let results: Results;

describe("a correct relay beside busy processes", () => {
  beforeAll(async () => {
    for (let i = 0; i < BUSY; i++)
      busy.push(spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
    out = tempDir("mcpx-conform-loaded-");
    try {
      await runPipeline(
        resolveRunConfig({
          target: join(ROOT, TARGET),
          era: ERAS.join(","),
          rows: ROWS.join(","),
          out,
          seed: "1",
          reporter: "md",
        }),
      );
    } finally {
      for (const p of busy) p.kill("SIGKILL");
    }
    results = ResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
  }, 600_000);

  afterAll(() => {
    // Reaped whatever happened above (a run that threw, a timeout).
    for (const p of busy) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  });

  it("no fail and no warn; an error names the harness's lateness, never the relay", () => {
    const cases = results.cells.flatMap((c) => c.cases.map((k) => ({ cell: `${c.row} @${c.era}`, ...k })));
    const blamed = cases.filter((k) => k.status === "fail" || k.status === "warn");
    expect(blamed.map((k) => `${k.cell} ${k.id}: ${k.status}: ${k.reason}`)).toEqual([]);
    const errors = cases.filter((k) => k.status === "error" && !k.reason.includes(LATE_REASON));
    expect(errors.map((k) => `${k.cell} ${k.id}: ${k.reason}`)).toEqual([]);
    // The cells this relay earns ran: the round trip and the decline pass.
    const status = (row: string, era: string) =>
      results.cells.find((c) => c.row === row && c.era === era)?.status;
    for (const era of ERAS) expect(["pass", "error"]).toContain(status("sampling-relay-roundtrip", era));
  });

  it("a re-run case keeps its late attempts beside the judged one, and the run counts them", () => {
    const rerun = results.cells.flatMap((c) => c.cases).filter((k) => k.lateReruns);
    expect(results.lateReruns?.cases ?? 0).toBe(rerun.length);
    for (const k of rerun) {
      const evidence = EvidenceSchema.parse(JSON.parse(readFileSync(join(out, k.evidence!), "utf8")));
      expect(evidence.lateAttempts?.length).toBeGreaterThanOrEqual(k.lateReruns!);
      for (const late of evidence.lateAttempts!) {
        expect(late.lateness.lateMs).toBeGreaterThanOrEqual(late.lateness.marginMs / 2);
        expect(late.frames.length).toBeLessThanOrEqual(LATE_FRAMES);
      }
    }
  });

  it("the harness timed its own answers: each delivered answer's transcript says when it was due and left", () => {
    const roundtrip = results.cells.find((c) => c.row === "sampling-relay-roundtrip")!.cases[0]!;
    const evidence = EvidenceSchema.parse(JSON.parse(readFileSync(join(out, roundtrip.evidence!), "utf8")));
    const [action] = evidence.harnessActions ?? [];
    expect(action?.kind).toBe("answer");
    expect(action!.writtenMs).toBeGreaterThanOrEqual(action!.deliveredMs);
    expect(action!.coreWaitMs).toBeGreaterThanOrEqual(0);
  });
});
