import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runEvidence } from "../../src/cli/evidence.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { resolveRunConfig } from "../../src/run/config.ts";
import { runPipeline } from "../../src/run/pipeline.ts";
import { ROOT, tempDir } from "../helpers/cli.ts";

/**
 * A relay answered at a broker with no model behind it, as mcpx is (targets/brokers/relays/elicit-broker.ts): every
 * sampling request opens a question in a loopback queue, the agent there accepts with a bare CreateMessageResult or
 * declines; no approve call, the downstream MCP client is never asked, and the relay declares sampling.tools
 * upstream whatever its downstream declared. Two renderings of its questions:
 *
 * - everything shown (targets/brokers/elicit-broker-shows-all.yaml): #256 may be closed; the review rows are partial,
 *   with the reason (the approve-path and response-review cases have no model to drive), and the review bullet rests
 *   on the questions it did put;
 * - the system prompt and `{}` only, as mcpx renders a sampling question today
 *   (targets/brokers/elicit-broker-mcpx-rendering.yaml): bullet 1 met (a decline reaches the server as -1, can-deny
 *   passes), bullets 6 and 7 not met.
 *
 * Both: the cases about what the downstream declared (no sampling.tools, an older era) are n/a with the reason,
 * judged by what the relay declared upstream for its broker, and a tool-enabled delivery case is judged and passes.
 */
const ROWS = [
  "sampling-human-in-loop-can-deny",
  "sampling-client-errors-user-rejected-and-tool-shape",
  "sampling-client-user-approval-controls",
  "sampling-relay-expiry-reported",
  "sampling-both-validate-message-content",
  "sampling-app-review-ui",
  "sampling-app-view-edit-prompts",
  "sampling-app-review-responses",
  // What the downstream declared (point 6 of the verdict-truth issue), and a tool-enabled delivery row.
  "sampling-server-no-tools-without-capability",
  "sampling-client-error-on-tools-without-capability",
  "sampling-relay-adapts-to-downstream-era",
  "sampling-tool-use-result-balance",
];
const REVIEW_ROWS = [
  "sampling-app-review-ui",
  "sampling-app-view-edit-prompts",
  "sampling-app-review-responses",
  "sampling-client-user-approval-controls",
];
const LEGACY = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

interface Run {
  out: string;
  results: Results;
  evidence: string;
  check: number;
}

async function run(target: string): Promise<Run> {
  const out = tempDir("mcpx-conform-no-model-broker-");
  await runPipeline(
    resolveRunConfig({
      target: join(ROOT, target),
      rows: ROWS.join(","),
      out,
      seed: "7",
      reporter: "md",
      concurrency: "2",
    }),
  );
  const results = ResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
  let evidence = "";
  const check = runEvidence({ results: join(out, "results.json"), check: true }, (t) => {
    evidence += t;
  });
  return { out, results, evidence, check };
}

/** The summary table's line for bullet n: "| n | text | status |". */
const bullet = (md: string, n: number) => md.split("\n").find((l) => l.startsWith(`| ${n} | `)) ?? "";
const lastLine = (md: string) => md.trimEnd().split("\n").at(-1)!;
const cells = (r: Results, row: string) => r.cells.filter((c) => c.row === row);

