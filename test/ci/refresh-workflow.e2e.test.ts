import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { Results } from "../../src/model/results.ts";
import { ROOT, tempDir } from "../helpers/cli.ts";
import { readOutputs } from "../helpers/step-outputs.ts";
import { FIXTURES } from "../matrix/helpers.ts";

/**
 * docs/ci.md's scheduled refresh (issue #23), run without GitHub: its steps in order in a clone-like project (a git
 * repository with matrix/targets/<relay>/ committed and this checkout as the installed package), with a changed cell
 * (or none) in place of `npm run matrix:refresh`, which needs the real relays. The site step runs as the runner would
 * (bash -eo pipefail, GITHUB_OUTPUT); the pull-request step runs exactly when a cell changed, with the site's
 * changes.md as its body; after the merge, the publish job builds the site Pages serves.
 */

interface Step {
  id?: string;
  if?: string;
  run?: string;
  uses?: string;
  with?: Record<string, string | number>;
}

interface Workflow {
  on: { schedule: Array<{ cron: string }>; workflow_dispatch: unknown; push: { paths: string[] } };
  jobs: Record<string, { if: string; steps: Step[]; permissions: Record<string, string> }>;
}

function workflow(): Workflow {
  const doc = readFileSync(join(ROOT, "docs/ci.md"), "utf8");
  const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const block = blocks.find((b) => b.includes("npm run matrix:refresh"));
  expect(block, "docs/ci.md has the refresh workflow").toBeDefined();
  // test/ci/workflow.e2e.test.ts reads the first workflow that uses the packaged action: this one must not be it.
  expect(blocks.findIndex((b) => b.includes("uses: ./node_modules/mcpx-conform"))).toBeLessThan(
    blocks.indexOf(block!),
  );
  return parseYaml(block!) as Workflow;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd,
    encoding: "utf8",
  });

/** A clone: a git repository with the failing fixture's matrix committed and the package installed. */
function clone(): string {
  const dir = tempDir("mcpx-conform-refresh-");
  mkdirSync(join(dir, "node_modules/.bin"), { recursive: true });
  symlinkSync(ROOT, join(dir, "node_modules/mcpx-conform"));
  symlinkSync("../mcpx-conform/bin/mcpx-conform.js", join(dir, "node_modules/.bin/mcpx-conform"));
  writeFileSync(join(dir, ".gitignore"), "node_modules/\nsite/\n");
  cpSync(join(FIXTURES, "fail"), join(dir, "matrix/targets/fail"), { recursive: true });
  git(dir, "init", "-q");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "matrices");
  return dir;
}

/** What `npm run matrix:refresh` would do to one relay whose verdict changed: one failing cell now passes. */
function refreshWithAChangedCell(dir: string): void {
  const file = join(dir, "matrix/targets/fail/results.json");
  const results = JSON.parse(readFileSync(file, "utf8")) as Results;
  results.cells.find((c) => c.status === "fail")!.status = "pass";
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}

/** `${{ steps.ID.outputs.NAME != 'V' }}` and `${{ … }}` in titles, as the runner fills them in. */
function expand(text: string, outputs: Record<string, Record<string, string>>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, expr: string) => {
    const cmp = /^steps\.([\w-]+)\.outputs\.([\w-]+) != '([^']*)'$/.exec(expr);
    if (cmp) return String((outputs[cmp[1]!]?.[cmp[2]!] ?? "") !== cmp[3]);
    const out = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr);
    if (out) return outputs[out[1]!]?.[out[2]!] ?? "";
    throw new Error(`expression the test cannot evaluate: ${expr}`);
  });
}

function bash(script: string, cwd: string, output: string): void {
  const r = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], {
    cwd,
    env: { ...process.env, GITHUB_OUTPUT: output },
    encoding: "utf8",
  });
  expect(r.status, `${script}\n${r.stdout}${r.stderr}`).toBe(0);
}

