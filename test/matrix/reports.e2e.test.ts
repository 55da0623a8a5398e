import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEvidences, render } from "../../src/cli/render.ts";
import { parseReporters, REPORTERS, writeReports } from "../../src/matrix/reports.ts";
import { InputError } from "../../src/model/errors.ts";
import { tempDir } from "../helpers/cli.ts";
import {
  FAIL_RESULTS,
  FIXTURE_REGISTER,
  FIXTURES,
  fixture,
  loadFixtureRegister,
  parseXml,
} from "./helpers.ts";

const register = loadFixtureRegister();

describe("writeReports", () => {
  it("writes the selected reporters' files", () => {
    const { results, evidences } = fixture("fail");
    const dir = join(tempDir(), "out");
    const written = writeReports(dir, results, register, evidences, ["md", "pr-comment", "html", "junit"]);
    expect(written.map((p) => p.slice(dir.length + 1))).toEqual([
      "matrix.md",
      "pr-comment.md",
      "matrix.html",
      "junit.xml",
    ]);
    expect(readFileSync(join(dir, "matrix.md"), "utf8")).toContain("# Conformance matrix:");
    expect(readFileSync(join(dir, "pr-comment.md"), "utf8")).toContain("The pull-request comment:");
    expect(readFileSync(join(dir, "matrix.html"), "utf8")).toContain(
      '<script type="application/json" id="evidence">',
    );
    expect(parseXml(readFileSync(join(dir, "junit.xml"), "utf8")).name).toBe("testsuites");
  });

  it("github appends the summary to $GITHUB_STEP_SUMMARY and prints annotations to stdout", () => {
    const { results, evidences } = fixture("fail");
    const dir = tempDir();
    const summary = join(dir, "step-summary.md");
    writeFileSync(summary, "earlier step\n");
    const out: string[] = [];
    const written = writeReports(dir, results, register, evidences, ["github"], {
      env: { GITHUB_STEP_SUMMARY: summary },
      stdout: (t) => out.push(t),
    });
    expect(written).toEqual([summary]);
    const text = readFileSync(summary, "utf8");
    expect(text.startsWith("earlier step\n### mcpx-conform: ")).toBe(true);
    const lines = out.join("").trimEnd().split("\n");
    expect(lines).toHaveLength(10);
    for (const l of lines.slice(0, 9)) expect(l).toMatch(/^::(error|warning) title=/);
    expect(lines[9]).toMatch(/^::notice title=mcpx-conform%3A more problems::…and \d+ more/);
    // Without the variable the summary lands next to the other reports.
    const dir2 = tempDir();
    writeReports(dir2, results, register, evidences, ["github"], { env: {}, stdout: () => {} });
    expect(existsSync(join(dir2, "github-summary.md"))).toBe(true);
  });

  it("reporter names: a list, json accepted (the caller writes it), unknown names are an input error", () => {
    expect(REPORTERS).toEqual(["md", "pr-comment", "html", "junit", "github", "mcpx"]);
    expect(parseReporters("md, json,junit,md")).toEqual(["md", "junit"]);
    expect(parseReporters(["html", "github"])).toEqual(["html", "github"]);
    expect(() => parseReporters("md,pdf")).toThrow(InputError);
    expect(() => writeReports(tempDir(), fixture("pass").results, register, {}, ["nope"])).toThrow(
      /unknown reporter 'nope'/,
    );
  });
});

describe("render command helpers", () => {
  it("loads and verifies evidence, re-rendering next to results.json", () => {
    const dir = tempDir();
    cpSync(join(FIXTURES, "fail"), dir, { recursive: true });
    const logs: string[] = [];
    render(
      {
        results: [join(dir, "results.json")],
        register: FIXTURE_REGISTER,
        registerMd: join(dir, "register.md"),
      },
      (l) => logs.push(l),
    );
    for (const f of ["matrix.md", "pr-comment.md", "matrix.html", "junit.xml", "register.md"])
      expect(existsSync(join(dir, f)), f).toBe(true);
    expect(logs.some((l) => l.startsWith("wrote "))).toBe(true);
  });

  it("--link-base points the markdown reports' evidence links at a URL", () => {
    const dir = tempDir();
    cpSync(join(FIXTURES, "fail"), dir, { recursive: true });
    const base = "https://github.com/o/r/blob/0123abc/matrix/targets/t/";
    render(
      {
        results: [join(dir, "results.json")],
        register: FIXTURE_REGISTER,
        reporter: ["md,pr-comment"],
        linkBase: base,
      },
      () => {},
    );
    for (const f of ["matrix.md", "pr-comment.md"]) {
      const md = readFileSync(join(dir, f), "utf8");
      expect(md, f).toContain(`${base}evidence/`);
      expect(md, f).not.toMatch(/\]\(evidence\/|\]: evidence\//);
    }
  });

  it("a tampered transcript is an input error; a missing one is reported", () => {
    const dir = tempDir();
    cpSync(join(FIXTURES, "fail"), dir, { recursive: true });
    const results = fixture("fail").results;
    const path = results.cells.find((c) => c.cases.length > 0)!.cases[0]!.evidence!;
    writeFileSync(join(dir, path), readFileSync(join(dir, path), "utf8").replace("decline", "accept"));
    expect(() => loadEvidences(join(dir, "results.json"), results)).toThrow(
      /does not match .* recorded in results.json/,
    );
    const dir2 = tempDir();
    cpSync(join(FIXTURES, "fail"), dir2, { recursive: true });
    writeFileSync(join(dir2, path), "");
    expect(() =>
      loadEvidences(join(dir2, "results.json"), {
        ...results,
        cells: results.cells.map((c) => ({
          ...c,
          cases: c.cases.map((k) => ({ ...k, evidenceSha256: undefined })),
        })),
      }),
    ).toThrow(InputError);
    const { evidences, missing } = loadEvidences(join(tempDir(), "results.json"), results);
    expect(Object.keys(evidences)).toEqual([]);
    expect(missing.length).toBe(results.cells.reduce((n, c) => n + c.cases.length, 0));
    const escaping = structuredClone(results);
    escaping.cells[0]!.cases[0]!.evidence = "../../etc/passwd";
    expect(() => loadEvidences(FAIL_RESULTS, escaping)).toThrow(/without '\.\.'/);
  });
});
