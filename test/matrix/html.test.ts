import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { jsonForScript } from "../../src/matrix/escape.ts";
import { evidenceView, renderHtml } from "../../src/matrix/html.ts";
import { EvidenceSchema } from "../../src/model/evidence.ts";
import type { Results } from "../../src/model/results.ts";
import { fixture, loadFixtureRegister, XSS_BREAKOUT, XSS_IMG, XSS_SCRIPT } from "./helpers.ts";

const register = loadFixtureRegister();

function scripts(html: string): Array<{ attrs: string; body: string }> {
  return [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({
    attrs: m[1]!,
    body: m[2]!,
  }));
}

describe("renderHtml (matrix.html), statically", () => {
  const { results, evidences } = fixture("fail");
  const html = renderHtml(results, register, evidences);

  it("is one self-contained page: no external resource, a CSP that allows only its own script and style", () => {
    // The markup outside the JSON data blocks (inside them, text is data, checked below).
    const markup = html.replace(/<script type="application\/json"[^>]*>[\s\S]*?<\/script>/g, "");
    expect(markup).not.toMatch(/<(link|img|iframe|object|embed)\b/i);
    expect(markup).not.toMatch(/\b(src|srcset)=/i);
    expect(markup).not.toMatch(/https?:\/\/(?!modelcontextprotocol\.io\/specification\/)/);
    // The attribute is HTML-escaped (base64 '=' padding arrives as &#x3D;); the browser decodes it.
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/
      .exec(html)![1]!
      .replace(/&#x3D;/g, "=");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'none'");
    const code = scripts(html).filter((s) => !s.attrs.includes("application/json"));
    expect(code).toHaveLength(1);
    const hash = createHash("sha256").update(code[0]!.body, "utf8").digest("base64");
    expect(csp).toContain(`script-src 'sha256-${hash}'`);
    const css = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(csp).toContain(`style-src 'sha256-${createHash("sha256").update(css, "utf8").digest("base64")}'`);
    expect(markup).not.toMatch(/\son[a-z]+=/i); // no inline event handlers
  });

  it("embeds what the viewer shows of each referenced transcript, as JSON that cannot close its script element", () => {
    const data = scripts(html).filter((s) => s.attrs.includes("application/json"));
    expect(data.map((s) => s.attrs.trim())).toEqual([
      'type="application/json" id="matrix-data"',
      'type="application/json" id="evidence"',
      'type="application/json" id="checks"',
    ]);
    for (const s of data) {
      expect(s.body).not.toContain("<");
      expect(s.body).not.toContain(">");
    }
    const embedded = JSON.parse(data[1]!.body);
    const views = Object.fromEntries(Object.entries(evidences).map(([path, e]) => [path, evidenceView(e)]));
    expect(embedded).toEqual(JSON.parse(JSON.stringify(views)));
    // Every transcript fits: the page says nothing about leaving any out.
    expect(html).not.toContain('id="embedded-note"');
    expect(JSON.stringify(embedded)).toContain(XSS_BREAKOUT);
    const matrix = JSON.parse(data[0]!.body);
    expect(Object.keys(matrix.cells)).toHaveLength(results.cells.length);
    // The check catalogue, so the viewer can say what each check proves.
    expect(JSON.parse(data[2]!.body)).toHaveProperty(["error-code", "proves"]);
  });

  it("never carries relay text as markup", () => {
    expect(html).not.toContain(XSS_SCRIPT);
    expect(html).not.toContain(XSS_IMG);
    expect(html).not.toContain("</script><script>");
    expect(html).toContain("mcpx-like &lt;b&gt;relay&lt;/b&gt;");
    expect(html.match(/<script/g)).toHaveLength(4);
  });

  it("renders one button per cell with its status, and filters for era, status and side", () => {
    expect(html.match(/<button type="button" class="cell" /g)).toHaveLength(results.cells.length);
    for (const era of results.eras!) expect(html).toContain(`<option value="${era}">${era}</option>`);
    expect(html).toContain('<option value="server">server</option>');
    for (const s of ["fail", "error", "partial", "gap", "warn", "not-run", "n/a"])
      expect(html).toContain(`<input type="checkbox" value="${s}" checked>`);
  });

  it("reads without emoji fonts: statuses are words on their colour, counts say what they count", () => {
    const markup = html.replace(/<script type="application\/json"[^>]*>[\s\S]*?<\/script>/g, "");
    expect(markup).not.toMatch(/\p{Extended_Pictographic}/u);
    for (const cell of results.cells) {
      const key = `${cell.row}|${cell.era}|${cell.side}`;
      const button = new RegExp(
        `<button type="button" class="cell" data-cell="${key.replace(/[|]/g, "\\|")}"[^>]*>(.*?)</button>`,
      ).exec(html);
      expect(button, key).not.toBeNull();
      const cls = `s-${cell.status.replace(/[^a-z-]/g, "")}`;
      expect(button![1]).toContain(`<span class="badge ${cls}">${cell.status}</span>`);
      const passed = cell.cases.filter((c) => c.status === "pass").length;
      if (cell.cases.length > 0)
        expect(button![1]).toContain(
          `<span class="count">${passed} of ${cell.cases.length} case${cell.cases.length === 1 ? "" : "s"} passed</span>`,
        );
      else expect(button![1]).not.toContain('class="count"');
    }
    // every status class has a background colour in the stylesheet
    const css = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    for (const s of ["pass", "fail", "warn", "partial", "gap", "error", "na", "not-run", "skip"])
      expect(css).toMatch(new RegExp(`\\.badge\\.s-${s}[^{]*\\{[^}]*background: var\\(--`));
  });

  it("gives each cell its own era's spec link and levels in one casing", () => {
    const lower = structuredClone(register);
    lower.rows[0]!.level = "should";
    const page = renderHtml(results, lower, evidences);
    const data = JSON.parse(scripts(page).find((s) => s.attrs.includes('id="matrix-data"'))!.body);
    for (const cell of results.cells) {
      const { specUrl } = data.cells[`${cell.row}|${cell.era}|${cell.side}`];
      expect(specUrl, `${cell.row}@${cell.era}`).toContain(`/specification/${cell.era}/`);
    }
    expect(data.rows[lower.rows[0]!.id].level).toBe("SHOULD");
    expect(page).toContain('<span class="level">SHOULD</span>');
    expect(page).not.toMatch(/<span class="level">[a-z]/);
  });

  it("leaves out evidence no case refers to, and renders without any", () => {
    const extra = renderHtml(results, register, {
      ...evidences,
      "evidence/unrelated.json": Object.values(evidences)[0]!,
    });
    expect(extra).not.toContain("evidence/unrelated.json");
    const none = renderHtml(results as Results, register, {});
    expect(none).toContain('<script type="application/json" id="evidence">{}</script>');
  });

  it("jsonForScript escapes what could end or confuse a script element", () => {
    expect(jsonForScript({ a: "</script><!-- & \u2028" })).toBe(
      '{"a":"\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028"}',
    );
    expect(JSON.parse(jsonForScript({ a: "</script>" }))).toEqual({ a: "</script>" });
  });
});

describe("matrix.html keeps within its size budget (5 MB)", () => {
  const { results, evidences } = fixture("fail");
  const embeddedOf = (page: string) =>
    JSON.parse(scripts(page).find((s) => s.attrs.includes('id="evidence"'))!.body) as Record<string, unknown>;
  const bytes = (text: string) => Buffer.byteLength(text, "utf8");
  const full = renderHtml(results, register, evidences);
  const bare = renderHtml(results, register, {});

  it("embeds the worst cases' transcripts first while they fit, says how many it left out, and stays within", () => {
    const paths = Object.keys(evidences);
    // Room for about half of the transcripts.
    const budget = Math.floor((bytes(full) + bytes(bare)) / 2) + 1024;
    const page = renderHtml(results, register, evidences, budget);
    expect(bytes(page)).toBeLessThanOrEqual(budget);
    const embedded = Object.keys(embeddedOf(page));
    expect(embedded.length).toBeGreaterThan(0);
    expect(embedded.length).toBeLessThan(paths.length);
    const note = /<p class="note" id="embedded-note">([^<]*)<\/p>/.exec(page)?.[1];
    const mb = (budget / (1024 * 1024)).toFixed(1);
    expect(note).toBe(
      `${embedded.length} of ${paths.length} transcripts are embedded in this page (the worst cases first); the other ${paths.length - embedded.length} are not, to keep matrix.html within ${mb} MB: a case without one links its file under evidence/.`,
    );
    // Worst first: the fixture has 19 failing cases' transcripts and room for about half of all 22, so only those.
    const statusOf = new Map<string, string>();
    for (const c of results.cells)
      for (const k of c.cases) if (k.evidence) statusOf.set(k.evidence, k.status);
    expect(paths.filter((p) => statusOf.get(p) === "fail").length).toBeGreaterThan(embedded.length);
    for (const p of embedded) expect(statusOf.get(p), p).toBe("fail");
    // Each case still names its transcript's file (the viewer links it, embedded or not).
    const data = JSON.parse(scripts(page).find((s) => s.attrs.includes('id="matrix-data"'))!.body);
    const linked = Object.values(
      data.cells as Record<string, { cases: Array<{ evidence?: string }> }>,
    ).flatMap((c) => c.cases.map((k) => k.evidence));
    for (const p of paths) expect(linked).toContain(p);
  });

  it("with no room for any transcript, embeds none and says so; the page itself still renders", () => {
    const page = renderHtml(results, register, evidences, bytes(bare) + 1100);
    expect(embeddedOf(page)).toEqual({});
    expect(page).toMatch(/<p class="note" id="embedded-note">0 of \d+ transcripts are embedded/);
  });

  it("reads each transcript only when its turn comes (a reader, not a map held in memory)", () => {
    const asked: string[] = [];
    const page = renderHtml(results, register, (path) => {
      asked.push(path);
      return evidences[path];
    });
    expect(page).toBe(full);
    expect(new Set(asked).size).toBe(asked.length);
  });

  it("a transcript cut for its own budget says so in the viewer's data", () => {
    const [path, e] = Object.entries(evidences)[0]!;
    const cut = EvidenceSchema.parse({
      ...e,
      budget: { bytes: 65536, frameBytes: 1024, note: "this transcript was over its size budget" },
    });
    const page = renderHtml(results, register, { ...evidences, [path]: cut });
    expect(embeddedOf(page)[path]).toMatchObject({
      budget: { note: "this transcript was over its size budget" },
    });
  });
});
