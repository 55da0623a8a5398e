import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_TRACKING_DIR, loadTrackingRegistry, runEvidence } from "../../src/cli/evidence.ts";
import { judgeBullet, judgeCompletion, renderCompletion } from "../../src/matrix/completion.ts";
import {
  caseMatches,
  selectTracking,
  type TrackingIssue,
  TrackingIssueSchema,
  trackingFileName,
} from "../../src/matrix/tracking.ts";
import { InputError } from "../../src/model/errors.ts";
import { loadRegister } from "../../src/model/load.ts";
import type { Results } from "../../src/model/results.ts";
import { tempDir } from "../helpers/cli.ts";
import { ISSUE_256_ROWS } from "../helpers/issue-256.ts";
import { FAIL_RESULTS, FIXTURE_REGISTER, fixture, loadFixtureRegister, PASS_RESULTS } from "./helpers.ts";

const register = loadFixtureRegister();
const issue256 = () => selectTracking(loadTrackingRegistry(), "dezren39/darwin-nix#256")!.issue;
const lastLine = (md: string) => md.trimEnd().split("\n").at(-1)!;

describe("tracking issue registry", () => {
  it("holds dezren39/darwin-nix#256 with its seven bullets, mapped to rows of the real register", () => {
    const registry = loadTrackingRegistry();
    expect(registry.map((t) => t.issue.issue)).toContain("dezren39/darwin-nix#256");
    const issue = issue256();
    expect(issue.bullets.map((b) => b.id)).toEqual([
      "decline-is-minus-1",
      "tool-shape-is-32602",
      "expiry-is-32603-naming-expiry",
      "requests-validated-before-asking",
      "results-validated-no-fill-in",
      "review-surface",
      "scoped-gaps-retired",
    ]);
    const real = new Map(loadRegister().rows.map((r) => [r.id, r]));
    for (const bullet of issue.bullets)
      for (const ref of bullet.rows) {
        const row = real.get(ref.row);
        expect(row, `${bullet.id}: ${ref.row}`).toBeDefined();
        for (const era of ref.eras ?? []) expect(row!.eras, `${bullet.id}: ${ref.row}@${era}`).toContain(era);
      }
    const named = new Set(issue.bullets.flatMap((b) => b.rows.map((r) => r.row)));
    for (const id of ISSUE_256_ROWS) expect(named.has(id), id).toBe(true);
  });

  it("picks a file by --issue, defaults to the first, and names files after their issue", () => {
    const registry = loadTrackingRegistry();
    expect(selectTracking(registry)).toBe(registry[0]);
    expect(selectTracking(registry, "DEZREN39/darwin-nix#256")?.issue.issue).toBe("dezren39/darwin-nix#256");
    expect(selectTracking(registry, "a/b#1")).toBeUndefined();
    expect(trackingFileName("dezren39/darwin-nix#256")).toBe("dezren39-darwin-nix-256.yaml");
    expect(loadTrackingRegistry(DEFAULT_TRACKING_DIR)[0]!.file).toMatch(/dezren39-darwin-nix-256\.yaml$/);
  });

  it("rejects a misnamed file, a bad ref or an unknown field with one InputError", () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "wrong-name.yaml"),
      "issue: a/b#1\ntitle: t\nbullets:\n  - {id: x, text: t, rows: [sampling-a]}\n",
    );
    expect(() => loadTrackingRegistry(dir)).toThrow(/must be named a-b-1\.yaml/);
    const dir2 = tempDir();
    writeFileSync(
      join(dir2, "a-b-1.yaml"),
      "issue: a/b#1\ntitle: t\nbullets:\n  - {id: x, text: t, rows: [sampling-a@2020-01-01]}\n",
    );
    expect(() => loadTrackingRegistry(dir2)).toThrow(InputError);
    const dir3 = tempDir();
    mkdirSync(join(dir3, "empty"));
    expect(() => loadTrackingRegistry(join(dir3, "empty"))).toThrow(/no tracking issue files/);
    expect(
      TrackingIssueSchema.safeParse({
        issue: "a/b#1",
        title: "t",
        bullets: [{ id: "x", text: "t", rows: ["r"], extra: 1 }],
      }).success,
    ).toBe(false);
  });

  it("row shorthand and case globs", () => {
    const t = TrackingIssueSchema.parse({
      issue: "a/b#1",
      title: "t",
      bullets: [{ id: "x", text: "t", rows: ["sampling-a@2025-11-25", "sampling-b"] }],
    });
    expect(t.bullets[0]!.rows).toEqual([{ row: "sampling-a", eras: ["2025-11-25"] }, { row: "sampling-b" }]);
    expect(caseMatches(["decline-*"], "decline-is-minus-1")).toBe(true);
    expect(caseMatches(["*expir*"], "no-answer-expires")).toBe(true);
    expect(caseMatches(["tool-*"], "a-tool-x")).toBe(false);
    expect(caseMatches(["a.b"], "axb")).toBe(false);
  });
});

