import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { worstCaseMs } from "../../src/harness/budget.ts";
import { DEFAULT_MAX_FRAME_BYTES } from "../../src/harness/frames.ts";
import { defaultConcurrency } from "../../src/harness/harness-plan.ts";
import { KILL_GRACE_MS } from "../../src/harness/processes.ts";
import { compactedOf } from "../../src/model/compact.ts";
import { type Evidence, EvidenceSchema } from "../../src/model/evidence.ts";
import { loadCases, loadRegister, loadTarget } from "../../src/model/load.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { planRun } from "../../src/run/plan.ts";
import { waitChains } from "../../src/run/shard.ts";
import { BIN, cliInProcess, ROOT, tempDir } from "../helpers/cli.ts";
import { limiter } from "../helpers/limit.ts";

/**
 * The hostile zoo (targets/hostile/): real relay processes that misbehave. For each, a run must end within the
 * bound its profile implies, say what happened in one sentence per case, exit 1 (a cell failed) or 3 (only harness
 * errors), and leave no process of it alive and no temporary folder behind.
 */

const ERA = "2025-11-25";
const ROWS = "sampling-relay-roundtrip,sampling-result-schema,sampling-request-params-schema";
/** Node start-up, loading, judging and writing on a loaded 2-core machine. */
const FIXED_MS = 10_000;

const work = tempDir("mcpx-conform-test-hostile-");
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Run {
  code: number | null;
  ms: number;
  stderr: string;
  results: Results;
  out: string;
  marker: string;
  tmp: string;
}

/** The shipped profile, with an absolute script path and a marker argument that finds its processes in `ps`. */
function markedProfile(name: string): { file: string; marker: string } {
  const profile = loadTarget(join(ROOT, "targets/hostile", `${name}.yaml`));
  const marker = `--marker=mcpx-hostile-${name}-${process.pid}-${Date.now()}`;
  const command = profile.command.map((a) =>
    a.startsWith("relays/") ? join(ROOT, "targets/hostile", a) : a,
  );
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, stringify({ ...profile, command: [...command, marker] }));
  return { file, marker };
}

function alive(marker: string): string[] {
  const ps = execFileSync("ps", ["-eo", "pid,pgid,args"], { encoding: "utf8" });
  return ps.split("\n").filter((l) => l.includes(marker));
}

async function hostileRun(
  name: string,
  options: { interruptAfterEvidence?: number; rows?: string } = {},
): Promise<Run & { interruptedAtMs?: number }> {
  const { file, marker } = markedProfile(name);
  const out = join(work, `out-${name}${options.interruptAfterEvidence ? "-int" : ""}`);
  // The harness's own temporary folders go here, so the test can see that none is left behind.
  const tmp = join(work, `tmp-${name}${options.interruptAfterEvidence ? "-int" : ""}`);
  mkdirSync(tmp, { recursive: true });
  const args = ["run", "--target", file, "--era", ERA, "--out", out, "--quiet", "--seed", "3"];
  if (options.rows !== "") args.push("--rows", options.rows ?? ROWS);
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, TMPDIR: tmp, MCPX_HOSTILE_LEAK: "harness-env-leaked" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  child.stdout.resume();
  // Interrupted mid-run: once this many cases have their evidence written (cases are judged as they end).
  let interruptedAtMs: number | undefined;
  const poll = setInterval(() => {
    const wanted = options.interruptAfterEvidence;
    if (!wanted || interruptedAtMs !== undefined) return;
    const written = (() => {
      try {
        return readdirSync(join(out, "evidence"), { recursive: true }).filter((f) =>
          String(f).endsWith(".json"),
        ).length;
      } catch {
        return 0;
      }
    })();
    if (written < wanted) return;
    interruptedAtMs = performance.now() - t0;
    child.kill("SIGINT");
  }, 20);
  const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
  clearInterval(poll);
  const ms = performance.now() - t0;
  let results: Results;
  try {
    results = ResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
  } catch (error) {
    throw new Error(`no results.json (exit ${code}): ${String(error)}\n${stderr}`);
  }
  return {
    code,
    ms,
    stderr,
    results,
    out,
    marker,
    tmp,
    ...(interruptedAtMs !== undefined ? { interruptedAtMs } : {}),
  };
}

