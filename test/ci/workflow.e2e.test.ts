import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ROOT, tempDir } from "../helpers/cli.ts";
import { readOutputs } from "../helpers/step-outputs.ts";

/**
 * docs/ci.md's one-paste workflow, run without GitHub (and without `act`): its steps in order, in a project whose
 * node_modules holds this checkout as the installed package. The composite action (`uses: ./node_modules/mcpx-conform`)
 * runs its own `run:` scripts from action.yml with the workflow's inputs, as the runner would (bash -eo pipefail,
 * GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ACTION_PATH); the third-party steps are checked for the files they
 * take. Against the reference relay the job passes; against a broken relay the gate on a required row fails it.
 * Only the run's scope is narrowed (the action's `args` input), so the test takes seconds.
 */

interface Step {
  id?: string;
  if?: string;
  run?: string;
  uses?: string;
  with?: Record<string, string | number>;
  env?: Record<string, string>;
  shell?: string;
}

const ARGS = "--era 2025-11-25 --rows sampling-relay-roundtrip,sampling-both-validate-message-content";

function workflowSteps(): Step[] {
  const doc = readFileSync(join(ROOT, "docs/ci.md"), "utf8");
  const block = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .find((b) => b.includes("uses: ./node_modules/mcpx-conform"));
  expect(block, "docs/ci.md has a workflow that uses the packaged action").toBeDefined();
  const workflow = parseYaml(block!) as { jobs: Record<string, { steps: Step[] }> };
  const jobs = Object.values(workflow.jobs);
  expect(jobs).toHaveLength(1);
  return jobs[0]!.steps;
}

function bash(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    child.on("exit", (code) => resolve({ code: code ?? 1, out }));
  });
}

/** `${{ … }}` as the runner fills it in, for the few expressions the action uses. */
function expand(
  text: string,
  ctx: { inputs: Record<string, string>; steps: Record<string, Record<string, string>> },
) {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, expr: string) => {
    if (expr === "github.run_number") return "7";
    const input = /^inputs\.([\w-]+)$/.exec(expr);
    if (input) return ctx.inputs[input[1]!] ?? "";
    const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr);
    if (output) return ctx.steps[output[1]!]?.[output[2]!] ?? "";
    throw new Error(`expression the test cannot evaluate: ${expr}`);
  });
}

/** Runs a composite action's steps; true when every step succeeded. */
async function runAction(dir: string, given: Record<string, string>, project: string, log: string[]) {
  const action = parseYaml(readFileSync(join(dir, "action.yml"), "utf8")) as {
    inputs: Record<string, { default?: string; required?: boolean }>;
    runs: { using: string; steps: Step[] };
  };
  expect(action.runs.using).toBe("composite");
  for (const name of Object.keys(given)) expect(Object.keys(action.inputs), `input ${name}`).toContain(name);
  const ctx = { inputs: {} as Record<string, string>, steps: {} as Record<string, Record<string, string>> };
  for (const [name, spec] of Object.entries(action.inputs))
    ctx.inputs[name] = given[name] ?? spec.default ?? "";
  for (const [name, value] of Object.entries(ctx.inputs)) ctx.inputs[name] = expand(value, ctx);
  let n = 0;
  for (const step of action.runs.steps) {
    expect(step.shell).toBe("bash");
    const output = join(project, `.github-output-${n++}`);
    const env: Record<string, string> = {
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: join(project, ".github-step-summary"),
      GITHUB_ACTION_PATH: dir,
    };
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = expand(v, ctx);
    const r = await bash(expand(step.run!, ctx), project, env);
    log.push(`action step ${step.id ?? step.run!.split("\n")[0]}: exit ${r.code}\n${r.out}`);
    if (step.id) ctx.steps[step.id] = readOutputs(output);
    if (r.code !== 0) return { ok: false, outputs: ctx.steps };
  }
  return { ok: true, outputs: ctx.steps };
}

