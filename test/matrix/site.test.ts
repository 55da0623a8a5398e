import { describe, expect, it } from "vitest";
import {
  BADGE_RULE,
  badgeColour,
  changedCells,
  levelClass,
  mustBadge,
  mustCount,
  packageView,
  relaySlug,
  renderSite,
  type SiteRelay,
} from "../../src/matrix/site.ts";
import type { Register } from "../../src/model/register.ts";
import type { Cell, CellStatus, Results } from "../../src/model/results.ts";
import {
  FAIL_RESULTS,
  loadFixtureRegister,
  loadFixtureResults,
  PASS_RESULTS,
  XSS_IMG,
  XSS_SCRIPT,
} from "./helpers.ts";

/** The report site's pure parts (issue #23): the badge's counting, change detection, and the pages' links. */

const register: Register = {
  rows: [
    {
      id: "sampling-a-must",
      title: "A",
      side: "client",
      level: "MUST",
      eras: ["2025-11-25"],
      quote: "q",
      url: "https://x/a",
    },
    {
      id: "sampling-b-must-not",
      title: "B",
      side: "both",
      level: "MUST NOT",
      eras: ["2025-11-25"],
      quote: "q",
      url: "https://x/b",
    },
    {
      id: "sampling-c-should",
      title: "C",
      side: "client",
      level: "SHOULD",
      eras: ["2025-11-25"],
      quote: "q",
      url: "https://x/c",
    },
    {
      id: "sampling-d-schema",
      title: "D",
      side: "client",
      level: "schema",
      eras: ["2025-11-25"],
      quote: "q",
      url: "https://x/d",
    },
  ],
};

function cell(
  row: string,
  status: CellStatus,
  era: Cell["era"] = "2025-11-25",
  side: Cell["side"] = "client",
): Cell {
  return { row, era, side, status, cases: [] };
}

function results(cells: Cell[]): Results {
  return {
    tool: { name: "mcpx-conform", version: "0.1.0" },
    target: { name: "t" },
    seed: 1,
    stable: true,
    cells,
    summary: {},
  };
}