/** The worst case docs/reliability.md states for this profile and these rows. */
function bound(name: string, rows = ROWS): number {
  const profile = loadTarget(join(ROOT, "targets/hostile", `${name}.yaml`));
  const register = loadRegister();
  const plan = planRun({
    register,
    cases: loadCases(register),
    profile,
    eras: [ERA],
    selectedRows: rows ? new Set(rows.split(",")) : undefined,
  });
  return worstCaseMs(profile, plan.work, waitChains(plan.work, profile, defaultConcurrency()));
}

function expectCleanEnd(run: Run): void {
  expect(alive(run.marker), "processes of the relay left alive").toEqual([]);
  const left = readdirSync(run.tmp).filter((d) => d.startsWith("mcpx-conform"));
  expect(left, "temporary folders left behind").toEqual([]);
  expect(run.stderr).not.toMatch(/harness failure|\n\s+at /);
}

/** A stack frame ("at fn (file:1:2)" or "at /path/file.js:1:2"); a URL with a port ("at http://…:4000/mcp") is none. */
const STACK = /\n|\bat \S+ \(\S+:\d+:\d+\)|\bat (?:file:\/\/|node:|\/)\S*:\d+:\d+/;

/** Every case that did not pass says why in one sentence (one line, no stack). */
function expectHonestReasons(results: Results): void {
  for (const cell of results.cells)
    for (const c of cell.cases) {
      if (c.status === "pass") continue;
      expect(c.reason.length, `${cell.row}/${c.id}`).toBeGreaterThan(10);
      expect(c.reason, `${cell.row}/${c.id}`).not.toMatch(STACK);
    }
}

const roundtrip = (r: Results) => r.cells.find((c) => c.row === "sampling-relay-roundtrip")!;

const PROFILE = (name: string) => loadTarget(join(ROOT, "targets/hostile", `${name}.yaml`));

