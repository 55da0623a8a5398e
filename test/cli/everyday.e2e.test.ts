import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN, cliInProcess, ROOT, tempDir } from "../helpers/cli.ts";

/**
 * The everyday CLI: --version, validate from stdin with a default era, evidence for any tracking issue, run --case,
 * the relay's stderr in every transcript, and help that never prints where this copy is installed.
 */

const ERA = "2025-11-25";
const ROUNDTRIP = "sampling-relay-roundtrip";
const legalRequest = { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 };

/** One round-trip run against the reference relay (in process): the input of evidence. */
let out: string;
beforeAll(async () => {
  out = tempDir();
  const r = await cliInProcess(
    ["run", "--era", ERA, "--rows", ROUNDTRIP, "--target", "targets/reference.yaml"].concat([
      "--out",
      out,
      "--quiet",
      "--seed",
      "3",
    ]),
  );
  expect(r.code, r.stderr).toBe(0);
});

describe("the default output folder", () => {
  it("is ./mcpx-conform-report/ under the caller's folder, and a new run replaces the old run's evidence", async () => {
    const project = tempDir();
    const stale = join(project, "mcpx-conform-report/evidence/old-row/old-case@2025-11-25.json");
    mkdirSync(dirname(stale), { recursive: true });
    writeFileSync(stale, "{}");
    const target = join(ROOT, "targets/reference.yaml");
    const r = await cliInProcess(["run", "--era", ERA, "--rows", ROUNDTRIP, "--target", target, "--quiet"], {
      cwd: project,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("→ mcpx-conform-report");
    expect(existsSync(join(project, "mcpx-conform-report/results.json"))).toBe(true);
    expect(
      existsSync(join(project, `mcpx-conform-report/evidence/${ROUNDTRIP}/text-roundtrip@${ERA}.json`)),
    ).toBe(true);
    expect(existsSync(stale)).toBe(false);
  });
});

describe("merge's default output folder", () => {
  it("is ./mcpx-conform-report/ under the caller's folder too", async () => {
    const project = tempDir();
    const target = join(ROOT, "targets/reference.yaml");
    const shard = ["--shard", "1/1", "--seed", "1", "--out", "shard-1", "--quiet"];
    const r = await cliInProcess(["run", "--era", ERA, "--rows", ROUNDTRIP, "--target", target, ...shard], {
      cwd: project,
    });
    expect(r.code, r.stderr).toBe(0);
    const m = await cliInProcess(["merge", "shard-1", "--quiet"], { cwd: project });
    expect(m.code, m.stderr).toBe(0);
    expect(existsSync(join(project, "mcpx-conform-report/results.json"))).toBe(true);
  });
});

describe("--version", () => {
  it("prints package.json's version, exit 0 (-V too)", async () => {
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
    for (const flag of ["--version", "-V"]) {
      const r = await cliInProcess([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
    }
  });
});

describe("list --help", () => {
  it("says the defaults in words, never the absolute paths of this copy", async () => {
    const r = await cliInProcess(["list", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(ROOT);
    expect(r.stdout).toContain("default: the package's matrix/register.yaml");
  });
});

describe("validate: - is standard input, --era defaults to the newest legacy era", () => {
  it("reads the request from stdin and judges it for 2025-11-25 without --era", async () => {
    const r = await cliInProcess(["validate", "--request", "-"], { stdin: JSON.stringify(legalRequest) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^legal: request - \(2025-11-25\)/);
    // A tool_use block is legal in 2025-11-25 only: the default era is not an older one.
    const withTools = { ...legalRequest, tools: [{ name: "t", inputSchema: { type: "object" } }] };
    const t = await cliInProcess(["validate", "--request", "-"], { stdin: JSON.stringify(withTools) });
    expect(t.code, t.stdout).toBe(0);
  });

  it("a result from stdin that is illegal: exit 1", async () => {
    const r = await cliInProcess(["validate", "--result", "-"], {
      stdin: JSON.stringify({ role: "assistant", content: { type: "text", text: "x" } }),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ILLEGAL: result - \(2025-11-25\)/);
  });

  it("bad input from stdin is one line naming - and the flag, exit 2", async () => {
    const r = await cliInProcess(["validate", "--request", "-"], { stdin: "{not json" });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^mcpx-conform: -: --request: invalid JSON/);
    const two = await cliInProcess(["validate", "--result", "-", "--for-request", "-"], { stdin: "{}" });
    expect(two.code).toBe(2);
    expect(two.stderr).toContain("only one file can be read from standard input");
  });

  it("spawned: a real pipe into the process", async () => {
    const r = await new Promise<{ code: number; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, [BIN, "validate", "--request", "-"], (error, stdout) =>
        resolve({ code: error ? Number(error.code) : 0, stdout }),
      );
      child.stdin!.end(JSON.stringify(legalRequest));
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^legal: request - \(2025-11-25\)/);
  });
});

describe("evidence --tracking FILE: any tracking issue", () => {
  it("renders the completion evidence of a tracking file of one's own, whatever its name", async () => {
    const file = join(tempDir(), "my-tracking.yaml");
    writeFileSync(
      file,
      `issue: acme/relay#7\ntitle: Relay passes the round trip\nbullets:\n  - id: roundtrip\n    text: Sampling round-trips.\n    rows: [${ROUNDTRIP}@${ERA}]\n`,
    );
    const r = await cliInProcess([
      "evidence",
      "--results",
      join(out, "results.json"),
      "--tracking",
      file,
      "--check",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Relay passes the round trip");
    expect(r.stdout).not.toContain("darwin-nix");
    // The shipped #256 mapping stays the default.
    const d = await cliInProcess(["evidence", "--results", join(out, "results.json")]);
    expect(d.stdout).toContain("dezren39/darwin-nix");
  });

  it("a bad tracking file is one line naming the file and field, exit 2", async () => {
    const file = join(tempDir(), "bad.yaml");
    writeFileSync(file, "issue: not-a-ref\ntitle: x\nbullets: []\n");
    const r = await cliInProcess(["evidence", "--results", join(out, "results.json"), "--tracking", file]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toMatch(/issue/);
  });
});

describe("run --case GLOB", () => {
  const ROW = "sampling-client-errors-user-rejected-and-tool-shape";

  it("runs only the matching cases (and the round trip); the rest of their rows is skipped, so cells are partial", async () => {
    const dir = tempDir();
    const r = await cliInProcess([
      "run",
      "--era",
      ERA,
      "--case",
      "decline-*",
      "--target",
      "targets/reference.yaml",
      "--out",
      dir,
      "--quiet",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));
    const cell = results.cells.find((c: { row: string }) => c.row === ROW);
    expect(cell.status).toBe("partial");
    const byId = Object.fromEntries(cell.cases.map((c: { id: string; status: string }) => [c.id, c.status]));
    expect(byId["decline-is-minus-1"]).toBe("pass");
    expect(byId["tool-result-missing-32602"]).toBe("skip");
    // Rows without a matching case are not in the run.
    expect(results.cells.map((c: { row: string }) => c.row)).not.toContain("sampling-result-schema");
    expect(existsSync(join(dir, `evidence/${ROW}/tool-result-missing-32602@${ERA}.json`))).toBe(false);
  });

  it("a glob that matches no case names --case, exit 2", async () => {
    const r = await cliInProcess(["run", "--case", "no-such-case*", "--target", "targets/reference.yaml"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/--case: no case matches 'no-such-case\*'/);
  });
});

/** A pass-through relay that logs every frame it forwards on stderr (a long line each, a token among them). */
const CHATTY_RELAY = `import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
const upstream = spawn(process.argv[2], process.argv.slice(3), { stdio: ["pipe", "pipe", "inherit"] });
let n = 0;
const log = (dir, line) => process.stderr.write(\`frame \${++n} \${dir} API_TOKEN=sk-chatty-0123456789 \${"x".repeat(400)} \${line.length}\\n\`);
createInterface({ input: process.stdin }).on("line", (l) => { log("down", l); upstream.stdin.write(l + "\\n"); });
createInterface({ input: upstream.stdout }).on("line", (l) => { log("up", l); process.stdout.write(l + "\\n"); });
process.stdin.on("end", () => upstream.kill());
upstream.on("exit", () => process.exit(0));
`;

describe("the relay's stderr is in every evidence file, bounded", () => {
  it("empty for a quiet relay; the end of what a chatty one wrote during the case, redacted, at most 2,000 characters", async () => {
    const quiet = JSON.parse(
      readFileSync(join(out, `evidence/${ROUNDTRIP}/text-roundtrip@${ERA}.json`), "utf8"),
    );
    expect(quiet.relayLog).toBe("");
    const dir = tempDir();
    writeFileSync(join(dir, "chatty.mjs"), CHATTY_RELAY);
    writeFileSync(
      join(dir, "chatty.yaml"),
      'name: chatty\ncommand: ["node", "chatty.mjs", "{{upstream.command}}"]\ndownstream: { transport: stdio }\nupstream: { transport: stdio }\n',
    );
    const r = await cliInProcess([
      "run",
      "--era",
      ERA,
      "--rows",
      ROUNDTRIP,
      "--target",
      join(dir, "chatty.yaml"),
      "--out",
      join(dir, "out"),
      "--quiet",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const evidence = JSON.parse(
      readFileSync(join(dir, `out/evidence/${ROUNDTRIP}/text-roundtrip@${ERA}.json`), "utf8"),
    );
    const log: string = evidence.relayLog;
    expect(log).toMatch(/frame \d+ (up|down)/);
    expect(log.length).toBeGreaterThan(1000);
    expect(log.length).toBeLessThanOrEqual(2000);
    expect(log).not.toContain("sk-chatty-0123456789");
    expect(log).toContain("[REDACTED]");
  });
});