/** Runs a job's steps; returns the pull request it opened (title and body), if any. */
function runJob(steps: Step[], dir: string, refresh: () => void) {
  const outputs: Record<string, Record<string, string>> = {};
  let pr: { title: string; body: string } | undefined;
  steps.forEach((step, n) => {
    const uses = step.uses?.replace(/@.*$/, "");
    if (step.if !== undefined && expand(step.if, outputs) !== "true") return;
    if (uses === "actions/checkout") expect(step.with?.["fetch-depth"]).toBe(0);
    else if (
      ["actions/setup-node", "actions/setup-python", "actions/setup-go", "actions/setup-java"].includes(uses!)
    ) {
      // node is this one; python, go and java are the published relays' toolchains, which the refresh alone needs
    } else if (step.run?.trim() === "npm ci")
      expect(existsSync(join(dir, "node_modules/.bin/mcpx-conform"))).toBe(true);
    else if (step.run?.trim() === "npm run test:setup") {
      // The relays' installs (checked above to come before the refresh); this test's relay is a stand-in.
    } else if (step.run?.trim() === "npm run matrix:refresh") refresh();
    else if (step.run !== undefined) {
      const output = join(dir, `.github-output-${n}`);
      bash(step.run, dir, output);
      if (step.id) outputs[step.id] = readOutputs(output);
    } else if (uses === "actions/upload-artifact" || uses === "actions/upload-pages-artifact")
      expect(existsSync(join(dir, String(step.with!.path), "index.html"))).toBe(true);
    else if (uses === "actions/deploy-pages") expect(step.id).toBe("deploy");
    else if (uses === "peter-evans/create-pull-request") {
      expect(existsSync(join(dir, String(step.with!["add-paths"])))).toBe(true);
      pr = {
        title: expand(String(step.with!.title), outputs),
        body: readFileSync(join(dir, String(step.with!["body-path"])), "utf8"),
      };
    } else throw new Error(`a step the test does not know how to run: ${JSON.stringify(step)}`);
  });
  return pr;
}

describe("docs/ci.md's scheduled refresh, step by step", () => {
  const wf = workflow();

  it("runs weekly and on demand, refreshes with the repository's own script and PRs only the matrices", () => {
    expect(wf.on.schedule[0]!.cron.split(/\s+/)).toHaveLength(5);
    expect(wf.on).toHaveProperty("workflow_dispatch");
    expect(wf.on.push.paths).toEqual(["matrix/targets/**"]);
    expect(
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts["matrix:refresh"],
    ).toBeDefined();
    // The relays are installed as the test line installs them, before the refresh runs them.
    const steps = wf.jobs.refresh!.steps.map((s) => s.run?.trim());
    expect(steps.indexOf("npm run test:setup")).toBeGreaterThan(-1);
    expect(steps.indexOf("npm run test:setup")).toBeLessThan(steps.indexOf("npm run matrix:refresh"));
    const pr = wf.jobs.refresh!.steps.find((s) => s.uses?.startsWith("peter-evans/create-pull-request@"));
    expect(pr?.with?.["add-paths"]).toBe("matrix/targets");
    expect(wf.jobs.refresh!.permissions).toEqual({ contents: "write", "pull-requests": "write" });
  });

  it("opens a pull request listing the changed cell when a refresh changed one", () => {
    const dir = clone();
    const pr = runJob(wf.jobs.refresh!.steps, dir, () => refreshWithAChangedCell(dir));
    expect(pr?.title).toBe("Matrix refresh: 1 cells changed");
    expect(pr?.body).toContain("# Matrix refresh: 1 cells changed");
    expect(pr?.body).toMatch(/- `sampling-[a-z-]+` @ \d{4}-\d{2}-\d{2} \((client|server)\): fail → pass/);
    expect(pr?.body).toContain("the last commit that touched it");

    // Merged: the publish job builds the site from the committed matrices, the change still shown.
    git(dir, "commit", "-q", "-am", "Refresh the real-relay matrices");
    runJob(wf.jobs.publish!.steps, dir, () => undefined);
    expect(JSON.parse(readFileSync(join(dir, "site/changes.json"), "utf8")).changed).toBe(1);
  }, 120_000);

  it("opens none when no cell changed", () => {
    const dir = clone();
    const pr = runJob(wf.jobs.refresh!.steps, dir, () => undefined);
    expect(pr).toBeUndefined();
    expect(JSON.parse(readFileSync(join(dir, "site/changes.json"), "utf8")).changed).toBe(0);
  }, 120_000);
});