const ZOO: Array<{
  name: string;
  code: 1 | 3;
  status: "error" | "fail" | "pass";
  reason: RegExp;
  /** A tighter bound than the worst case: what this misbehaviour should cost. */
  within?: number;
  /** Rows to run instead of ROWS (a slow relay runs fewer cases). */
  rows?: string;
  /** What else the run must show (in its evidence). */
  also?: (run: Run) => void;
}> = [
  {
    name: "never-starts",
    code: 3,
    status: "error",
    reason: /did not start within 3000 ms \(waiting for the relay to answer initialize/,
    within: PROFILE("never-starts").startupTimeoutMs + KILL_GRACE_MS + FIXED_MS,
  },
  {
    name: "exits-at-once",
    code: 3,
    status: "error",
    reason: /the relay exited with code 1 during start-up/,
    within: FIXED_MS,
  },
  {
    name: "garbage-stdout",
    code: 3,
    status: "error",
    reason: /not JSON, first: "Starting relay/,
    within: PROFILE("garbage-stdout").startupTimeoutMs + KILL_GRACE_MS + FIXED_MS,
  },
  {
    name: "hangs-after-initialize",
    code: 3,
    status: "error",
    reason: /waiting for the relay to answer tools\/list \(it answered initialize\)/,
    within: PROFILE("hangs-after-initialize").startupTimeoutMs + KILL_GRACE_MS + FIXED_MS,
  },
  {
    name: "crashes-mid-exchange",
    code: 1,
    status: "fail",
    reason: /the relay exited with code 70/,
    within: FIXED_MS,
  },
  {
    name: "wrong-ids",
    code: 1,
    status: "fail",
    reason: /The upstream received no answer/,
    within: PROFILE("wrong-ids").caseTimeoutMs + 2 * KILL_GRACE_MS + FIXED_MS,
  },
  {
    name: "binds-no-port",
    code: 3,
    status: "error",
    reason:
      /did not start within 3000 ms \(waiting for the relay to listen at http:\/\/127\.0\.0\.1:\d+\/mcp\)/,
    within: PROFILE("binds-no-port").startupTimeoutMs + KILL_GRACE_MS + FIXED_MS,
  },
  {
    name: "sse-closes-mid-case",
    code: 1,
    status: "fail",
    // The closed stream is named, at once: not a timeout once the case's deadline has passed.
    reason:
      /never answered: the relay closed the SSE stream \(the GET \/sse response ended\)\); the answerer never answered/,
    within: PROFILE("sse-closes-mid-case").caseTimeoutMs + 2 * KILL_GRACE_MS + FIXED_MS,
  },
  {
    name: "http-garbage",
    code: 1,
    status: "fail",
    reason:
      /The upstream received no answer within the harness's \d+ ms deadline; the answerer never answered/,
    within: PROFILE("http-garbage").caseTimeoutMs + 2 * KILL_GRACE_MS + FIXED_MS,
    also(run) {
      // The SDK's transport dropped both frames; the evidence of the failing case quotes them as sent.
      const frames = roundtripEvidence(run).frames.filter(
        (f) => f.end === "downstream" && f.dir === "from-relay",
      );
      expect(frames.map((f) => f.raw)).toContain(
        "<html><body><h1>502 Bad Gateway</h1>hostile relay: upstream hiccup</body></html>",
      );
      expect(frames.map((f) => f.message)).toContainEqual({
        hostile: "json, but not a JSON-RPC message",
        jsonrpc: "1.0",
      });
    },
  },
  { name: "stderr-flood", code: 1, status: "pass", reason: /./ },
  // The harness picked the port: a relay that could not bind it is started once more on another.
  { name: "port-taken-once", code: 1, status: "pass", reason: /./ },
  { name: "ignores-sigterm", code: 1, status: "pass", reason: /./ },
  {
    name: "ten-mb-frame",
    code: 1,
    status: "pass",
    reason: /./,
    also(run) {
      // The evidence keeps the beginning of the 10 MB frame, its true size and sha256; the judge saw all of it (the
      // round trip passed on the whole result), and the observation keeps the padding as head, size and sha256.
      const e = roundtripEvidence(run);
      const big = e.frames.filter((f) => f.truncated);
      expect(big).toHaveLength(1);
      expect(big[0]).toMatchObject({ end: "upstream", dir: "from-relay", truncated: true });
      // At most the cap in UTF-8 bytes, cut before a character the cap falls in.
      expect(Buffer.byteLength(big[0]!.raw!)).toBeLessThanOrEqual(DEFAULT_MAX_FRAME_BYTES);
      expect(Buffer.byteLength(big[0]!.raw!)).toBeGreaterThan(DEFAULT_MAX_FRAME_BYTES - 4);
      expect(big[0]!.message).toBeUndefined();
      expect(big[0]!.size).toBeGreaterThan(10 * 1024 * 1024);
      expect(big[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
      const upstream = e.observation.upstream as { kind: string; result: { _meta: Record<string, string> } };
      expect(upstream.kind).toBe("result");
      expect(compactedOf(upstream.result._meta["example.com/padding"]!)).toMatchObject({
        bytes: 10 * 1024 * 1024,
      });
    },
  },
  {
    name: "slow-drip",
    code: 1,
    status: "pass",
    reason: /./,
    rows: "sampling-relay-roundtrip,sampling-result-schema",
    within: 30_000,
  },
  {
    name: "unsolicited-response",
    code: 1,
    status: "pass",
    reason: /./,
    also(run) {
      // The stray response is in the evidence, as the relay sent it.
      const stray = roundtripEvidence(run).frames.filter(
        (f) =>
          f.end === "downstream" &&
          f.dir === "from-relay" &&
          JSON.stringify(f.message).includes("never-sent-"),
      );
      expect(stray).toHaveLength(1);
      expect(stray[0]!.message).toMatchObject({ jsonrpc: "2.0", result: { unsolicited: true } });
    },
  },
];

/** The evidence of the era's round trip case (the first case of every era). */
function roundtripEvidence(run: Run): Evidence {
  const dir = join(run.out, "evidence", "sampling-relay-roundtrip");
  const file = readdirSync(dir).find((f) => f.endsWith(".json"))!;
  return EvidenceSchema.parse(JSON.parse(readFileSync(join(dir, file), "utf8")));
}

describe("hostile relays: the run ends within its bound, tells the truth and leaves nothing behind", () => {
  // Two runs at a time: most of the zoo waits (a hang, a deadline), so their waits overlap; each run's time is
  // measured from its own start, so the bounds hold as they did one at a time. A test's time includes its wait for a
  // turn (vitest starts up to five concurrent tests), hence the longer timeout.
  const twoAtATime = limiter(2);
  // [name, entry]: `%s` prints the bare name (`$name` would quote it).
  it.concurrent.for(ZOO.map((z) => [z.name, z] as const))(
    "%s",
    { timeout: 180_000 },
    async ([, { name, code, status, reason, within, rows, also }], { expect }) => {
      const run = await twoAtATime(() => hostileRun(name, { rows }));
      expect(run.ms, `took ${Math.round(run.ms)} ms`).toBeLessThan(bound(name, rows));
      if (within) expect(run.ms, `took ${Math.round(run.ms)} ms`).toBeLessThan(within);
      expect(run.code, run.stderr).toBe(code);
      const rt = roundtrip(run.results);
      expect(rt.status).toBe(status);
      if (status !== "pass") expect(rt.cases[0]!.reason).toMatch(reason);
      // Once the round trip failed, the era's other cases say so instead of being run one by one.
      if (status !== "pass")
        for (const cell of run.results.cells.filter((c) => c.row !== rt.row && c.cases.length > 0))
          expect(cell.status, cell.row).toBe(status);
      expectHonestReasons(run.results);
      also?.(run);
      expectCleanEnd(run);
    },
  );

  it("a relay's stderr reaches results redacted, and the relay never sees the harness's environment", async () => {
    const run = await hostileRun("exits-at-once");
    const everything = [
      readFileSync(join(run.out, "results.json"), "utf8"),
      ...["matrix.md", "junit.xml", "matrix.html"].map((f) => readFileSync(join(run.out, f), "utf8")),
      ...readdirSync(join(run.out, "evidence"), { recursive: true })
        .map(String)
        .filter((f) => f.endsWith(".json"))
        .map((f) => readFileSync(join(run.out, "evidence", f), "utf8")),
    ].join("\n");
    expect(everything).toContain("cannot start");
    expect(everything).not.toContain("sk-hostile-0123456789abcdef");
    expect(everything).not.toContain("profile-secret-value-42");
    expect(everything).toContain("API_TOKEN=[REDACTED]");
    expect(everything).toContain("leak=none");
    expect(everything).not.toContain("harness-env-leaked");
  });

  it("SIGINT: partial results are written, exit 130, every relay (even one ignoring SIGTERM) is reaped", async () => {
    const run = await hostileRun("ignores-sigterm", { rows: "", interruptAfterEvidence: 5 });
    expect(run.interruptedAtMs, "the run ended before it could be interrupted").toBeDefined();
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toMatch(/SIGINT: stopping/);
    const statuses = run.results.cells.flatMap((c) => c.cases.map((k) => k.status));
    expect(statuses).toContain("pass");
    expect(run.results.cells.flatMap((c) => c.cases).some((k) => /interrupted/.test(k.reason))).toBe(true);
    expect(run.ms - run.interruptedAtMs!).toBeLessThan(KILL_GRACE_MS + FIXED_MS);
    expectCleanEnd(run);
  });
});

describe("a relay that refuses an era's protocol version and exits", () => {
  it("is launched once in that era (no relaunch per session group), and the other era still runs", async () => {
    const { file, marker } = markedProfile("refuses-old-era");
    const refusals = join(work, "refusals.log");
    const profile = loadTarget(file);
    const command = [...profile.command.slice(0, -1), `--launches=${refusals}`, profile.command.at(-1)!];
    writeFileSync(file, stringify({ ...profile, command }));
    const out = join(work, "out-refuses-old-era");
    const r = await cliInProcess(["run", "--target", file, "--out", out, "--quiet", "--seed", "3"]);
    expect(r.code, r.stderr).toBe(1);
    // The old era has many session groups; the relay was asked (and refused) once.
    expect(readFileSync(refusals, "utf8").trim().split("\n")).toEqual(["2024-11-05"]);
    const results = ResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
    const old = results.cells.filter((c) => c.era === "2024-11-05" && c.cases.length > 0);
    expect(old.length).toBeGreaterThan(10);
    for (const cell of old) {
      expect(["error", "n/a", "not-run"], cell.row).toContain(cell.status);
      expect(cell.status, cell.row).not.toBe("pass");
    }
    expect(roundtrip({ ...results, cells: old }).cases[0]!.reason).toMatch(
      /the relay refused initialize: .*Unsupported protocol version: 2024-11-05/,
    );
    const current = results.cells.find((c) => c.era === "2025-11-25" && c.row === "sampling-relay-roundtrip");
    expect(current?.status).toBe("pass");
    expectHonestReasons(results);
    expect(alive(marker)).toEqual([]);
  });
});

describe("a profile that cannot start is the profile's error: one line, exit 2, before any case runs", () => {
  const base = {
    name: "bad",
    downstream: { transport: "stdio" },
    upstream: { transport: "stdio" },
    startupTimeoutMs: 15_000,
  };
  const CASES: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      "a command not on PATH",
      { command: ["nodee", "relay.js"] },
      /command\[0\]: cannot run 'nodee': not found on PATH/,
    ],
    [
      "a program path that does not exist",
      { command: ["./no-such-relay"] },
      /command\[0\]: cannot run '\.\/no-such-relay': no such file/,
    ],
    [
      "a program that is not executable",
      { command: ["./bad.yaml"] },
      /command\[0\]: cannot run '\.\/bad\.yaml': not executable/,
    ],
    [
      "a missing script",
      { command: ["node", "relays/missing.mjs", "{{upstream.command}}"] },
      /command\[1\]: 'node relays\/missing\.mjs': the script 'relays\/missing\.mjs' does not exist/,
    ],
    [
      "a typo of a placeholder",
      { command: ["node", "x.mjs", "{{upstream.cmd}}"] },
      /command\[2\]: expected a known placeholder, got \{\{upstream\.cmd\}\} \(known: \{\{upstream\.command\}\}/,
    ],
    [
      "a placeholder of the other transport",
      { command: ["node", "x.mjs", "{{upstream.url}}"] },
      /command\[2\]: expected an HTTP upstream/,
    ],
    ["a missing cwd", { command: ["node"], cwd: "no-such-folder" }, /cwd: expected an existing folder/],
  ];
  it.each(CASES)("%s", async (_what, fields, message) => {
    const dir = join(work, `bad-${Math.random().toString(36).slice(2)}`);
    mkdirSync(dir);
    const file = join(dir, "bad.yaml");
    writeFileSync(file, stringify({ ...base, ...fields }));
    const t0 = performance.now();
    const r = await cliInProcess([
      "run",
      "--target",
      file,
      "--era",
      ERA,
      "--out",
      join(dir, "out"),
      "--quiet",
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(performance.now() - t0).toBeLessThan(FIXED_MS);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(file);
    expect(lines[0]).toMatch(message);
  });
});
