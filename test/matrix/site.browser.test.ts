/**
 * The report site (`mcpx-conform site`, issue #23) in a real browser: Debian's chromium driven by playwright-core, as
 * matrix.html is. The site is built by the command's own function from the fixture results (two relays, one with
 * previous results to compare with); its index and relay pages must load with no console error, no page error and no
 * network, and the filters must change what is shown. When /usr/bin/chromium is missing this test FAILS, it never
 * skips.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { site } from "../../src/cli/site.ts";
import type { Results } from "../../src/model/results.ts";
import { CHROMIUM, launchChromium, missingChromium, openWatched, type Watch } from "../helpers/chromium.ts";
import { FAIL_RESULTS, FIXTURE_REGISTER, PASS_RESULTS } from "./helpers.ts";

const MISSING = missingChromium("the site's browser test");

let work: string;
let out: string;
let outLanguages: string;
let launched: BrowserContext | undefined;
/** The cells of the failing fixture whose status the previous results had otherwise. */
let changedInFail = 0;

function context(): BrowserContext {
  if (!existsSync(CHROMIUM)) throw new Error(MISSING);
  if (!launched) throw new Error("chromium did not start (see the beforeAll error)");
  return launched;
}

function open(path: string, query = ""): Promise<{ page: Page; watch: Watch }> {
  return openWatched(context(), path, query);
}

/** What the matrix shows: the visible rows' era, level and cell statuses. */
async function visibleLines(page: Page) {
  return page.$$eval("#matrix-table tr.line", (rows) =>
    rows
      .filter((r) => getComputedStyle(r).display !== "none")
      .map((r) => ({
        era: (r as HTMLElement).dataset.era!,
        level: (r as HTMLElement).dataset.level!,
        statuses: Array.from(r.querySelectorAll("td.cell")).map((td) => (td as HTMLElement).dataset.status!),
      })),
  );
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mcpx-conform-site-"));
  out = join(work, "site");
  // Two relays, named by their folders (as matrix/targets/<relay>/ are): the fixtures' results and evidence.
  const previous = join(work, "previous");
  const fail = JSON.parse(readFileSync(FAIL_RESULTS, "utf8")) as Results;
  const before = {
    ...fail,
    cells: fail.cells.map((c) => ({ ...c, status: c.status === "fail" ? "pass" : c.status })),
  };
  changedInFail = fail.cells.filter((c) => c.status === "fail").length;
  mkdirSync(join(previous, "fail"), { recursive: true });
  writeFileSync(join(previous, "fail", "results.json"), JSON.stringify(before));
  const errors: string[] = [];
  site(
    {
      out,
      results: [dirname(PASS_RESULTS), dirname(FAIL_RESULTS)],
      previous,
      register: FIXTURE_REGISTER,
      title: "Fixture relays",
    },
    { stdout: () => undefined, stderr: (t) => errors.push(t), cwd: work, isTTY: false },
  );
  // A second site whose relays name packages: a Java one, a Python one, and one without a package.
  outLanguages = join(work, "site-languages");
  const withPackage = (name: string, results: Results, pkg: Results["target"]["package"]) => {
    mkdirSync(join(work, "languages", name), { recursive: true });
    const target = { ...results.target, ...(pkg ? { package: pkg } : {}) };
    writeFileSync(join(work, "languages", name, "results.json"), JSON.stringify({ ...results, target }));
    return join(work, "languages", name);
  };
  const pass = JSON.parse(readFileSync(PASS_RESULTS, "utf8")) as Results;
  site(
    {
      out: outLanguages,
      results: [
        withPackage("plain", pass, undefined),
        withPackage("java-relay", fail, {
          registry: "maven",
          name: "io.modelcontextprotocol.sdk:mcp",
          version: "2.0.1",
          language: "java",
        }),
        withPackage("py-relay", pass, {
          registry: "pypi",
          name: "fastmcp",
          version: "4.0.10",
          language: "python",
        }),
      ],
      register: FIXTURE_REGISTER,
      title: "Relays by language",
    },
    { stdout: () => undefined, stderr: (t) => errors.push(t), cwd: work, isTTY: false },
  );
  launched = await launchChromium(work);
});

