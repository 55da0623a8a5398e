import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SiteChanges } from "../../src/matrix/site.ts";
import type { Results } from "../../src/model/results.ts";
import { cliInProcess, tempDir } from "../helpers/cli.ts";
import { FAIL_RESULTS, FIXTURE_REGISTER, FIXTURES } from "../matrix/helpers.ts";

/**
 * `mcpx-conform site` over files (issue #23): the default results (matrix/targets/*), the evidence copied and checked,
 * the badges, and what changed since the previous refresh from git history, degrading to a note without it.
 */

/** A folder laid out as this repository is: matrix/targets/<relay>/ with results.json and evidence. */
function project(relays: Array<"pass" | "fail">): string {
  const dir = tempDir();
  for (const relay of relays)
    cpSync(join(FIXTURES, relay), join(dir, "matrix/targets", relay), { recursive: true });
  return dir;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd,
    encoding: "utf8",
  });

function commitAll(cwd: string, message: string): void {
  git(cwd, "add", "-A");
  git(cwd, "commit", "-q", "-m", message);
}

async function build(cwd: string, ...extra: string[]) {
  const run = await cliInProcess(["site", "--out", "site", "--register", FIXTURE_REGISTER, ...extra], {
    cwd,
  });
  const changes = existsSync(join(cwd, "site/changes.json"))
    ? (JSON.parse(readFileSync(join(cwd, "site/changes.json"), "utf8")) as SiteChanges)
    : undefined;
  return { ...run, changes };
}

/** The failing fixture with one failing cell turned into a pass. */
function flipOne(cwd: string): { row: string; era: string; side: string } {
  const file = join(cwd, "matrix/targets/fail/results.json");
  const results = JSON.parse(readFileSync(file, "utf8")) as Results;
  const cell = results.cells.find((c) => c.status === "fail")!;
  cell.status = "pass";
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return { row: cell.row, era: cell.era, side: cell.side };
}

describe("site: files in, a static site out", () => {
  it("reads every matrix/targets/*/results.json, copies each transcript beside its page and writes a badge per relay", async () => {
    const cwd = project(["pass", "fail"]);
    const { code, stderr, changes } = await build(cwd);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain("index.html, 2 relay pages, 2 badges");
    for (const relay of ["pass", "fail"]) {
      expect(existsSync(join(cwd, "site/relays", `${relay}.html`))).toBe(true);
      const badge = JSON.parse(readFileSync(join(cwd, "site/badges", `${relay}.json`), "utf8"));
      expect(Object.keys(badge)).toEqual(["schemaVersion", "label", "message", "color"]);
      expect(badge.label).toBe("sampling MUST");
    }
    const results = JSON.parse(readFileSync(FAIL_RESULTS, "utf8")) as Results;
    for (const c of results.cells.flatMap((cell) => cell.cases))
      if (c.evidence)
        expect(readFileSync(join(cwd, "site/relays/fail", c.evidence))).toEqual(
          readFileSync(join(FIXTURES, "fail", c.evidence)),
        );
    expect(changes?.relays.map((r) => r.note)).toEqual([
      "no history: the results are not in a git repository",
      "no history: the results are not in a git repository",
    ]);
  });

  it("with no results to read, or a transcript that is not what results.json recorded, it is bad input (exit 2)", async () => {
    const empty = await build(tempDir());
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("--results");
    const cwd = project(["fail"]);
    const results = JSON.parse(
      readFileSync(join(cwd, "matrix/targets/fail/results.json"), "utf8"),
    ) as Results;
    const evidence = results.cells.flatMap((c) => c.cases).find((c) => c.evidence)!.evidence!;
    writeFileSync(join(cwd, "matrix/targets/fail", evidence), "{}");
    const tampered = await build(cwd);
    expect(tampered.code).toBe(2);
    expect(tampered.stderr).toContain("does not match");
  });

  it("changes from git: the commit before the last one that touched results.json; an uncommitted refresh against the last", async () => {
    const cwd = project(["fail"]);
    git(cwd, "init", "-q");
    commitAll(cwd, "first");
    const once = await build(cwd);
    expect(once.changes?.relays[0]?.note).toMatch(
      /^no history: this results\.json was committed once \([0-9a-f]{7}\)/,
    );
    expect(readFileSync(join(cwd, "site/relays/fail.html"), "utf8")).toContain("committed once");

    // A refresh not yet committed (as in the weekly workflow): compared with the last commit.
    const flipped = flipOne(cwd);
    const pending = await build(cwd);
    expect(pending.changes?.changed).toBe(1);
    expect(pending.changes?.relays[0]?.previous).toMatch(/the last commit that touched it$/);
    expect(pending.changes?.relays[0]?.changes).toEqual([{ ...flipped, before: "fail", after: "pass" }]);

    // Committed: compared with the commit before it, so the same change is still shown.
    commitAll(cwd, "refresh");
    const committed = await build(cwd);
    expect(committed.changes?.relays[0]?.previous).toMatch(/the commit before the last one that touched it$/);
    expect(committed.changes?.relays[0]?.changes).toEqual([{ ...flipped, before: "fail", after: "pass" }]);
    expect(readFileSync(join(cwd, "site/changes.md"), "utf8")).toContain(
      `- \`${flipped.row}\` @ ${flipped.era} (${flipped.side}): fail → pass`,
    );

    // A commit that touches other files leaves the comparison where it was.
    writeFileSync(join(cwd, "README"), "x");
    commitAll(cwd, "unrelated");
    expect((await build(cwd)).changes?.changed).toBe(1);
  });

  it("--previous DIR: compares with DIR/<relay>/results.json instead of git, a note for a relay it lacks", async () => {
    const cwd = project(["pass", "fail"]);
    const previous = join(cwd, "before");
    cpSync(join(cwd, "matrix/targets/fail"), join(previous, "fail"), { recursive: true });
    const flipped = flipOne(cwd);
    const { code, changes } = await build(cwd, "--previous", "before");
    expect(code).toBe(0);
    // Relays in folder-name order: fail, pass.
    expect(changes?.relays).toEqual([
      {
        name: "fail",
        previous: join("before", "fail", "results.json"),
        changes: [{ ...flipped, before: "fail", after: "pass" }],
      },
      {
        name: "pass",
        previous: null,
        note: `no previous results for this relay: ${join("before", "pass", "results.json")} does not exist`,
        changes: [],
      },
    ]);
  });

  it("shows the package a results.json names (target.package), linked to its registry page; a relay without one, none", async () => {
    const cwd = project(["pass", "fail"]);
    const file = join(cwd, "matrix/targets/fail/results.json");
    const results = JSON.parse(readFileSync(file, "utf8")) as Results;
    results.target.package = { registry: "crates", name: "some-relay", version: "0.3.1", language: "rust" };
    writeFileSync(file, JSON.stringify(results));
    const { code, stderr } = await build(cwd);
    expect(code, stderr).toBe(0);
    const index = readFileSync(join(cwd, "site/index.html"), "utf8");
    expect(index).toContain('<a href="https://crates.io/crates/some-relay/0.3.1">some-relay@0.3.1</a>');
    expect(index).toContain('<option value="rust">rust</option>');
    expect(readFileSync(join(cwd, "site/relays/fail.html"), "utf8")).toContain("<dt>package</dt>");
    expect(readFileSync(join(cwd, "site/relays/pass.html"), "utf8")).not.toContain("<dt>package</dt>");
  });
});
