import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { resolveRunConfig } from "../../src/run/config.ts";
import { runPipeline } from "../../src/run/pipeline.ts";
import { ROOT, tempDir } from "../helpers/cli.ts";

/**
 * The broker answerer end to end (answerer.kind: broker): the reference relay's review surface driven through a
 * declared broker profile (targets/reference-broker.yaml) gives the same case verdicts as the `kind: review` profile
 * of the same relay on the review rows; a broker whose question shows the request as a schema without messages and
 * offers `{}` (targets/broken/broker-shows-schema.yaml, what mcpx shows today) fails the three rows about what a
 * question shows, with reasons quoting what was (not) shown, and passes the rows about the decision: the person
 * there can still deny, approve and decline (each check counts toward its own row, src/judge/checks/review.ts).
 */
const SHOWN_ROWS = [
  "sampling-app-review-ui",
  "sampling-app-view-edit-prompts",
  "sampling-app-review-responses",
];
const DECISION_ROWS = ["sampling-client-user-approval-controls", "sampling-human-in-loop-can-deny"];
const ROWS = [...SHOWN_ROWS, ...DECISION_ROWS];

async function run(target: string): Promise<Results> {
  const out = tempDir("mcpx-conform-broker-");
  await runPipeline(
    resolveRunConfig({
      target: join(ROOT, target),
      era: "2025-11-25",
      rows: ROWS.join(","),
      out,
      seed: "5",
      reporter: "md",
    }),
  );
  return ResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
}

const verdicts = (r: Results) =>
  r.cells.flatMap((c) => c.cases.map((x) => `${c.row} ${c.era} ${c.side} ${x.id} ${x.status}`)).sort();

describe("answerer.kind: broker", () => {
  let review: Results;
  let broker: Results;
  let broken: Results;

  beforeAll(async () => {
    [review, broker] = await Promise.all([
      run("targets/reference-review.yaml"),
      run("targets/reference-broker.yaml"),
    ]);
    broken = await run("targets/broken/broker-shows-schema.yaml");
  }, 240_000);

  it("the reference relay's review API through a broker profile gives the same verdicts as kind: review", () => {
    expect(verdicts(broker)).toEqual(verdicts(review));
    expect(verdicts(broker).length).toBeGreaterThanOrEqual(15);
    for (const cell of broker.cells) expect(cell.status, `${cell.row}`).toBe("pass");
  });

  it("a broker showing a schema without messages and offering {} fails the rows about what a question shows, quoting what was shown", () => {
    for (const row of SHOWN_ROWS) {
      const cell = broken.cells.find((c) => c.row === row && c.era === "2025-11-25")!;
      expect(["fail", "warn"], `${row}: ${cell.status}`).toContain(cell.status);
      const missed = cell.cases.filter((c) => c.status === "fail" || c.status === "warn");
      expect(missed.length, row).toBeGreaterThan(0);
      const shown = missed.filter((c) =>
        /^The broker showed the (request|response) without every message's text/.test(c.reason),
      );
      expect(shown.length, `${row}: ${missed.map((c) => c.reason).join(" | ")}`).toBeGreaterThan(0);
      for (const c of shown) {
        // What was not shown (each message's canaried text), and what was shown instead: the schema and {}.
        expect(c.reason).toMatch(/not shown: "[^"]*Cnry-/);
        expect(c.reason).toContain('/requestedSchema is {"type":"object","properties":{}}');
        if (/^The broker showed the request/.test(c.reason))
          expect(c.reason).toContain(
            "an answer skeleton the reference validator accepts (offered {}: result.role at /role: role is required)",
          );
      }
    }
    // What the questions of the denial and approval cases showed counts there too, named by the case it was seen in.
    const ui = broken.cells.find((c) => c.row === "sampling-app-review-ui")!;
    expect(ui.cases.map((c) => c.id)).toContain("sampling-human-in-loop-can-deny/person-denies-at-review");
    // The decision rows pass: the person can deny (the upstream gets -1, the model is never asked) and approve.
    for (const row of DECISION_ROWS) {
      const cell = broken.cells.find((c) => c.row === row && c.era === "2025-11-25")!;
      expect(cell.status, `${row}: ${cell.cases.map((c) => c.reason).join(" | ")}`).toBe("pass");
    }
    // The round trip still passed (no case fell to the prerequisite), and cases that do not review pass: the
    // defect stays in what the question shows.
    const cases = broken.cells.flatMap((c) => c.cases);
    expect(cases.filter((c) => /^Prerequisite not met/.test(c.reason))).toEqual([]);
    expect(cases.filter((c) => c.status === "pass").map((c) => c.id)).toContain("decline-is-honoured");
  });
});
