import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { mdText } from "../../src/matrix/escape.ts";
import {
  GITHUB_COMMENT_LIMIT,
  PR_CASES_PER_CELL,
  PR_REASON_CHARS,
  renderPrComment,
} from "../../src/matrix/markdown.ts";
import { decidingCase } from "../../src/matrix/model.ts";
import { ATTENTION_STATUSES, CELL_GLYPH } from "../../src/matrix/status.ts";
import { DEFAULT_REGISTER, loadRegister } from "../../src/model/load.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { fixture, loadFixtureRegister, XSS_IMG, XSS_SCRIPT } from "./helpers.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const register = loadFixtureRegister();

/** Every results.json committed under matrix/ (the real relays' matrices). */
function committedResults(): string[] {
  const dir = join(ROOT, "matrix");
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f === "results.json" || f.endsWith("/results.json"))
    .map((f) => join(dir, f))
    .sort();
}

/** The label of the reference link whose definition is `href` (fails when there is none). */
function evidenceRef(md: string, href: string): string {
  const line = md.split("\n").find((l) => l.startsWith("[e") && l.includes(`]: ${href} "`));
  expect(line, href).toBeDefined();
  return line!.slice(1, line!.indexOf("]"));
}

/** A long but realistic --link-base: a blob URL at a full commit. */
const LONG_BASE =
  "https://github.com/some-organisation/some-relay-repository/blob/0123456789abcdef0123456789abcdef01234567/conformance/matrix/targets/a-long-target-name";

describe("pr-comment.md in every committed matrix", () => {
  const files = committedResults();
  const real = loadRegister(DEFAULT_REGISTER);

  it("finds the committed matrices", () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
  });

  for (const file of files) {
    const name = file.slice(ROOT.length + 1);
    it(`${name}: under GitHub's comment limit, every verdict linked, every failing cell listed`, () => {
      const results = ResultsSchema.parse(JSON.parse(readFileSync(file, "utf8")));
      for (const linkBase of [undefined, LONG_BASE]) {
        const md = renderPrComment(results, real, linkBase ? { linkBase } : {});
        expect(md.length).toBeLessThan(GITHUB_COMMENT_LIMIT);
        expect(Buffer.byteLength(md, "utf8")).toBeLessThan(GITHUB_COMMENT_LIMIT);
        const summary = md.slice(md.indexOf("\n## Summary\n"), md.indexOf("\n## Needs attention\n"));
        for (const cell of results.cells) {
          const c = decidingCase(cell);
          if (!c) continue;
          const href = linkBase ? `${linkBase}/${encodeURI(c.evidence!)}` : encodeURI(c.evidence!);
          expect(summary).toContain(`[${CELL_GLYPH[cell.status]} ${cell.status}][${evidenceRef(md, href)}]`);
        }
        const attention = md.slice(md.indexOf("\n## Needs attention\n"));
        for (const cell of results.cells.filter((c) => c.status === "fail" || c.status === "error"))
          expect(attention).toContain(`**${mdText(cell.row)}** @ ${cell.era} (${cell.side})`);
      }
    });
  }
});

describe("renderPrComment", () => {
  it("matches the committed snapshot", async () => {
    await expect(renderPrComment(fixture("fail").results, register)).toMatchFileSnapshot(
      "./__snapshots__/pr-comment.fail.md.snap",
    );
  });

  it("lists the cells that need attention with at most a few cases each, reasons cut short", () => {
    const results: Results = structuredClone(fixture("pass").results);
    const cell = results.cells.find((c) => c.cases.length > 0)!;
    const template = cell.cases[0]!;
    cell.status = "fail";
    cell.cases = Array.from({ length: PR_CASES_PER_CELL + 2 }, (_, i) => ({
      ...template,
      id: `case-${i}`,
      status: "fail" as const,
      reason: `reason ${i} ${"x".repeat(PR_REASON_CHARS * 2)}`,
    }));
    const md = renderPrComment(results, register);
    expect(md).toContain(
      `**${cell.row}** @ ${cell.era} (${cell.side}) · cases: ❌ fail ${PR_CASES_PER_CELL + 2}`,
    );
    for (let i = 0; i < PR_CASES_PER_CELL; i++) expect(md).toContain(`[case-${i}][e`);
    expect(md).not.toContain(`[case-${PR_CASES_PER_CELL}]`);
    expect(md).toContain("…and 2 more case(s): matrix.md or matrix.html");
    expect(md).not.toContain("x".repeat(PR_REASON_CHARS));
    expect(md).toContain(`reason 0 ${"x".repeat(PR_REASON_CHARS - 10)}`);
  });

  it("counts the cells it cannot fit instead of passing the size limit", () => {
    const { results } = fixture("fail");
    const full = renderPrComment(results, register);
    const attention = results.cells.filter((c) => ATTENTION_STATUSES.has(c.status)).length;
    expect(full).not.toContain("more cell(s) that need attention");
    // a little less room: each cell keeps one case, every cell is still listed
    const fewer = renderPrComment(results, register, { maxChars: full.length - 1 });
    expect(fewer.length).toBeLessThan(full.length);
    expect(fewer).not.toContain("more cell(s) that need attention");
    const blocks = fewer.split("\n- ").slice(1);
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) expect(block.split("\n  - ").length - 1).toBeLessThanOrEqual(2); // a case, "…and N more"
    // far less room: the last cells are counted, not listed
    const none = renderPrComment(results, register, { maxChars: 1 }); // nothing fits: no cell listed
    expect(none).toContain(`…and ${attention} more cell(s) that need attention`);
    const max = none.length + 600;
    const cut = renderPrComment(results, register, { maxChars: max });
    expect(cut.length).toBeLessThanOrEqual(max);
    const unlisted = Number(/…and (\d+) more cell\(s\) that need attention/.exec(cut)![1]);
    const listed = cut.split("\n").filter((l) => / — \*\*sampling-/.test(l)).length;
    expect(unlisted).toBeGreaterThan(0);
    expect(listed + unlisted).toBe(attention);
    // the summary is never cut: every verdict is still linked
    expect(cut.slice(0, cut.indexOf("\n## Needs attention"))).toBe(
      full.slice(0, full.indexOf("\n## Needs attention")),
    );
  });

  it("neutralises relay text", () => {
    const md = renderPrComment(fixture("fail").results, register);
    expect(md).not.toContain(XSS_SCRIPT);
    expect(md).not.toContain(XSS_IMG);
    expect(md).not.toMatch(/<script|<img|<b>/i);
  });
});
