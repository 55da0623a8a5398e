import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { goString, MCPX_ROWS, mcpxMark, renderMcpx, revsText } from "../../src/matrix/mcpx.ts";
import { DEFAULT_REGISTER, loadRegister } from "../../src/model/load.ts";
import type { Results } from "../../src/model/results.ts";
import { ROOT } from "../helpers/paths.ts";
import { FAIL_RESULTS, loadFixtureResults, XSS_IMG, XSS_SCRIPT } from "./helpers.ts";

/**
 * The `mcpx` reporter (issue #23): #256's rows as mcpx keeps them, its sampling register's status cells (mcpx.md) and
 * its conformance package's Gap entries (mcpx-gaps.go.txt). Golden files hold the output for a stable run of the
 * reference broker target (test/fixtures/mcpx/reference-broker/results.json, written by test/fixtures/mcpx/build.ts)
 * and for the hand-written failing fixture (test/fixtures/results/fail); `npx vitest run test/matrix/mcpx.test.ts -u`
 * rewrites them after a deliberate change.
 */
const register = loadRegister(DEFAULT_REGISTER);
const BROKER_RESULTS = join(ROOT, "test/fixtures/mcpx/reference-broker/results.json");
const broker = loadFixtureResults(BROKER_RESULTS);
const fail = loadFixtureResults(FAIL_RESULTS);

describe("mcpx reporter: golden output", () => {
  it("for the reference broker (a stable run of targets/reference-broker.yaml over #256's rows)", async () => {
    expect(broker.target.name).toBe("reference-broker");
    expect(broker.stable).toBe(true);
    const { register: md, gaps } = renderMcpx(broker, register);
    await expect(md).toMatchFileSnapshot("./__golden__/mcpx/reference-broker.mcpx.md");
    await expect(gaps).toMatchFileSnapshot("./__golden__/mcpx/reference-broker.mcpx-gaps.go.txt");
  });

  it("for the failing fixture (fail, warn, partial, gap, error and not-run cells)", async () => {
    const { register: md, gaps } = renderMcpx(fail, register);
    await expect(md).toMatchFileSnapshot("./__golden__/mcpx/fail.mcpx.md");
    await expect(gaps).toMatchFileSnapshot("./__golden__/mcpx/fail.mcpx-gaps.go.txt");
  });
});

describe("mcpx reporter: what the cells and entries say", () => {
  it("covers exactly #256's rows, as the tracking file names them", () => {
    const tracking = parseYaml(
      readFileSync(join(ROOT, "matrix/tracking/dezren39-darwin-nix-256.yaml"), "utf8"),
    );
    const named = new Set<string>(
      tracking.bullets.flatMap((b: { rows: Array<string | { row: string }> }) =>
        b.rows.map((r) => (typeof r === "string" ? r.split("@")[0]! : r.row)),
      ),
    );
    expect(new Set(MCPX_ROWS.map((r) => r.row))).toEqual(named);
    expect(named.size).toBe(8);
  });

  it("the register's legend: ✓ pass; partial for partial and gap; ✗ for fail and warn; n/a; the rest not judged", () => {
    expect(
      (["pass", "partial", "gap", "fail", "warn", "n/a", "error", "not-run"] as const).map(mcpxMark),
    ).toEqual(["✓", "partial", "partial", "✗", "✗", "n/a", "not judged", "not judged"]);
  });

  it("writes eras as mcpx writes revisions: a..b when contiguous, else a list", () => {
    expect(revsText(["2025-11-25"])).toBe("2025-11-25");
    expect(revsText(["2025-06-18", "2024-11-05", "2025-03-26"])).toBe("2024-11-05..2025-06-18");
    expect(revsText(["2024-11-05", "2025-11-25"])).toBe("2024-11-05, 2025-11-25");
    expect(revsText([])).toBe("");
  });

  it("a Go string literal for any text (quotes, line breaks, a lone surrogate)", () => {
    expect(goString('say "hi"\n\tnow \\ ✓')).toBe('"say \\"hi\\"\\n\\tnow \\\\ ✓"');
    expect(goString("a\ud800b")).toBe('"a\ufffdb"');
    expect(goString("😀")).toBe('"😀"');
  });

  it("one Gap per row × side recorded partial or failing, Revs its eras; none for passing or unjudged cells", () => {
    expect(renderMcpx(broker, register).gaps).not.toMatch(/^Gap\{/m);
    const { gaps } = renderMcpx(fail, register);
    const entries = gaps.split("\n").filter((l) => l.startsWith("Gap{"));
    const keys = entries.map((l) => /ID: "([^"]+)", Side: (\w+)/.exec(l)!.slice(1).join(" "));
    expect(new Set(keys).size).toBe(keys.length);
    const failing = new Set(
      fail.cells
        .filter((c) => ["fail", "warn", "partial", "gap"].includes(c.status))
        .map((c) => `${c.row} ${c.side}`),
    );
    expect(new Set(keys.map((k) => k.replace(/ (\w)/, (_, s: string) => ` ${s.toLowerCase()}`)))).toEqual(
      failing,
    );
    for (const entry of entries)
      expect(entry).toMatch(
        /^Gap\{ID: "[a-z0-9-]+", Side: (Client|Server), Revs: \[\]string\{"\d{4}-\d{2}-\d{2}"(, "\d{4}-\d{2}-\d{2}")*\}, Issue: "#256", Why: "(?:[^"\\]|\\.)+"\}, \/\/ [^\n]+$/,
      );
    // An era that was not judged (error, not-run) is in no entry's Revs.
    const approval = entries.find((l) => l.includes('"sampling-client-user-approval-controls"'))!;
    expect(approval).toContain('Revs: []string{"2025-06-18", "2025-11-25"}');
  });

  it("a row mcpx's catalogue lacks is written commented out, once per side mcpx has", () => {
    const cells = [
      {
        row: "sampling-relay-expiry-reported",
        era: "2025-11-25" as const,
        side: "intermediary" as const,
        status: "warn" as const,
        cases: [{ id: "no-answer-expires", status: "warn" as const, reason: "no expiry reported" }],
      },
    ];
    const { gaps } = renderMcpx({ ...fail, cells } as Results, register);
    const lines = gaps.split("\n").filter((l) => l.includes("Gap{"));
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(/^\/\/ not in mcpx's catalogue/);
    expect(lines.map((l) => /Side: (\w+)/.exec(l)![1])).toEqual(["Client", "Server"]);
    expect(gaps).toContain("0 entries, and 2 commented out");
  });

  it("shows relay-provided text as text in mcpx.md, and keeps the Go file one entry a line", () => {
    const { register: md, gaps } = renderMcpx(fail, register);
    expect(md).not.toContain(XSS_SCRIPT);
    expect(md).not.toContain(XSS_IMG.slice(0, 20));
    expect(md).not.toContain("<b>relay</b>");
    for (const line of gaps.split("\n")) if (line) expect(line).toMatch(/^(\/\/|Gap\{)/);
  });
});
