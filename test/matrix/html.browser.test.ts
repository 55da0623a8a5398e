/**
 * matrix.html in a real browser: Debian's chromium driven by playwright-core. CI must install chromium
 * (`apt-get install -y chromium`); when /usr/bin/chromium is missing this test FAILS, it never skips.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEvidences, loadResults } from "../../src/cli/render.ts";
import { renderHtml } from "../../src/matrix/html.ts";
import { DEFAULT_REGISTER, loadRegister } from "../../src/model/load.ts";
import { CHROMIUM, launchChromium, missingChromium, openWatched, type Watch } from "../helpers/chromium.ts";
import {
  fixture,
  loadFixtureRegister,
  PWN_ATTR,
  PWN_ERROR_CASE,
  PWN_ERROR_CELL,
  PWN_ERROR_MESSAGE,
  PWN_MODEL,
  PWN_MODEL_CASE,
  PWN_MODEL_CELL,
  PWN_SCRIPT,
  relayPayloadFixture,
  XSS_IMG,
  XSS_SCRIPT,
} from "./helpers.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const MISSING = missingChromium("the matrix.html browser test");

const register = loadFixtureRegister();
let work: string;
let launched: BrowserContext | undefined;

/** The browser; every test fails with a clear message when chromium is not installed. */
function context(): BrowserContext {
  if (!existsSync(CHROMIUM)) throw new Error(MISSING);
  if (!launched) throw new Error("chromium did not start (see the beforeAll error)");
  return launched;
}

async function open(html: string, name: string, hash = ""): Promise<{ page: Page; watch: Watch }> {
  const file = join(work, name);
  writeFileSync(file, html);
  return openWatched(context(), file, hash);
}

const sentinel = (page: Page) =>
  page.evaluate(() => (window as unknown as { __mcpxPwned?: unknown }).__mcpxPwned);

const XSS_CELL = "sampling-both-validate-message-content|2025-11-25|server";

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mcpx-conform-html-"));
  launched = await launchChromium(work); // none: each test then fails with MISSING
});