describe("the badge: a relay's MUST cells", () => {
  it("counts MUST and MUST NOT cells with a verdict; pass alone is passed; n/a, not-run and error are not judged", () => {
    const r = results([
      cell("sampling-a-must", "pass"),
      cell("sampling-a-must", "fail", "2024-11-05"),
      cell("sampling-b-must-not", "pass", "2025-11-25", "client"),
      cell("sampling-b-must-not", "partial", "2025-11-25", "server"),
      cell("sampling-b-must-not", "warn", "2025-06-18", "server"),
      cell("sampling-b-must-not", "gap", "2025-03-26", "server"),
      cell("sampling-a-must", "n/a", "2025-06-18"),
      cell("sampling-a-must", "not-run", "2025-03-26"),
      cell("sampling-a-must", "error", "2026-07-28"),
      // Other levels never count, whatever their status.
      cell("sampling-c-should", "fail"),
      cell("sampling-d-schema", "fail"),
      cell("sampling-unknown-row", "fail"),
    ]);
    expect(mustCount(r, register)).toEqual({ passed: 2, counted: 6, notJudged: 3 });
    expect(mustBadge(mustCount(r, register))).toEqual({
      schemaVersion: 1,
      label: "sampling MUST",
      message: "2/6",
      color: "orange",
    });
  });

  it("colours by the share passed, at the thresholds the site states", () => {
    expect(badgeColour(41, 41)).toBe("brightgreen");
    expect(badgeColour(40, 41)).toBe("green");
    expect(badgeColour(37, 41)).toBe("green"); // 0.902
    expect(badgeColour(36, 41)).toBe("yellowgreen");
    expect(badgeColour(3, 4)).toBe("yellowgreen");
    expect(badgeColour(1, 2)).toBe("yellow");
    expect(badgeColour(1, 4)).toBe("orange");
    expect(badgeColour(9, 41)).toBe("red");
    expect(badgeColour(0, 3)).toBe("red");
    expect(badgeColour(0, 0)).toBe("lightgrey");
    expect(mustBadge({ passed: 0, counted: 0, notJudged: 4 }).message).toBe("none judged");
    expect(BADGE_RULE).toContain("MUST or MUST NOT");
  });

  it("levels: MUST NOT counts as MUST, SHOULD NOT and lowercase should as SHOULD", () => {
    expect(
      ["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "should", "MAY", "schema", "x"].map(levelClass),
    ).toEqual(["MUST", "MUST", "SHOULD", "SHOULD", "SHOULD", "MAY", "schema", undefined]);
  });
});

describe("change detection: the cells whose status differs from the previous results", () => {
  it("finds a changed status, a cell gone and a cell new, in register, era and side order", () => {
    const before = results([
      cell("sampling-c-should", "warn"),
      cell("sampling-a-must", "fail", "2025-11-25"),
      cell("sampling-a-must", "pass", "2024-11-05"),
      cell("sampling-b-must-not", "pass", "2025-11-25", "server"),
      cell("sampling-b-must-not", "pass", "2025-11-25", "client"),
    ]);
    const after = results([
      cell("sampling-c-should", "warn"),
      cell("sampling-a-must", "pass", "2025-11-25"),
      cell("sampling-a-must", "pass", "2024-11-05"),
      cell("sampling-b-must-not", "fail", "2025-11-25", "server"),
      cell("sampling-b-must-not", "fail", "2025-11-25", "client"),
      cell("sampling-d-schema", "n/a"),
    ]);
    expect(changedCells(before, after, register)).toEqual([
      { row: "sampling-a-must", era: "2025-11-25", side: "client", before: "fail", after: "pass" },
      { row: "sampling-b-must-not", era: "2025-11-25", side: "client", before: "pass", after: "fail" },
      { row: "sampling-b-must-not", era: "2025-11-25", side: "server", before: "pass", after: "fail" },
      { row: "sampling-d-schema", era: "2025-11-25", side: "client", before: null, after: "n/a" },
    ]);
    expect(changedCells(after, before, register).at(-1)).toEqual({
      row: "sampling-d-schema",
      era: "2025-11-25",
      side: "client",
      before: "n/a",
      after: null,
    });
  });

  it("finds nothing between a run and itself, and nothing from a changed reason alone", () => {
    const fail = loadFixtureResults(FAIL_RESULTS);
    expect(changedCells(fail, fail)).toEqual([]);
    const reworded = structuredClone(fail);
    for (const c of reworded.cells) for (const k of c.cases) k.reason = `${k.reason} (reworded)`;
    expect(changedCells(fail, reworded)).toEqual([]);
  });
});

describe("the pages", () => {
  const fixtureRegister = loadFixtureRegister();
  const pass = loadFixtureResults(PASS_RESULTS);
  const fail = loadFixtureResults(FAIL_RESULTS);
  const firstEvidence = fail.cells.flatMap((c) => c.cases).find((c) => c.evidence)!.evidence!;
  const relays: SiteRelay[] = [
    { name: "good", slug: "good", results: pass, previous: { note: "no history: test" }, copied: new Set() },
    {
      name: "bad",
      slug: "bad",
      results: fail,
      previous: {
        results: { ...fail, cells: fail.cells.map((c) => ({ ...c, status: "pass" })) },
        label: "before",
      },
      copied: new Set([firstEvidence]),
    },
  ];
  const pages = renderSite(relays, fixtureRegister, "Site <title>");

  it("writes a page and a badge per relay, and the changes of each (a note where there is no history)", () => {
    expect(Object.keys(pages.relays)).toEqual(["good", "bad"]);
    expect(pages.badges.good).toEqual(mustBadge(mustCount(pass, fixtureRegister)));
    const changed = fail.cells.filter((c) => c.status !== "pass").length;
    expect(pages.changes.json.changed).toBe(changed);
    expect(pages.changes.json.relays[0]).toEqual({
      name: "good",
      previous: null,
      note: "no history: test",
      changes: [],
    });
    expect(pages.changes.markdown).toContain(`# Matrix refresh: ${changed} cells changed`);
    expect(pages.relays.good).toContain("no history: test");
  });

  it("links only the evidence copied into the site, relative to the relay's page", () => {
    const hrefs = [...pages.relays.bad!.matchAll(/href="(bad\/evidence\/[^"]+)"/g)].map((m) => m[1]);
    expect(new Set(hrefs)).toEqual(new Set([`bad/${encodeURI(firstEvidence)}`]));
    expect(pages.relays.bad).toContain("(evidence not in this site)");
    expect(pages.index).toContain('href="relays/bad.html#');
    expect(pages.index).toContain('href="badges/bad.json"');
  });

  it("shows relay-provided text as text, never as markup", () => {
    for (const html of [pages.index, ...Object.values(pages.relays)]) {
      expect(html).not.toContain(XSS_SCRIPT);
      expect(html).not.toContain(XSS_IMG);
      expect(html).not.toContain("<b>relay</b>");
    }
    expect(pages.index).toContain("Site &lt;title&gt;");
    expect(pages.index.match(/<script>/g)).toHaveLength(1);
  });

  it("states the counting rule beside the badges", () => {
    expect(pages.index).toContain('id="counting-rule"');
    expect(pages.index).toContain(BADGE_RULE.replace(/'/g, "&#x27;"));
  });

  it("gives each relay a file-name-safe slug of its own", () => {
    const taken = new Set<string>();
    expect(["a b", "a-b", "A-B", "../x", ""].map((n) => relaySlug(n, taken))).toEqual([
      "a-b",
      "a-b-2",
      "A-B-3",
      "x",
      "relay",
    ]);
  });
});

describe("the package of each relay, and the language filter", () => {
  const fixtureRegister = loadFixtureRegister();
  const pass = loadFixtureResults(PASS_RESULTS);
  const fail = loadFixtureResults(FAIL_RESULTS);
  const javaPackage = {
    registry: "maven" as const,
    name: "io.modelcontextprotocol.sdk:mcp",
    version: "2.0.1",
    language: "java" as const,
  };
  const pyPackage = {
    registry: "pypi" as const,
    name: "fastmcp",
    version: "4.0.10",
    language: "python" as const,
  };
  const withPackage = (r: Results, p: typeof javaPackage | typeof pyPackage): Results => ({
    ...r,
    target: { ...r.target, package: p },
  });
  const relay = (name: string, results: Results): SiteRelay => ({
    name,
    slug: name,
    results,
    previous: { note: "no history" },
    copied: new Set(),
  });
  const pages = renderSite(
    [
      relay("plain", pass),
      relay("java-relay", withPackage(fail, javaPackage)),
      relay("py-relay", withPackage(pass, pyPackage)),
    ],
    fixtureRegister,
    "t",
  );

  it("views a package as registry, name@version linking to its registry page, language; none without one", () => {
    expect(packageView(withPackage(pass, javaPackage))).toEqual({
      ...javaPackage,
      url: "https://central.sonatype.com/artifact/io.modelcontextprotocol.sdk/mcp/2.0.1",
    });
    expect(packageView(pass)).toBeUndefined();
  });

  it("the index: a package column per relay, a language on each relay's row and matrix column", () => {
    const row = (name: string) =>
      pages.index.match(new RegExp(`<tr class="relay" data-relay="${name}"[^]*?</tr>`))![0];
    expect(row("java-relay")).toContain('data-language="java"');
    expect(row("java-relay")).toContain(
      '<span class="registry">maven</span> <a href="https://central.sonatype.com/artifact/io.modelcontextprotocol.sdk/mcp/2.0.1">io.modelcontextprotocol.sdk:mcp@2.0.1</a> <span class="language">java</span>',
    );
    expect(row("py-relay")).toContain(
      '<a href="https://pypi.org/project/fastmcp/4.0.10/">fastmcp@4.0.10</a>',
    );
    // No package: an empty cell, never "undefined" or an empty link.
    expect(row("plain")).toContain('data-language=""');
    expect(row("plain")).toContain('<td class="package"></td>');
    expect(pages.index).not.toContain("undefined");
    expect(pages.index).toContain('<th class="relay-column" data-language="java">java-relay</th>');
    const javaCells =
      pages.index.match(/<td class="cell[^"]*" data-status="[^"]+" data-language="java"/g) ?? [];
    expect(javaCells.length).toBe(pages.index.match(/<tr class="line"/g)!.length);
  });

  it("the language filter offers the relays' languages, once each, sorted; none when no relay names a package", () => {
    expect(pages.index).toContain(
      '<select id="filter-language" name="language"><option value="">every language</option><option value="java">java</option><option value="python">python</option></select>',
    );
    expect(pages.index).toContain('<label>language <select id="filter-language"');
    const bare = renderSite([relay("plain", pass)], fixtureRegister, "t");
    expect(bare.index).not.toContain('<select id="filter-language"');
    expect(bare.index).toContain('<td class="package"></td>');
  });

  it("each relay's page shows its package, and a relay without one shows no package entry", () => {
    expect(pages.relays["java-relay"]).toContain(
      '<dt>package</dt><dd class="package"><span class="registry">maven</span> <a href="https://central.sonatype.com/artifact/io.modelcontextprotocol.sdk/mcp/2.0.1">io.modelcontextprotocol.sdk:mcp@2.0.1</a> <span class="language">java</span></dd>',
    );
    expect(pages.relays.plain).not.toContain("<dt>package</dt>");
    expect(pages.relays.plain).not.toContain("undefined");
  });
});