describe("a broker with no model behind it, declaring sampling.tools upstream", () => {
  let all: Run;
  let prompt: Run;

  beforeAll(async () => {
    all = await run("targets/brokers/elicit-broker-shows-all.yaml");
    prompt = await run("targets/brokers/elicit-broker-mcpx-rendering.yaml");
  }, 300_000);

  it("everything shown: #256 may be closed, the review bullet resting on the questions it put", () => {
    const md = all.evidence;
    for (let n = 1; n <= 7; n++) expect(bullet(md, n), md).toMatch(/\| ✅ met \|$/);
    expect(lastLine(md)).toBe("**This issue may be closed: all 7 acceptance bullets are met.**");
    expect(all.check).toBe(0);
    expect(md).toContain("Rests on the review-request check(s) wherever they ran in these rows' cells.");
    expect(md).toMatch(/✅ met — \*\*sampling-app-review-ui\*\*: \d+ review-request check\(s\) held/);
  });

  it("everything shown: the review rows are partial, with the reason, never pass", () => {
    for (const row of REVIEW_ROWS)
      for (const cell of cells(all.results, row)) {
        expect(cell.status, `${row}@${cell.era}`).toBe("partial");
        expect(cell.note).toContain("the broker has no model behind it (no approve call");
        // Some of its cases ran and passed; the skipped ones are the approve-path and response-review cases.
        expect(cell.cases.some((c) => c.status === "pass")).toBe(true);
        for (const c of cell.cases.filter((x) => x.status === "skip" && !x.na))
          expect(c.reason, c.id).toMatch(/^the broker has no model behind it/);
      }
    expect(all.evidence).toMatch(
      /✅ met — \*\*sampling-app-review-responses\*\*: 4 cell\(s\) pass or partial \(partial: the broker has no model behind it/,
    );
  });

  it("system prompt and {}: bullet 1 met, can-deny passes, bullets 6 and 7 not met", () => {
    const md = prompt.evidence;
    expect(bullet(md, 1)).toMatch(/\| ✅ met \|$/);
    expect(bullet(md, 6)).toMatch(/\| ❌ not met \|$/);
    expect(bullet(md, 7)).toMatch(/\| ❌ not met \|$/);
    expect(lastLine(md)).toMatch(
      /^\*\*This issue may not be closed: 2 of 7 acceptance bullets are not met\.\*\*$/,
    );
    expect(prompt.check).toBe(1);
    const canDeny = cells(prompt.results, "sampling-human-in-loop-can-deny");
    expect(canDeny.map((c) => c.era).sort()).toEqual(LEGACY);
    for (const cell of canDeny) expect(cell.status, cell.cases.map((c) => c.reason).join(" | ")).toBe("pass");
    // What the questions did not show is judged where it counts: the review rows, quoting what was shown.
    expect(md).toMatch(
      /❌ not met — \*\*sampling-app-review-ui\*\*: \d+ of \d+ review-request check\(s\) did not hold/,
    );
    const ui = cells(prompt.results, "sampling-app-review-ui");
    for (const cell of ui) {
      expect(cell.status).toBe("warn");
      const denied = cell.cases.find(
        (c) => c.id === "sampling-human-in-loop-can-deny/person-denies-at-review",
      )!;
      expect(denied.checks).toEqual({ "review-request": false });
      expect(denied.reason).toMatch(/^The broker showed the request without every message's text/);
      expect(denied.reason).toContain(
        "an answer skeleton the reference validator accepts (offered {}: result.role at /role: role is required)",
      );
    }
  });

  it("both: cases about what the downstream declared are n/a, judged by what the relay declared for its broker", () => {
    for (const r of [all.results, prompt.results]) {
      for (const row of [
        "sampling-server-no-tools-without-capability",
        "sampling-client-error-on-tools-without-capability",
      ])
        for (const cell of cells(r, row)) {
          expect(cell.status, `${row}@${cell.era}`).toBe("n/a");
          for (const c of cell.cases)
            expect(c.reason).toMatch(
              /^n\/a: the answerer is the relay's broker, and the relay declared sampling\.tools upstream for it/,
            );
        }
      for (const cell of cells(r, "sampling-relay-adapts-to-downstream-era")) {
        expect(cell.status, cell.era).toBe("n/a");
        for (const c of cell.cases)
          expect(c.reason).toMatch(/never asks its downstream client \(a \d{4}-\d{2}-\d{2} client here\)/);
      }
    }
    // A tool-enabled delivery case is judged (the relay declared sampling.tools for its broker): it passes where the
    // question shows the history, and fails where the question never shows the messages (they did not reach the
    // agent answering: the content-fidelity verdict of a rule about that field).
    for (const cell of cells(all.results, "sampling-tool-use-result-balance"))
      expect(cell.status, cell.cases.map((c) => c.reason).join(" | ")).toBe("pass");
    const blind = cells(prompt.results, "sampling-tool-use-result-balance").find((c) => c.side === "server")!;
    expect(blind.status).toBe("fail");
    expect(blind.cases.find((c) => c.status === "fail")!.reason).toMatch(
      /^The broker showed a request that differs from the upstream's: \/messages missing/,
    );
  });
});