/** The workflow's steps in order, as on a pull request; returns whether the job failed. */
async function runWorkflow(project: string) {
  const log: string[] = [];
  let failed = false;
  let exitCode: string | undefined;
  for (const step of workflowSteps()) {
    const condition = step.if ?? "success()";
    if (failed && !/!cancelled\(\)|always\(\)/.test(condition)) continue;
    const uses = step.uses?.replace(/@.*$/, "");
    if (step.run !== undefined) {
      // The one `run:` step installs the dev dependencies: the project here already has the package installed.
      expect(step.run.trim()).toBe("npm ci");
      expect(existsSync(join(project, "node_modules/.bin/mcpx-conform"))).toBe(true);
    } else if (uses === "actions/checkout" || uses === "actions/setup-node") {
      // the project is there, and node is this one
    } else if (uses?.startsWith("./")) {
      const given = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, String(v)]));
      const done = await runAction(join(project, uses), { ...given, args: ARGS }, project, log);
      exitCode = done.outputs.run?.["exit-code"];
      if (!done.ok) failed = true;
    } else if (uses === "actions/upload-artifact") {
      expect(existsSync(join(project, String(step.with!.path))), `artifact ${step.with!.path}`).toBe(true);
    } else if (uses === "test-summary/action") {
      const junit = readFileSync(join(project, String(step.with!.paths)), "utf8");
      expect(junit).toMatch(/^<\?xml[\s\S]*<testsuites/);
    } else if (uses === "marocchino/sticky-pull-request-comment") {
      const body = readFileSync(join(project, String(step.with!.path)), "utf8");
      expect(body.length).toBeLessThan(65_536);
      expect(body).toContain("mcpx-conform");
    } else {
      throw new Error(`a step the test does not know how to run: ${JSON.stringify(step)}`);
    }
  }
  return { failed, exitCode, log: log.join("\n") };
}

function project(command: string[]): string {
  const dir = tempDir("mcpx-conform-ci-");
  mkdirSync(join(dir, "node_modules/.bin"), { recursive: true });
  symlinkSync(ROOT, join(dir, "node_modules/mcpx-conform"));
  symlinkSync("../mcpx-conform/bin/mcpx-conform.js", join(dir, "node_modules/.bin/mcpx-conform"));
  mkdirSync(join(dir, "mcpx"));
  writeFileSync(
    join(dir, "mcpx/my-relay.yaml"),
    `name: my-relay\ncommand: ${JSON.stringify(command)}\ndownstream: { transport: stdio }\nupstream: { transport: stdio }\nanswerTimeoutMs: 1500\ncaseTimeoutMs: 6000\n`,
  );
  return dir;
}

describe("docs/ci.md's workflow, step by step (the action's scripts run as the runner would)", () => {
  it("passes against the reference relay: the run, the gate, the report, the JUnit file and the comment", async () => {
    const dir = project([
      "node",
      join(ROOT, "bin/mcpx-conform.js"),
      "relay",
      "--answer-timeout-ms",
      "1500",
      "--",
      "{{upstream.command}}",
    ]);
    const r = await runWorkflow(dir);
    expect(r.failed, r.log).toBe(false);
    expect(r.exitCode).toBe("0");
    expect(r.log).toContain("gate passed");
    // The github reporter wrote the step summary; the two shards were merged and removed.
    expect(readFileSync(join(dir, ".github-step-summary"), "utf8")).toContain("mcpx-conform");
    expect(existsSync(join(dir, "mcpx-conform-report-shard-1"))).toBe(false);
  }, 120_000);

  it("fails on a broken relay: the gate on the required validation row fails the job", async () => {
    const dir = project([
      "node",
      join(ROOT, "targets/broken/relays/naive-passthrough.mjs"),
      "{{upstream.command}}",
    ]);
    const r = await runWorkflow(dir);
    expect(r.failed, r.log).toBe(true);
    expect(r.exitCode).toBe("1");
    expect(r.log).toContain("sampling-both-validate-message-content");
    // The report is still there for the artifact, the summary and the comment (they run on failure too).
    expect(existsSync(join(dir, "mcpx-conform-report/results.json"))).toBe(true);
  }, 120_000);
});