describe("completion evidence for dezren39/darwin-nix#256", () => {
  it("a passing run: every bullet met, with evidence links, and the issue may be closed", async () => {
    const md = renderCompletion(fixture("pass").results, register, issue256(), { linkBase: "reports/ref" });
    await expect(md).toMatchFileSnapshot("./__snapshots__/completion.pass.md.snap");
    expect(lastLine(md)).toBe("**This issue may be closed: all 7 acceptance bullets are met.**");
    expect(md.match(/\| ✅ met \|/g)).toHaveLength(7);
    expect(md).toContain(
      "[decline-is-minus-one](reports/ref/evidence/sampling-client-errors-user-rejected-and-tool-shape/decline-is-minus-one@2025-11-25.json",
    );
  });

  it("a failing run: bullets not met with the reasons, and the issue may not be closed", async () => {
    const md = renderCompletion(fixture("fail").results, register, issue256());
    await expect(md).toMatchFileSnapshot("./__snapshots__/completion.fail.md.snap");
    expect(lastLine(md)).toBe("**This issue may not be closed: 7 of 7 acceptance bullets are not met.**");
    expect(md).toContain("The upstream got -32603 where -32602 was expected.");
    expect(md).not.toMatch(/<script|<img/);
  });

  it("a bullet whose cells were not run is 'not met (not run)', never met", () => {
    const r: Results = structuredClone(fixture("pass").results);
    // Drop the 2025-11-25 error-table cell and narrow the run (as --era would): decline and tool-shape cannot be judged.
    r.cells = r.cells.filter((c) => c.row !== "sampling-client-errors-user-rejected-and-tool-shape");
    const c = judgeCompletion(r, register, issue256());
    const byId = Object.fromEntries(c.bullets.map((b) => [b.bullet.id, b.status]));
    expect(byId["tool-shape-is-32602"]).toBe("not run");
    expect(byId["decline-is-minus-1"]).toBe("not run");
    expect(byId["scoped-gaps-retired"]).toBe("not run");
    expect(byId["review-surface"]).toBe("met");
    expect(c.mayClose).toBe(false);
    const md = renderCompletion(r, register, issue256());
    expect(md).toContain("⏸️ not met (not run) — A request with a tool result missing");
    expect(lastLine(md)).toBe(
      "**This issue may not be closed: 3 of 7 acceptance bullets are not met (3 not run).**",
    );

    // A not-run cell (no cases) is not run either; an era the tracking file names but the run skipped too.
    const r2: Results = structuredClone(fixture("pass").results);
    const cell = r2.cells.find((x) => x.row === "sampling-app-review-ui" && x.era === "2026-07-28")!;
    cell.status = "not-run";
    cell.cases = [];
    const byId2 = (r: Results) =>
      Object.fromEntries(judgeCompletion(r, register, issue256()).bullets.map((b) => [b.bullet.id, b]));
    expect(byId2(r2)["scoped-gaps-retired"]!.status).toBe("not run");
    // The review bullet rests on the review-request checks: 2026-07-28 still has one, in sampling-app-view-edit-prompts.
    expect(byId2(r2)["review-surface"]!.status).toBe("met");
    for (const c of r2.cells.filter(
      (x) => x.row === "sampling-app-view-edit-prompts" && x.era === "2026-07-28",
    ))
      for (const k of c.cases) delete k.checks;
    expect(byId2(r2)["review-surface"]!.status).toBe("not run");
    expect(byId2(r2)["review-surface"]!.detail).toBe("no review-request check ran in 2026-07-28");
    const r3: Results = structuredClone(fixture("fail").results); // run in three eras only
    r3.cells = r3.cells.map((x) =>
      x.row === "sampling-human-in-loop-can-deny" ? { ...x, status: "pass" as const, cases: [] } : x,
    );
    const decline = judgeCompletion(r3, register, issue256()).bullets[0]!;
    expect(decline.refs[0]!.status).toBe("not run");
    expect(decline.refs[0]!.detail).toBe("no cell for 2024-11-05 (client), 2025-03-26 (client)");
  });

  it("accept and match: partial counts for the gap bullet, any one ref suffices for expiry", () => {
    const r: Results = structuredClone(fixture("pass").results);
    const cell = r.cells.find((x) => x.row === "sampling-app-review-responses" && x.era === "2025-11-25")!;
    cell.status = "partial";
    const c = judgeCompletion(r, register, issue256());
    expect(c.bullets.find((b) => b.bullet.id === "scoped-gaps-retired")!.status).toBe("met");
    const expiry = c.bullets.find((b) => b.bullet.id === "expiry-is-32603-naming-expiry")!;
    expect(expiry.refs.map((x) => x.status)).toEqual(["met", "not run"]); // the fixture register has no relay expiry row
    expect(expiry.status).toBe("met");
  });

  it("a bullet resting on checks: judged on the checks that ran, wherever in its rows; skipped cases neither meet nor fail it", () => {
    // A broker with no model behind it: the approve-path cases of the review rows are skipped (their cells partial),
    // the questions it put were judged in other rows' cases and counted toward sampling-app-review-ui.
    const noModel = "the broker has no model behind it (no approve call)";
    const broker = (held: boolean): Results => {
      const r: Results = structuredClone(fixture("pass").results);
      for (const cell of r.cells) {
        if (cell.row === "sampling-app-view-edit-prompts") {
          cell.status = "partial";
          cell.cases = cell.cases.map((k) => ({ id: k.id, status: "skip", reason: noModel }));
        }
        if (cell.row === "sampling-app-review-ui") {
          cell.status = "partial";
          cell.cases = [
            { id: "review-shows-the-whole-request", status: "skip", reason: noModel },
            {
              id: "sampling-human-in-loop-can-deny/person-denies-at-review",
              status: held ? "pass" : "warn",
              reason: held
                ? "The broker showed the request with …"
                : "The broker showed the request without …",
              checks: { "review-request": held },
            },
          ];
        }
      }
      return r;
    };
    const review = (r: Results) =>
      judgeCompletion(r, register, issue256()).bullets.find((b) => b.bullet.id === "review-surface")!;
    const shown = review(broker(true));
    expect(shown.status).toBe("met");
    expect(shown.refs.map((x) => x.status)).toEqual(["met", "not run"]);
    expect(shown.refs[0]!.detail).toBe("5 review-request check(s) held");
    expect(shown.refs[1]!.detail).toBe(
      `no case of these cells that ran carried review-request (not run: ${noModel})`,
    );
    // The same cells by status (no checks:) are partial, which the bullet's default accept ([pass]) does not take.
    const byStatus = { ...shown.bullet, checks: undefined };
    expect(judgeBullet(broker(true), register, byStatus).status).toBe("not met");
    // A question that hid something, in one era: not met, whatever else held.
    const hidden = broker(true);
    const one = hidden.cells.find((c) => c.row === "sampling-app-review-ui" && c.era === "2025-06-18")!;
    one.cases[1] = { ...one.cases[1]!, status: "warn", checks: { "review-request": false } };
    expect(review(hidden).status).toBe("not met");
    expect(review(hidden).refs[0]!.detail).toBe("1 of 5 review-request check(s) did not hold");
    expect(review(broker(false)).status).toBe("not met");
    // A recorded gap is not made up for by checks elsewhere.
    const gap = broker(true);
    gap.cells.find((c) => c.row === "sampling-app-view-edit-prompts" && c.era === "2024-11-05")!.status =
      "gap";
    expect(review(gap).status).toBe("not met");
    // The rendering says what the bullet rests on.
    const md = renderCompletion(broker(true), register, issue256());
    expect(md).toContain("Rests on the review-request check(s) wherever they ran in these rows' cells.");
    // Only checks results.json keeps may be named.
    const bullet = { id: "x", text: "t", rows: ["r"], checks: ["review-asked"] };
    expect(TrackingIssueSchema.safeParse({ issue: "a/b#1", title: "t", bullets: [bullet] }).success).toBe(
      false,
    );
    expect(
      TrackingIssueSchema.safeParse({
        issue: "a/b#1",
        title: "t",
        bullets: [{ ...bullet, checks: ["review-request"] }],
      }).success,
    ).toBe(true);
  });

  it("a partial cell a bullet accepts says why it is partial, each reason once", () => {
    const r: Results = structuredClone(fixture("pass").results);
    for (const cell of r.cells.filter((c) => c.row === "sampling-app-review-responses")) {
      cell.status = "partial";
      cell.cases.push({
        id: "response-reviewed-before-delivery",
        status: "skip",
        reason: "no model behind it",
      });
      cell.cases.push({ id: "stream-case", status: "skip", reason: "n/a on stdio", na: true });
    }
    const gaps = judgeCompletion(r, register, issue256()).bullets.find(
      (b) => b.bullet.id === "scoped-gaps-retired",
    )!;
    expect(gaps.status).toBe("met");
    expect(gaps.refs.find((x) => x.ref.row === "sampling-app-review-responses")!.detail).toBe(
      "5 cell(s) pass or partial (partial: no model behind it)",
    );
  });

  it("the CLI prints the markdown, and --check exits 1 unless the issue may close", () => {
    const out: string[] = [];
    expect(
      runEvidence({ results: PASS_RESULTS, register: FIXTURE_REGISTER, check: true }, (t) => out.push(t)),
    ).toBe(0);
    expect(lastLine(out.join(""))).toContain("may be closed");
    expect(out.join("")).toContain("](test/fixtures/results/pass/evidence/");
    out.length = 0;
    expect(
      runEvidence({ results: FAIL_RESULTS, register: FIXTURE_REGISTER, check: true }, (t) => out.push(t)),
    ).toBe(1);
    expect(runEvidence({ results: FAIL_RESULTS, register: FIXTURE_REGISTER }, () => {})).toBe(0);
    expect(() =>
      runEvidence({ results: FAIL_RESULTS, issue: "a/b#9", register: FIXTURE_REGISTER }, () => {}),
    ).toThrow(/no tracking file for 'a\/b#9' \(known: dezren39\/darwin-nix#256/);
    const link = renderCompletion(fixture("pass").results, register, issue256() as TrackingIssue, {
      linkBase: "https://example.org/runs/1/",
    });
    expect(link).toContain("](https://example.org/runs/1/evidence/sampling-human-in-loop-can-deny/");
  });
});