afterAll(async () => {
  await launched?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("matrix.html in chromium", () => {
  it(`needs ${CHROMIUM}`, () => {
    expect(existsSync(CHROMIUM), MISSING).toBe(true);
  });

  it("loads with no console errors, no page errors, no network and no dialogs (both fixtures)", async () => {
    for (const which of ["pass", "fail"] as const) {
      const { results, evidences } = fixture(which);
      const { page, watch } = await open(renderHtml(results, register, evidences), `${which}.html`);
      expect(await page.locator("button.cell").count()).toBe(results.cells.length);
      expect(await page.textContent("#shown")).toBe(
        `${results.cells.length} of ${results.cells.length} cells shown`,
      );
      expect(await page.title()).toContain(results.target.name);
      expect(watch.problems).toEqual([]);
      expect(watch.dialogs).toEqual([]);
      expect(watch.requests.every((u) => u.startsWith("file://"))).toBe(true);
      expect(watch.requests).toHaveLength(1);
      await page.close();
    }
  });

  it("a cell click shows its transcript at both ends, the verdict, its checks and the rule quote", async () => {
    const { results, evidences } = fixture("fail");
    const { page, watch } = await open(renderHtml(results, register, evidences), "click.html");
    expect(await page.isVisible("#viewer")).toBe(false);
    await page.click(`button.cell[data-cell="${XSS_CELL}"]`);
    expect(await page.isVisible("#viewer")).toBe(true);
    expect(await page.getAttribute(`button.cell[data-cell="${XSS_CELL}"]`, "aria-pressed")).toBe("true");
    expect(await page.textContent("#v-title")).toBe(
      "fail sampling-both-validate-message-content @ 2025-11-25 (server)",
    );
    expect(await page.textContent("#v-quote")).toBe("Both parties SHOULD validate message content");
    const transcript = page.locator("table.transcript");
    expect(await transcript.locator("thead th").allTextContents()).toEqual([
      "t (ms)",
      "upstream end (harness server and relay)",
      "downstream end (relay and answerer)",
    ]);
    const ev =
      evidences[results.cells.find((c) => `${c.row}|${c.era}|${c.side}` === XSS_CELL)!.cases[0]!.evidence!]!;
    expect(await transcript.locator("tbody tr").count()).toBe(ev.frames.length);
    const up = transcript.locator('tbody tr[data-end="upstream"]');
    const down = transcript.locator('tbody tr[data-end="downstream"]');
    expect(await up.count()).toBe(ev.frames.filter((f) => f.end === "upstream").length);
    expect(await down.count()).toBe(ev.frames.filter((f) => f.end === "downstream").length);
    // upstream frames sit in the upstream column, downstream frames in the downstream one
    expect((await up.first().locator("td").nth(1).textContent())!).toContain("upstream → relay");
    expect(await up.first().locator("td").nth(2).textContent()).toBe("");
    expect((await down.first().locator("td").nth(2).textContent())!).toContain("relay → downstream");
    expect(await down.first().locator("td").nth(1).textContent()).toBe("");
    const ts = (await transcript.locator("tbody td.t").allTextContents()).map(Number);
    expect(ts).toEqual([...ts].sort((a, b) => a - b));
    const detail = (await page.textContent("#v-case"))!;
    expect(detail).toContain("verdict: fail");
    expect(detail).toContain("refusedfaileddelivered");
    expect(watch.problems).toEqual([]);
    await page.close();
  });

  it("relay text with <script>, <img onerror> and </script> is shown as text and never runs", async () => {
    const { results, evidences } = fixture("fail");
    const { page, watch } = await open(renderHtml(results, register, evidences), "xss.html");
    for (const key of [XSS_CELL, "sampling-both-validate-message-content|2026-07-28|server"]) {
      await page.click(`button.cell[data-cell="${key}"]`);
      const text = (await page.textContent("#v-case"))!;
      expect(text).toContain(XSS_SCRIPT);
      expect(text).toContain(XSS_IMG);
      expect(text).toContain("</script><script>window.__mcpxPwned=3;alert(1)</script>");
    }
    expect(await sentinel(page)).toBeUndefined();
    expect(watch.dialogs).toEqual([]);
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.locator("script").count()).toBe(4);
    expect(watch.problems).toEqual([]);
    await page.close();
  });

  it("a relay's error message and a result's model name are shown as text and never run (with and without CSP)", async () => {
    const { results, evidences } = relayPayloadFixture();
    const html = renderHtml(results, register, evidences);
    const noCsp = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "");
    expect(noCsp).not.toContain("Content-Security-Policy");
    for (const [name, page_html] of [
      ["pwn.html", html],
      ["pwn-no-csp.html", noCsp],
    ] as const) {
      const { page, watch } = await open(page_html, name);
      const pwned = () => page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned);
      expect(await pwned()).toBeUndefined();
      for (const [cell, id, shown] of [
        [PWN_ERROR_CELL, PWN_ERROR_CASE, PWN_ERROR_MESSAGE],
        [PWN_MODEL_CELL, PWN_MODEL_CASE, PWN_MODEL],
      ] as const) {
        await page.click(`button.cell[data-cell="${cell}"]`);
        await page.click(`#v-cases button[data-case="${id}"]`);
        expect(await page.textContent("#v-case h3")).toContain(id);
        const text = (await page.textContent("#v-case"))!;
        // the transcript, the observation, the reason and the checks each show it, as text
        expect(text.split(shown).length - 1, `${cell}: ${id}`).toBeGreaterThanOrEqual(3);
        expect(await page.textContent("#v-note")).toContain(shown);
        expect(text).toContain(PWN_SCRIPT);
        expect(text).toContain(PWN_ATTR);
      }
      await page.waitForTimeout(200);
      expect(await pwned(), name).toBeUndefined();
      expect(watch.dialogs).toEqual([]);
      expect(await page.locator("img").count()).toBe(0);
      expect(watch.requests).toHaveLength(1);
      await page.close();
    }
  });

  it("stays safe without its Content-Security-Policy: escaping and textContent alone keep the payload inert", async () => {
    const { results, evidences } = fixture("fail");
    const html = renderHtml(results, register, evidences).replace(
      /<meta http-equiv="Content-Security-Policy"[^>]*>/,
      "",
    );
    expect(html).not.toContain("Content-Security-Policy");
    const { page, watch } = await open(html, "no-csp.html");
    await page.click(`button.cell[data-cell="${XSS_CELL}"]`);
    await page.click(`button.cell[data-cell="sampling-both-validate-message-content|2026-07-28|server"]`);
    await page.waitForTimeout(200);
    expect(await sentinel(page)).toBeUndefined();
    expect(watch.dialogs).toEqual([]);
    expect(await page.locator("img").count()).toBe(0);
    expect(watch.requests).toHaveLength(1);
    await page.close();
  });

  it("filters by era, status and side; cases within a cell; deep links", async () => {
    const { results, evidences } = fixture("fail");
    const html = renderHtml(results, register, evidences);
    const { page, watch } = await open(html, "filters.html");
    const total = results.cells.length;
    await page.selectOption("#f-era", "2025-11-25");
    const inEra = results.cells.filter((c) => c.era === "2025-11-25").length;
    expect(await page.textContent("#shown")).toBe(`${inEra} of ${total} cells shown`);
    expect(await page.isVisible('thead th[data-era="2025-06-18"]')).toBe(false);
    await page.selectOption("#f-era", "");
    await page.uncheck('#f-status input[value="fail"]');
    expect(await page.textContent("#shown")).toBe(
      `${results.cells.filter((c) => c.status !== "fail").length} of ${total} cells shown`,
    );
    expect(await page.isVisible('tr[data-row="sampling-human-in-loop-can-deny"]')).toBe(false); // only fails in it
    await page.check('#f-status input[value="fail"]');
    await page.selectOption("#f-side", "server");
    expect(await page.textContent("#shown")).toBe(
      `${results.cells.filter((c) => c.side === "server").length} of ${total} cells shown`,
    );
    expect(await page.locator("#matrix tbody tr:visible").count()).toBe(1);
    await page.selectOption("#f-side", "");

    // A cell with two cases opens on the failing one; the other is one click away.
    await page.click('button.cell[data-cell="sampling-app-view-edit-prompts|2025-11-25|client"]');
    expect(await page.locator("#v-cases button").allTextContents()).toEqual([
      "pass review-shows-system-prompt",
      "fail review-can-edit-messages",
    ]);
    expect(
      await page.getAttribute('#v-cases button[data-case="review-can-edit-messages"]', "aria-pressed"),
    ).toBe("true");
    await page.click('#v-cases button[data-case="review-shows-system-prompt"]');
    expect(await page.textContent("#v-case h3")).toBe("pass review-shows-system-prompt");
    // A case-less cell says why.
    await page.click('button.cell[data-cell="sampling-app-review-ui|2025-06-18|client"]');
    expect(await page.textContent("#v-note")).toContain("recorded gap dezren39/darwin-nix#256");
    await page.keyboard.press("Escape");
    expect(await page.isVisible("#viewer")).toBe(false);
    await page.close();

    const deep = await open(html, "filters.html", `#${encodeURIComponent(XSS_CELL)}`);
    expect(await deep.page.isVisible("#viewer")).toBe(true);
    expect(await deep.page.textContent("#v-title")).toContain("(server)");
    expect([...watch.problems, ...deep.watch.problems]).toEqual([]);
    await deep.page.close();
  });

  it("the selected case is in the URL, and opening that URL selects it again", async () => {
    const { results, evidences } = fixture("fail");
    const html = renderHtml(results, register, evidences);
    const { page, watch } = await open(html, "case-url.html");
    const key = "sampling-app-view-edit-prompts|2025-11-25|client";
    await page.click(`button.cell[data-cell="${key}"]`);
    // opening a cell selects its worst case, and says so in the URL
    expect(new URL(page.url()).hash).toBe(`#${encodeURIComponent(key)}&case=review-can-edit-messages`);
    await page.click('#v-cases button[data-case="review-shows-system-prompt"]');
    const url = page.url();
    expect(new URL(url).hash).toBe(`#${encodeURIComponent(key)}&case=review-shows-system-prompt`);
    await page.close();
    const again = await open(html, "case-url.html", new URL(url).hash);
    expect(await again.page.textContent("#v-case h3")).toBe("pass review-shows-system-prompt");
    expect(
      await again.page.getAttribute(
        '#v-cases button[data-case="review-shows-system-prompt"]',
        "aria-pressed",
      ),
    ).toBe("true");
    expect([...watch.problems, ...again.watch.problems]).toEqual([]);
    await again.page.close();
  });

  it("reads without emoji fonts: each status is its word on its own colour, counts are labelled", async () => {
    const { results, evidences } = fixture("fail");
    const { page, watch } = await open(renderHtml(results, register, evidences), "colours.html");
    await page.click(`button.cell[data-cell="${XSS_CELL}"]`);
    const text = await page.evaluate(() => document.body.innerText);
    expect(text).not.toMatch(/\p{Extended_Pictographic}/u);
    const colours = new Map<string, string>();
    for (const cell of results.cells) {
      const badge = page.locator(`button.cell[data-cell="${cell.row}|${cell.era}|${cell.side}"] .badge`);
      expect(await badge.textContent()).toBe(cell.status);
      const { bg, fg } = await badge.evaluate((el) => {
        const style = getComputedStyle(el);
        return { bg: style.backgroundColor, fg: style.color };
      });
      expect(bg, cell.status).not.toBe("rgba(0, 0, 0, 0)");
      expect(fg).not.toBe(bg);
      colours.set(cell.status, bg);
    }
    // one colour per status, and no two statuses share one
    expect(new Set(colours.values()).size).toBe(colours.size);
    const count = await page
      .locator('button.cell[data-cell="sampling-app-view-edit-prompts|2025-11-25|client"] .count')
      .textContent();
    expect(count).toBe("1 of 2 cases passed");
    expect(watch.problems).toEqual([]);
    await page.close();
  });

  it("one wording for how often the answerer was asked, the cell's own era's spec link, one casing for levels", async () => {
    const { results, evidences } = fixture("fail");
    const lower = structuredClone(register);
    const row = lower.rows.find((r) => r.id === "sampling-both-validate-message-content")!;
    row.level = "should";
    const { page, watch } = await open(renderHtml(results, lower, evidences), "wording.html");
    for (const key of [XSS_CELL, "sampling-app-view-edit-prompts|2025-11-25|client"]) {
      await page.click(`button.cell[data-cell="${key}"]`);
      const detail = (await page.textContent("#v-case"))!;
      const said = detail.match(/the answerer was (asked \(\d+×\)|never asked)/g) ?? [];
      expect(said.length, key).toBeGreaterThan(0);
      expect(detail).not.toContain("time(s)");
      // the check detail and the observation line agree
      const counts = new Set(said);
      expect(counts.size, `${key}: ${[...counts].join(" / ")}`).toBe(1);
    }
    for (const era of ["2025-06-18", "2025-11-25", "2026-07-28"]) {
      await page.click(`button.cell[data-cell="sampling-both-validate-message-content|${era}|server"]`);
      const href = await page.getAttribute("#v-rule a", "href");
      expect(href, era).toContain(`/specification/${era}/`);
      expect(await page.textContent("#v-rule")).toMatch(/^SHOULD · /);
    }
    expect(
      await page
        .locator('tr[data-row="sampling-both-validate-message-content"] .level')
        .first()
        .textContent(),
    ).toBe("SHOULD");
    expect(watch.problems).toEqual([]);
    await page.close();
  });

  it("over its size budget: the page says how many transcripts it embeds, a case without one links its file", async () => {
    const { results, evidences } = fixture("fail");
    const bare = Buffer.byteLength(renderHtml(results, register, {}));
    // Room for a few transcripts only: the failing cases' come first, the error cell's is left out.
    const html = renderHtml(results, register, evidences, bare + 16 * 1024);
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(bare + 16 * 1024);
    const { page, watch } = await open(html, "budget.html");
    const note = page.locator("#embedded-note");
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toMatch(
      /^\d+ of 22 transcripts are embedded in this page \(the worst cases first\); the other \d+ are not, to keep matrix\.html within/,
    );
    const errorCell = results.cells.find((c) => c.status === "error")!;
    await page.click(`button.cell[data-cell="${errorCell.row}|${errorCell.era}|${errorCell.side}"]`);
    const detail = page.locator("#v-case");
    expect(await detail.textContent()).toContain(
      "This transcript is not embedded in the page (matrix.html keeps within its size budget): open its file, linked above.",
    );
    const link = detail.locator("a").first();
    expect(await link.getAttribute("href")).toBe(errorCell.cases[0]!.evidence);
    expect(await page.locator("table.transcript").count()).toBe(0);
    expect(watch.problems).toEqual([]);
    await page.close();
  });

  it("screenshots at 1400 px and 800 px (MCPX_CONFORM_SCREENSHOTS=DIR writes them there, e.g. docs/)", async () => {
    // A real relay's committed matrix, with a failing case open in the viewer.
    const resultsFile = join(ROOT, "matrix/targets/supergateway-stdio-sse/results.json");
    const results = loadResults(resultsFile);
    const { evidences } = loadEvidences(resultsFile, results);
    const html = renderHtml(results, loadRegister(DEFAULT_REGISTER), evidences);
    const failing = results.cells.find(
      (c) => c.status === "fail" && c.cases.some((k) => k.status === "fail"),
    )!;
    const hash = `#${encodeURIComponent(`${failing.row}|${failing.era}|${failing.side}`)}`;
    const out = process.env.MCPX_CONFORM_SCREENSHOTS ? resolve(process.env.MCPX_CONFORM_SCREENSHOTS) : work;
    // 1400 px: the matrix with a failing case open beside it; 800 px: the matrix alone, then the viewer stacked
    // above it at full width (not squeezed beside it).
    for (const width of [1400, 800]) {
      const { page, watch } = await open(html, `shot-${width}.html`);
      await page.setViewportSize({ width, height: 900 });
      if (width === 1400) {
        await page.goto(`${page.url()}${hash}`);
        await page.evaluate(() => window.scrollTo(0, 0));
        expect(await page.isVisible("#viewer")).toBe(true);
      } else {
        const matrix = (await page.locator("#matrix").boundingBox())!;
        expect(matrix.width).toBeGreaterThan(width * 0.8);
      }
      // nothing wider than the window but the tables that scroll inside their own box
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${width} px`).toBeLessThanOrEqual(0);
      const file = join(out, `matrix-${width}.png`);
      const png = await page.screenshot({ path: file });
      expect(png.length).toBeGreaterThan(10_000);
      if (width === 800) {
        await page.click(`button.cell[data-cell="${failing.row}|${failing.era}|${failing.side}"]`);
        const viewer = (await page.locator("#viewer").boundingBox())!;
        const matrix = (await page.locator("#matrix").boundingBox())!;
        expect(viewer.width).toBeGreaterThan(width * 0.8);
        expect(viewer.y).toBeLessThan(matrix.y);
      }
      expect(watch.problems).toEqual([]);
      await page.close();
    }
  });

  it("the comparison page (docs/compare.html) reads at 1400 px; MCPX_CONFORM_SCREENSHOTS=DIR writes compare-1400.png", async () => {
    const html = readFileSync(join(ROOT, "docs/compare.html"), "utf8");
    const { page, watch } = await open(html, "compare.html");
    await page.setViewportSize({ width: 1400, height: 900 });
    expect(await page.locator("table.compare").count()).toBeGreaterThan(1);
    expect(await page.locator("span.badge.s-pass").count()).toBeGreaterThan(10);
    const out = process.env.MCPX_CONFORM_SCREENSHOTS ? resolve(process.env.MCPX_CONFORM_SCREENSHOTS) : work;
    const png = await page.screenshot({ path: join(out, "compare-1400.png") });
    expect(png.length).toBeGreaterThan(10_000);
    expect(watch.problems).toEqual([]);
    await page.close();
  });
});
