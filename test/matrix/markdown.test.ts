import { describe, expect, it } from "vitest";
import { mdHref, mdText } from "../../src/matrix/escape.ts";
import { mdCode, renderMarkdown, renderPrComment } from "../../src/matrix/markdown.ts";
import { decidingCase, levelLabel } from "../../src/matrix/model.ts";
import { CELL_GLYPH } from "../../src/matrix/status.ts";
import type { Register } from "../../src/model/register.ts";
import type { Cell, Results } from "../../src/model/results.ts";
import { caseCount, fixture, loadFixtureRegister, XSS_IMG, XSS_SCRIPT } from "./helpers.ts";

const register = loadFixtureRegister();

function tableRows(md: string, heading: string): string[] {
  const start = md.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const lines = md.slice(start + heading.length + 2).split("\n");
  const first = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[] = [];
  for (const l of lines.slice(first)) {
    if (!l.startsWith("|")) break;
    rows.push(l);
  }
  return rows.slice(2); // header and delimiter
}

describe("renderMarkdown (matrix.md)", () => {
  it("matches the committed snapshots", async () => {
    for (const which of ["pass", "fail"] as const) {
      const md = renderMarkdown(fixture(which).results, register);
      await expect(md).toMatchFileSnapshot(`./__snapshots__/matrix.${which}.md.snap`);
    }
  });

  it("has a header with target, tool version, seed, date and totals", () => {
    const { results } = fixture("pass");
    const md = renderMarkdown(results, register);
    expect(md.startsWith("# Conformance matrix: reference-relay\n")).toBe(true);
    expect(md).toContain("**Tool:** mcpx-conform 0.1.0 · **seed:** 42 · **run:** 2026-11-30 10:00:00 UTC");
    expect(md).toContain(`**Cells:** ${results.cells.length} — ✅ pass 36 · ➖ n/a 1`);
    expect(md).toContain(`**Cases:** ${caseCount(results)} — ✅ pass ${caseCount(results)}`);
    expect(md).toContain("**Verdict: ✅ every run cell passed or does not apply**");
    expect(md).toContain("`npx mcpx-conform run --target targets/reference.yaml --seed 42`");
  });

  it("has one summary row per register row run, one section per era, and one table cell per row × side", () => {
    const { results } = fixture("fail");
    const md = renderMarkdown(results, register);
    const rows = new Set(results.cells.map((c) => c.row));
    expect(tableRows(md, "## Summary")).toHaveLength(rows.size);
    for (const era of results.eras!) {
      const inEra = results.cells.filter((c) => c.era === era);
      const applicable = inEra.filter((c) => c.status !== "n/a");
      const body = tableRows(md, `## ${era}`);
      expect(body).toHaveLength(new Set(applicable.map((c) => c.row)).size);
      // every cell's status word appears in its row
      for (const cell of applicable) {
        const line = body.find((l) => l.startsWith(`| [${cell.row}][`))!;
        expect(line, `${cell.row}@${era}`).toContain(`${CELL_GLYPH[cell.status]} ${cell.status}`);
      }
    }
    // Rows that do not apply are listed once, with the reason, instead of filling the era tables.
    const na = tableRows(md, "## Not applicable to relays");
    expect(na).toEqual([
      "| [sampling-client-must-respect-maxtokens][s4] | 2026-07-28 | a relay runs no model; the answerer that generates the completion decides the token count |",
    ]);
    expect(md).toContain("➖ n/a: 1 more row(s) do not apply to relays in this era (listed below).");
    // Spec URLs are written once, as reference links; each era's table links that era's page.
    expect(md).toContain(
      "\n[s4]: https://modelcontextprotocol.io/specification/2026-07-28/client/sampling#sampling-parameters\n",
    );
    const era2025 = tableRows(md, "## 2025-06-18").join("\n");
    const refs = [...era2025.matchAll(/\]\[(s\d+)\]/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const url = new RegExp(`\\n\\[${ref}\\]: (\\S+)`).exec(md)![1]!;
      expect(url, ref).toContain("/specification/2025-06-18/");
    }
  });

  it("links every case's evidence (relative path) and gives failing cases their reason", () => {
    const { results } = fixture("fail");
    const md = renderMarkdown(results, register);
    for (const cell of results.cells)
      for (const c of cell.cases) {
        expect(md).toContain(`](${encodeURI(c.evidence!)}`);
        if (c.status === "fail") {
          expect(md).toContain(mdText(c.reason));
          // the attention list carries the transcript's digest as the link title
          expect(md).toContain(`](${encodeURI(c.evidence!)} "sha256 ${c.evidenceSha256!.slice(0, 12)}…")`);
        }
      }
    expect(md).toContain("## Needs attention");
    expect(md).toContain("⏸️ not-run: 2 cell(s) were not run");
    // a repeated note is a footnote, written once
    expect(md.match(/⏸️ not-run \[\^n1\]/g)).toHaveLength(2);
    expect(md).toContain("\n[^n1]: the broker adapter has no 2026-07-28 review step to drive\n");
  });

  it("links every cell's verdict to the transcript of its worst case, passing cells too", () => {
    for (const which of ["pass", "fail"] as const) {
      const { results } = fixture(which);
      const md = renderMarkdown(results, register);
      const summary = tableRows(md, "## Summary").join("\n");
      for (const cell of results.cells) {
        const c = decidingCase(cell);
        if (!c) continue;
        const link = `[${CELL_GLYPH[cell.status]} ${cell.status}](${encodeURI(c.evidence!)} "`;
        expect(summary, `${cell.row}@${cell.era}`).toContain(link);
        expect(tableRows(md, `## ${cell.era}`).join("\n"), `${cell.row}@${cell.era}`).toContain(link);
      }
    }
    // the worst case decides: a failing cell opens on a failure even when a passing case comes first
    const { results } = fixture("fail");
    const mixed = results.cells.find(
      (c) => c.status === "fail" && c.cases[0]!.status === "pass" && c.cases.some((k) => k.status === "fail"),
    );
    if (mixed) expect(decidingCase(mixed)!.status).toBe("fail");
    const cell: Cell = {
      row: "x",
      era: "2025-11-25",
      side: "client",
      status: "fail",
      cases: [
        { id: "a", status: "pass", reason: "", evidence: "evidence/a.json" },
        { id: "b", status: "fail", reason: "", evidence: "evidence/b.json" },
      ],
    };
    expect(decidingCase(cell)!.id).toBe("b");
  });

  it("points evidence links under --link-base (an https URL or a folder)", () => {
    const { results } = fixture("fail");
    const base = "https://github.com/o/r/blob/abc/matrix/targets/t";
    for (const md of [
      renderMarkdown(results, register, { linkBase: base }),
      renderPrComment(results, register, { linkBase: base }),
    ]) {
      expect(md).not.toMatch(/\]\(evidence\/|\]: evidence\//);
      expect(md).toMatch(new RegExp(`(\\]\\(|\\]: )${base.replace(/[/.]/g, "\\$&")}/evidence/`));
      expect(md).toContain(`point under ${mdText(base)}`);
    }
    const folder = renderMarkdown(results, register, { linkBase: "../run-1/" });
    expect(folder).not.toContain("](evidence/");
    expect(folder).toContain("](../run-1/evidence/");
    // a base that is neither https nor a relative folder gives no links at all
    expect(renderMarkdown(results, register, { linkBase: "javascript:alert(1)" })).not.toContain(
      "](javascript",
    );
  });

  it("shows levels in one casing", () => {
    const lower: Register = structuredClone(register);
    lower.rows[0]!.level = "should";
    lower.rows[1]!.level = "schema";
    const { results } = fixture("fail");
    for (const md of [renderMarkdown(results, lower), renderPrComment(results, lower)]) {
      expect(md).not.toMatch(/\| (should|schema) \|/);
      expect(md).toContain(`| [${lower.rows[0]!.id}][s1]<br>${mdText(lower.rows[0]!.title)} | SHOULD |`);
      expect(md).toMatch(new RegExp(`\\| \\[${lower.rows[1]!.id}\\]\\[s\\d+\\]<br>[^|]* \\| SCHEMA \\|`));
    }
    expect(levelLabel("should")).toBe("SHOULD");
    expect(levelLabel("schema")).toBe("SCHEMA");
  });

  it("shows every status as glyph and word", () => {
    const md = renderMarkdown(fixture("fail").results, register);
    for (const s of ["pass", "fail", "warn", "partial", "gap", "error", "n/a", "not-run"] as const)
      expect(md).toContain(`${CELL_GLYPH[s]} ${s}`);
  });

  it("neutralises relay text: no raw HTML, links, mentions or table breaks", () => {
    const md = renderMarkdown(fixture("fail").results, register);
    expect(md).not.toContain(XSS_SCRIPT);
    expect(md).not.toContain(XSS_IMG);
    expect(md).not.toMatch(/<script|<img|<b>/i);
    expect(md).toContain("&lt;script&gt;window.&#95;&#95;mcpxPwned=1;alert(1)&lt;/script&gt;");
    expect(md).toContain("mcpx-like &lt;b&gt;relay&lt;/b&gt;");
  });

  it("keeps hostile text inside its table cell", () => {
    const { results } = fixture("pass");
    const hostile: Results = structuredClone(results);
    const cell = hostile.cells[0]!;
    cell.status = "fail";
    cell.cases[0]!.status = "fail";
    cell.cases[0]!.reason =
      "a | b\nc @octocat #1 [x](javascript:alert(1)) <b>hi</b> https://evil.example `code`";
    const md = renderMarkdown(hostile, register);
    const line = md.split("\n").find((l) => l.startsWith(`| [${cell.row}][`) && l.includes("javascript"))!;
    expect(line.split(/(?<!\\)\|/).length).toBe(6); // | row | level | client | server |: four columns, five separators
    expect(line).toContain(
      "a &#124; b c &#64;octocat &#35;1 &#91;x&#93;(javascript:alert(1)) &lt;b&gt;hi&lt;/b&gt;",
    );
    expect(line).toContain("https&#58;//evil.example &#96;code&#96;");
  });
});

describe("markdown escaping helpers", () => {
  it("mdText escapes markdown, GFM and HTML metacharacters and flattens lines", () => {
    expect(mdText("a|b")).toBe("a&#124;b");
    expect(mdText("x\r\ny\nz")).toBe("x y z");
    expect(mdText("@user and a@b and #12")).toBe("&#64;user and a&#64;b and &#35;12");
    expect(mdText("www.example.com")).toBe("www&#46;example.com");
    expect(mdText("<>&")).toBe("&lt;&gt;&amp;");
    expect(mdText(undefined)).toBe("");
  });

  it("mdHref refuses schemes and protocol-relative paths", () => {
    expect(mdHref("evidence/a b/c(1).json")).toBe("evidence/a%20b/c%281%29.json");
    expect(mdHref("javascript:alert(1)")).toBeNull();
    expect(mdHref("//evil.example/x")).toBeNull();
    expect(mdHref("https://example.com")).toBeNull();
  });

  it("mdCode survives backticks and escapes pipes in tables", () => {
    expect(mdCode("a`b")).toBe("``a`b``");
    expect(mdCode("`x`")).toBe("`` `x` ``");
    expect(mdCode("a|b", true)).toBe("`a\\|b`");
  });
});
