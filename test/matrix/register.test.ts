import { describe, expect, it } from "vitest";
import { eraRange, mdQuote, renderRegister, trackingLink } from "../../src/matrix/register-md.ts";
import { fixture, loadFixtureRegister } from "./helpers.ts";

const register = loadFixtureRegister();

describe("renderRegister (register.md)", () => {
  it("matches the committed snapshot", async () => {
    const md = renderRegister(register, [fixture("pass").results, fixture("fail").results]);
    await expect(md).toMatchFileSnapshot("./__snapshots__/register.md.snap");
  });

  it("lists every row with its quote, level, eras and a status column per target", () => {
    const pass = fixture("pass").results;
    const fail = fixture("fail").results;
    const md = renderRegister(register, [pass, fail]);
    const overview = md.split("\n").filter((l) => l.startsWith("| [sampling-"));
    expect(overview).toHaveLength(register.rows.length);
    expect(md).toContain(
      "| row | level | side | eras | reference-relay | mcpx-like &lt;b&gt;relay&lt;/b&gt; |",
    );
    for (const row of register.rows) {
      expect(md).toContain(`\n## ${row.id}\n`);
      expect(md).toContain(`**${row.title.replace(/\|/g, "&#124;")}**`);
    }
    expect(md).toContain("> Allow users to view and edit prompts before sending");
    expect(md).toContain("- **n/a for relays:** a relay runs no model");
    expect(md).toContain("reported as **failure** (an acceptance criterion of dezren39/darwin-nix&#35;256)");
    // per-era table of one row: pass for the reference relay, a gap for the other, — where it did not run
    const section = md.slice(
      md.indexOf("\n## sampling-app-review-ui\n"),
      md.indexOf("\n## sampling-app-view-edit-prompts\n"),
    );
    expect(section).toContain("| 2024-11-05 | ✅ pass | — |");
    expect(section).toContain("| 2025-11-25 | ✅ pass | 🚧 gap |");
    expect(section).toContain(
      "[dezren39/darwin-nix&#35;256](https://github.com/dezren39/darwin-nix/issues/256)",
    );
  });

  it("renders without any results as a plain register", () => {
    const md = renderRegister(register, []);
    expect(md).toContain(`${register.rows.length} rows: 7 apply to relays, 1 do not`);
    expect(md).not.toContain("| era |");
  });

  it("helpers", () => {
    expect(eraRange(["2024-11-05", "2025-03-26", "2025-06-18"])).toBe("2024-11-05 – 2025-06-18");
    expect(eraRange(["2024-11-05", "2025-11-25"])).toBe("2024-11-05, 2025-11-25");
    expect(eraRange(["2025-11-25"])).toBe("2025-11-25");
    expect(trackingLink("a/b#1")).toBe("[a/b&#35;1](https://github.com/a/b/issues/1)");
    expect(trackingLink("see <x>")).toBe("see &lt;x&gt;");
    expect(mdQuote("there **SHOULD** be a <b>human</b> | **")).toBe(
      "there **SHOULD** be a &lt;b&gt;human&lt;/b&gt; &#124; &#42;&#42;",
    );
  });
});