afterAll(async () => {
  await launched?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the report site in chromium", () => {
  it(`needs ${CHROMIUM}`, () => {
    expect(existsSync(CHROMIUM), MISSING).toBe(true);
  });

  it("the index loads with no console error, no page error and no network; every row is shown at first", async () => {
    const { page, watch } = await open(join(out, "index.html"));
    const total = await page.locator("#matrix-table tr.line").count();
    expect(total).toBeGreaterThan(10);
    expect(await page.textContent("#shown")).toBe(`${total} of ${total} rows shown`);
    expect(await page.locator("table.site >> nth=0").locator("tbody tr").count()).toBe(2);
    expect(await page.textContent('tr[data-relay="fail"]')).toContain(String(changedInFail));
    expect(await page.textContent('tr[data-relay="pass"]')).toContain("no previous results for this relay");
    expect(watch.problems).toEqual([]);
    expect(watch.requests.every((u) => u.startsWith("file://"))).toBe(true);
    await page.close();
  });

  it("the era, level and status filters change what is shown, and combine", async () => {
    const { page, watch } = await open(join(out, "index.html"));
    const all = await visibleLines(page);
    await page.selectOption("#filter-era", "2026-07-28");
    const era = await visibleLines(page);
    expect(era.length).toBeGreaterThan(0);
    expect(era.length).toBeLessThan(all.length);
    expect(era.every((l) => l.era === "2026-07-28")).toBe(true);
    expect(era.length).toBe(all.filter((l) => l.era === "2026-07-28").length);
    expect(await page.textContent("#shown")).toBe(`${era.length} of ${all.length} rows shown`);

    await page.selectOption("#filter-level", "MUST");
    const must = await visibleLines(page);
    expect(must.length).toBeGreaterThan(0);
    expect(must.length).toBeLessThan(era.length);
    expect(must.every((l) => l.level === "MUST" && l.era === "2026-07-28")).toBe(true);

    await page.selectOption("#filter-level", "");
    await page.selectOption("#filter-status", "fail");
    const failing = await visibleLines(page);
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.length).toBeLessThan(era.length);
    expect(failing.every((l) => l.statuses.includes("fail"))).toBe(true);
    expect(failing.length).toBe(era.filter((l) => l.statuses.includes("fail")).length);
    // The failing cells are marked; no other cell is.
    const marked = await page.$$eval("td.cell.match", (tds) =>
      tds.map((td) => (td as HTMLElement).dataset.status),
    );
    expect(marked.length).toBeGreaterThan(0);
    expect(new Set(marked)).toEqual(new Set(["fail"]));

    await page.selectOption("#filter-era", "");
    await page.selectOption("#filter-status", "");
    expect(await visibleLines(page)).toHaveLength(all.length);
    expect(await page.locator("td.cell.match").count()).toBe(0);
    expect(watch.problems).toEqual([]);
    await page.close();
  });

  it("a filter in the address is applied on load", async () => {
    const { page, watch } = await open(join(out, "index.html"), "?era=2025-11-25&status=partial");
    const lines = await visibleLines(page);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.era === "2025-11-25" && l.statuses.includes("partial"))).toBe(true);
    expect(await page.inputValue("#filter-era")).toBe("2025-11-25");
    expect(watch.problems).toEqual([]);
    await page.close();
  });

  it("a cell opens its relay's page at that cell, whose evidence links reach the copied transcripts", async () => {
    const { page, watch } = await open(join(out, "index.html"));
    const link = page.locator('#matrix-table td.cell[data-status="fail"] a').first();
    const href = (await link.getAttribute("href"))!;
    await link.click();
    await page.waitForURL(/relays\/fail\.html#/);
    const anchor = decodeURIComponent(href.slice(href.indexOf("#") + 1));
    expect(await page.locator(`[id="${anchor}"]`).getAttribute("data-status")).toBe("fail");
    const evidence = await page.$$eval("a[href*='/evidence/']", (as) =>
      as.map((a) => (a as HTMLAnchorElement).href),
    );
    expect(evidence.length).toBeGreaterThan(0);
    for (const url of evidence) expect(existsSync(fileURLToPath(url)), url).toBe(true);
    expect(await page.textContent("#changes")).toContain("Changed since the previous refresh");
    expect(await page.locator("ul.changes li").count()).toBe(changedInFail);
    expect(watch.problems).toEqual([]);
    await page.close();
  });

  it("each relay page loads with no console error; a relay without history says so", async () => {
    for (const name of ["pass", "fail"]) {
      const { page, watch } = await open(join(out, "relays", `${name}.html`));
      expect(await page.locator("table.cells tbody tr").count()).toBeGreaterThan(0);
      if (name === "pass") expect(await page.textContent("#no-history")).toContain("no previous results");
      expect(watch.problems).toEqual([]);
      expect(watch.requests.every((u) => u.startsWith("file://"))).toBe(true);
      await page.close();
    }
  });

  it("screenshots the index at 1400 px (MCPX_CONFORM_SCREENSHOTS=DIR writes site-1400.png there)", async () => {
    const { page } = await open(join(out, "index.html"));
    await page.setViewportSize({ width: 1400, height: 900 });
    const dir = process.env.MCPX_CONFORM_SCREENSHOTS ? resolve(process.env.MCPX_CONFORM_SCREENSHOTS) : work;
    await page.screenshot({ path: join(dir, "site-1400.png") });
    expect(existsSync(join(dir, "site-1400.png"))).toBe(true);
    await page.close();
  });

  it("the language filter shows only that language's relays, in the relays table and the matrix; keyboard too", async () => {
    const { page, watch } = await open(join(outLanguages, "index.html"));
    const shownRelays = () =>
      page.$$eval("#relays-table tr.relay", (rows) =>
        rows
          .filter((r) => getComputedStyle(r).display !== "none")
          .map((r) => (r as HTMLElement).dataset.relay),
      );
    const shownColumns = () =>
      page.$$eval("#matrix-table th.relay-column", (ths) =>
        ths.filter((t) => getComputedStyle(t).display !== "none").map((t) => t.textContent),
      );
    const shownCells = () =>
      page.$$eval("#matrix-table tr.line", (rows) =>
        rows
          .filter((r) => getComputedStyle(r).display !== "none")
          .flatMap((r) => Array.from(r.querySelectorAll("td.cell")))
          .filter((td) => getComputedStyle(td).display !== "none")
          .map((td) => (td as HTMLElement).dataset.language),
      );
    expect(await shownRelays()).toEqual(["plain", "java-relay", "py-relay"]);
    expect(await page.textContent('tr[data-relay="java-relay"] td.package')).toBe(
      "maven io.modelcontextprotocol.sdk:mcp@2.0.1 java",
    );
    expect(await page.getAttribute('tr[data-relay="py-relay"] td.package a', "href")).toBe(
      "https://pypi.org/project/fastmcp/4.0.10/",
    );
    expect(await page.textContent('tr[data-relay="plain"] td.package')).toBe("");

    await page.selectOption("#filter-language", "java");
    expect(await shownRelays()).toEqual(["java-relay"]);
    expect(await shownColumns()).toEqual(["java-relay"]);
    const cells = await shownCells();
    expect(cells.length).toBeGreaterThan(0);
    expect(new Set(cells)).toEqual(new Set(["java"]));
    expect(await page.textContent("#relays-shown")).toBe("1 of 3 relays shown");

    // Keyboard: the select is reached with Tab from the page's start and changed with the arrow keys.
    await page.selectOption("#filter-language", "");
    expect(await shownRelays()).toEqual(["plain", "java-relay", "py-relay"]);
    await page.locator("body").click({ position: { x: 1, y: 1 } });
    for (
      let i = 0;
      i < 5 && (await page.evaluate(() => document.activeElement?.id)) !== "filter-language";
      i++
    )
      await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("filter-language");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    expect(await page.inputValue("#filter-language")).toBe("python");
    expect(await shownRelays()).toEqual(["py-relay"]);
    expect(await shownColumns()).toEqual(["py-relay"]);
    expect(page.url()).toContain("language=python");
    expect(watch.problems).toEqual([]);
    expect(watch.requests.every((u) => u.startsWith("file://"))).toBe(true);
    await page.close();
  });

  it("a language in the address is applied on load; each relay's page names its package, or none", async () => {
    const { page, watch } = await open(join(outLanguages, "index.html"), "?language=python");
    expect(await page.inputValue("#filter-language")).toBe("python");
    expect(await page.locator("#relays-table tr.relay:visible").count()).toBe(1);
    await page.close();
    const java = await open(join(outLanguages, "relays", "java-relay.html"));
    expect(await java.page.textContent("dd.package")).toBe(
      "maven io.modelcontextprotocol.sdk:mcp@2.0.1 java",
    );
    expect(java.watch.problems).toEqual([]);
    await java.page.close();
    const plain = await open(join(outLanguages, "relays", "plain.html"));
    expect(await plain.page.locator("dd.package").count()).toBe(0);
    expect(await plain.page.textContent("body")).not.toContain("undefined");
    await plain.page.close();
    expect(watch.problems).toEqual([]);
  });
});
