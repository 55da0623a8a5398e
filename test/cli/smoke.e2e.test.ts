import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, cliInProcess, tempDir } from "../helpers/cli.ts";

/**
 * The real binary (bin/mcpx-conform.js through tsx, a child process), once per command of src/cli/commands.ts: the
 * exit code and one key line. Every other CLI test runs in process (cliInProcess) unless it is about the process
 * itself (signals, stdin, a TTY, the process table).
 */

const ERA = "2025-11-25";
const ROW = "sampling-relay-roundtrip";
/** One run of the round trip, made in process: the input of merge, gate, render, evidence and replay. */
let shard: string;

beforeAll(async () => {
  shard = tempDir("mcpx-conform-smoke-shard-");
  const r = await cliInProcess([
    "run",
    "--era",
    ERA,
    "--rows",
    ROW,
    "--target",
    "targets/reference.yaml",
    "--seed",
    "1",
    "--shard",
    "1/1",
    "--out",
    shard,
    "--quiet",
  ]);
  expect(r.code, r.stderr).toBe(0);
});

describe("mcpx-conform, spawned: one smoke test per command", () => {
  it("run", async () => {
    const r = await cli([
      "run",
      "--era",
      ERA,
      "--rows",
      ROW,
      "--target",
      "targets/reference.yaml",
      "--out",
      tempDir(),
      "--quiet",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^mcpx-conform: 1 cells: 1 pass, 0 fail, /);
  });

  it("relay (it also runs, spawned by the harness, in every run against targets/reference.yaml)", async () => {
    const r = await cli(["relay", "--answer-timeout-ms", "0", "--", "node"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /'--answer-timeout-ms <ms>' argument '0' is invalid\. expected a positive whole number/,
    );
  });

  it("merge", async () => {
    const r = await cli(["merge", shard, "--out", tempDir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^mcpx-conform: merged 1 shards; wrote results\.json, /m);
  });

  it("gate", async () => {
    const r = await cli(["gate", "--results", join(shard, "results.json"), "--require", ROW]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^gate passed: 1 pass, 0 n\/a/m);
  });

  it("render", async () => {
    const out = tempDir();
    const r = await cli([
      "render",
      "--results",
      join(shard, "results.json"),
      "--reporter",
      "md",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^wrote \S*matrix\.md$/m);
  });

  it("evidence", async () => {
    const r = await cli([
      "evidence",
      "--results",
      join(shard, "results.json"),
      "--issue",
      "dezren39/darwin-nix#256",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/This issue may not be closed/);
  });

  it("replay", async () => {
    const [bundle] = readdirSync(join(shard, "evidence", ROW)).filter((f) => f.endsWith(`@${ERA}.json`));
    const r = await cli(["replay", join(shard, "evidence", ROW, bundle!)]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^same verdict: ${ROW}/\\S+ @${ERA} against reference: pass`));
  });

  it("validate", async () => {
    const file = join(tempDir(), "request.json");
    writeFileSync(
      file,
      JSON.stringify({ messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 8 }),
    );
    const r = await cli(["validate", "--era", ERA, "--request", file]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^legal: request \S+request\.json \(2025-11-25\): 0 errors/);
  });

  it("list", async () => {
    const r = await cli(["list", "rows"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^id\s+side\s+level\s+eras\s+cases\n/);
  });
});
