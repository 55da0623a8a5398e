/**
 * Speed (issue #11), side by side in one run, medians over repeated runs:
 * - run: the wall time of `npx mcpx-conform run` as a user types it (every case, every era, the default target, one
 *   process) against its floor: the waits the corpus makes unavoidable on the session that must sit them out one
 *   after another (waitFloorMs) plus one relay start-up (measured here);
 * - exchange: one text exchange through the harness and a pass-through relay (targets/broken/naive-passthrough.yaml,
 *   a spawned stdio relay) against the raw SDK round trip: an SDK client and server across one process boundary
 *   (stdio), and in one process (InMemoryTransport); the harness's own cost per exchange, as ratios;
 * - fuzz: differential exchanges per second against a spawned stdio reference relay (one session start included).
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { fuzzTarget } from "../src/fuzz/differential.ts";
import { sessionGroup } from "../src/harness/case-instance.ts";
import { ControlServer } from "../src/harness/channels.ts";
import { defaultConcurrency } from "../src/harness/harness-plan.ts";
import { makeTempDir, removeTempDir } from "../src/harness/processes.ts";
import { sessionKey } from "../src/harness/scheduler.ts";
import { RelaySession } from "../src/harness/session.ts";
import type { LoadedCase } from "../src/model/load.ts";
import { loadTarget, PROJECT_ROOT } from "../src/model/load.ts";
import type { TargetProfile } from "../src/model/target.ts";
import { type Era, isModernEra } from "../src/protocol/eras.ts";
import { resolveRunConfig } from "../src/run/config.ts";
import { planRun } from "../src/run/plan.ts";
import { unavoidableWaitMs, waitChains } from "../src/run/shard.ts";
import { folderBytes } from "./memory.ts";
import { measuredRun } from "./peak-rss.ts";

const ERA: Era = "2025-11-25";
const REFERENCE = join(PROJECT_ROOT, "targets/reference.yaml");
const PASSTHROUGH = join(PROJECT_ROOT, "targets/broken/naive-passthrough.yaml");
const RUN_REPEATS = 3;
const STARTS = 3;
const EXCHANGES = 60;
const FUZZ_RUNS = 300;
const FUZZ_REPEATS = 3;

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * The floor of a run's case waits: the waits the corpus makes unavoidable (an answer that never comes waits out
 * answerTimeoutMs, a late answer its delay, a withheld 2026-07-28 answer the relay's deadline) on the relay session
 * that must sit them out one after another. A waiting case hands its lane on, so waits on different sessions overlap
 * whatever the lane count; a legacy session runs its cases in turn (its waits add up; the cases that wait on purpose
 * run on chains apart from their group, `waitChains`), a 2026-07-28 session lets its cases settle side by side (its
 * longest wait counts).
 */
export function waitFloorMs(
  work: Array<{ kase: LoadedCase; era: Era }>,
  profile: Pick<TargetProfile, "answerTimeoutMs">,
  lanes: number,
): number {
  const sessions = new Map<string, { waits: number[]; overlap: boolean }>();
  const apart = waitChains(work, profile, lanes);
  work.forEach((w, i) => {
    const key = w.kase.sessions === 2 ? `own ${i}` : sessionKey(sessionGroup(w), apart(w));
    const session = sessions.get(key) ?? { waits: [], overlap: isModernEra(w.era) };
    session.waits.push(unavoidableWaitMs(w, profile));
    sessions.set(key, session);
  });
  let floor = 0;
  for (const { waits, overlap } of sessions.values())
    floor = Math.max(floor, overlap ? Math.max(...waits) : waits.reduce((a, b) => a + b, 0));
  return floor;
}

async function relayStartMs(control: ControlServer): Promise<number> {
  const profile = loadTarget(REFERENCE);
  const times: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const t0 = performance.now();
    const session = await RelaySession.open({
      profile,
      profileFile: REFERENCE,
      era: ERA,
      capabilities: { sampling: {} },
      control,
    });
    times.push(performance.now() - t0);
    await session.close();
  }
  return median(times);
}

export interface RunFigures {
  eras: readonly Era[];
  target: string;
  concurrency: number;
  caseRuns: number;
  wallMs: number;
  /** CPU (user + sys) of the harness and every process of the run (bench/peak-rss.ts). */
  cpuMs: number;
  floorMs: number;
  waitFloorMs: number;
  relayStartMs: number;
  /** The highest peak resident memory of the runs (the harness process alone). */
  peakRssBytes: number;
  /** What the run wrote: matrix.html and the evidence folder, in bytes. */
  htmlBytes: number;
  evidenceBytes: number;
}

/**
 * `npx mcpx-conform run` as a user types it (every case, every era, the default target), in a process: its wall ms and
 * its peak resident memory (bench/peak-rss.ts).
 */
async function defaultRun(out: string): Promise<{ ms: number; cpuMs: number; peakRssBytes: number }> {
  const r = await measuredRun(["run", "--quiet", "--seed", "1", "--out", out], { timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`the default run exited ${r.code ?? r.signal}: ${r.stderr}`);
  return { ms: r.wallMs, cpuMs: r.cpuMs, peakRssBytes: r.peakRssBytes };
}

async function benchRun(control: ControlServer): Promise<RunFigures> {
  const startMs = await relayStartMs(control);
  const walls: number[] = [];
  const cpus: number[] = [];
  const peaks: number[] = [];
  const tmp = makeTempDir("mcpx-conform-bench-");
  const out = join(tmp, "run");
  let caseRuns = 0;
  let htmlBytes = 0;
  let evidenceBytes = 0;
  try {
    for (let i = 0; i < RUN_REPEATS; i++) {
      const r = await defaultRun(out);
      walls.push(r.ms);
      cpus.push(r.cpuMs);
      peaks.push(r.peakRssBytes);
    }
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    caseRuns = results.cells.reduce((n: number, c: { cases: unknown[] }) => n + c.cases.length, 0);
    htmlBytes = statSync(join(out, "matrix.html")).size;
    evidenceBytes = folderBytes(join(out, "evidence"));
  } finally {
    removeTempDir(tmp);
  }
  const c = resolveRunConfig({ seed: "1", reporter: "md", out });
  const { work } = planRun(c);
  const waits = waitFloorMs(work, c.profile, c.concurrency);
  return {
    eras: c.eras,
    target: c.profile.name,
    concurrency: c.concurrency,
    caseRuns,
    wallMs: median(walls),
    cpuMs: median(cpus),
    floorMs: waits + startMs,
    waitFloorMs: waits,
    relayStartMs: startMs,
    peakRssBytes: Math.max(...peaks),
    htmlBytes,
    evidenceBytes,
  };
}

const PARAMS = {
  messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
  maxTokens: 64,
};
const RESULT = {
  role: "assistant",
  content: { type: "text", text: "Paris." },
  model: "bench-model",
  stopReason: "endTurn",
};

/** Median ms of one createMessage between an SDK server and an SDK client in one process (no relay, no harness). */
export async function rawSdkExchangeMs(): Promise<number> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = new Server({ name: "bench-server", version: "1" }, { capabilities: {} });
  const client = new Client({ name: "bench-client", version: "1" }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => RESULT as never);
  await server.connect(serverSide);
  await client.connect(clientSide);
  const times: number[] = [];
  try {
    for (let i = 0; i < EXCHANGES + 10; i++) {
      const t0 = performance.now();
      await server.createMessage(PARAMS as never);
      if (i >= 10) times.push(performance.now() - t0); // the first ten warm the JIT
    }
  } finally {
    await client.close();
    await server.close();
  }
  return median(times);
}

/**
 * Median ms of one exchange with the SDK at both ends across one process boundary (no relay, no harness): an SDK
 * client calls a tool of an SDK server on stdio (bench/fixtures/sdk-sampling-server.mjs), which asks the client for a
 * completion (createMessage) and returns it — the shape of the harness's probe call, with one process instead of three.
 */
export async function rawSdkStdioExchangeMs(): Promise<number> {
  const client = new Client({ name: "bench-client", version: "1" }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => RESULT as never);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(PROJECT_ROOT, "bench/fixtures/sdk-sampling-server.mjs")],
    }),
  );
  const times: number[] = [];
  try {
    for (let i = 0; i < EXCHANGES + 10; i++) {
      const t0 = performance.now();
      await client.callTool({ name: "ask", arguments: {} });
      if (i >= 10) times.push(performance.now() - t0);
    }
  } finally {
    await client.close();
  }
  return median(times);
}

/** Median ms of one exchange through the harness (both ends, recorded) and the pass-through relay. */
export async function harnessExchangeMs(control: ControlServer): Promise<number> {
  const profile = loadTarget(PASSTHROUGH);
  const session = await RelaySession.open({
    profile,
    profileFile: PASSTHROUGH,
    era: ERA,
    capabilities: { sampling: {} },
    control,
  });
  const times: number[] = [];
  try {
    for (let i = 0; i < EXCHANGES + 10; i++) {
      const t0 = performance.now();
      const out = await session.runCase({
        caseKey: `bench/${i}`,
        params: PARAMS,
        answer: { action: "accept", result: RESULT },
      });
      if (out.observation.upstream.kind !== "result")
        throw new Error(`the pass-through did not deliver: ${JSON.stringify(out.observation.upstream)}`);
      if (i >= 10) times.push(performance.now() - t0);
    }
  } finally {
    await session.close();
  }
  return median(times);
}

async function fuzzPerSecond(): Promise<number> {
  const profile = loadTarget(REFERENCE);
  const rates: number[] = [];
  for (let i = 0; i < FUZZ_REPEATS; i++) {
    const [report] = await fuzzTarget({
      profile,
      profileFile: REFERENCE,
      eras: [ERA],
      runs: FUZZ_RUNS,
      seed: 7 + i,
    });
    if (!report || report.error || report.counterexample)
      throw new Error(`fuzzing the reference relay failed: ${report?.error ?? "a counterexample"}`);
    rates.push((FUZZ_RUNS / report.durationMs) * 1000);
  }
  return median(rates);
}

export interface SpeedFigures {
  run: RunFigures;
  exchange: {
    rawSdkMs: number;
    rawSdkStdioMs: number;
    harnessMs: number;
    ratio: number;
    stdioRatio: number;
    samples: number;
  };
  fuzz: { exchangesPerSecond: number; runs: number; repeats: number };
}

export async function benchSpeed(): Promise<SpeedFigures> {
  const control = new ControlServer();
  await control.start();
  try {
    const run = await benchRun(control);
    const rawSdkMs = await rawSdkExchangeMs();
    const rawSdkStdioMs = await rawSdkStdioExchangeMs();
    const harnessMs = await harnessExchangeMs(control);
    const fuzz = await fuzzPerSecond();
    return {
      run,
      exchange: {
        rawSdkMs,
        rawSdkStdioMs,
        harnessMs,
        ratio: harnessMs / rawSdkMs,
        stdioRatio: harnessMs / rawSdkStdioMs,
        samples: EXCHANGES,
      },
      fuzz: { exchangesPerSecond: fuzz, runs: FUZZ_RUNS, repeats: FUZZ_REPEATS },
    };
  } finally {
    await control.close();
  }
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export function speedLines(f: SpeedFigures): string[] {
  const { run, exchange, fuzz } = f;
  return [
    `speed — node ${process.version}, ${defaultConcurrency()} lanes by default (this machine)`,
    `  ${"measure".padEnd(76)}${"figure".padStart(14)}   against`,
    `  ${`npx mcpx-conform run: ${run.target}, ${run.eras.length} eras (${run.caseRuns} case runs, concurrency ${run.concurrency}, median of ${RUN_REPEATS})`.padEnd(76)}${s(run.wallMs).padStart(14)}   floor ${s(run.floorMs)} (${(run.wallMs / run.floorMs).toFixed(2)}×): waits ${s(run.waitFloorMs)} on the busiest session + one relay start-up ${s(run.relayStartMs)}`,
    `  ${"  its CPU, user + sys: the harness, every relay and their upstreams".padEnd(76)}${s(run.cpuMs).padStart(14)}   ${(run.cpuMs / run.caseRuns).toFixed(1)} ms per case run; ${(run.cpuMs / run.wallMs).toFixed(2)} cores busy on average`,
    `  ${"  its peak RSS (harness process) and what it wrote".padEnd(76)}${`${(run.peakRssBytes / 1048576).toFixed(0)} MB`.padStart(14)}   matrix.html ${(run.htmlBytes / 1048576).toFixed(1)} MB (bound 5 MB), evidence ${(run.evidenceBytes / 1048576).toFixed(1)} MB`,
    `  ${`one exchange, harness + pass-through relay (median of ${exchange.samples})`.padEnd(76)}${`${exchange.harnessMs.toFixed(2)} ms`.padStart(14)}   raw SDK client↔server on stdio ${exchange.rawSdkStdioMs.toFixed(2)} ms (${exchange.stdioRatio.toFixed(1)}×); in one process ${exchange.rawSdkMs.toFixed(3)} ms (${exchange.ratio.toFixed(1)}×)`,
    `  ${`fuzz, reference relay, ${ERA} (${fuzz.runs} exchanges, median of ${fuzz.repeats})`.padEnd(76)}${`${fuzz.exchangesPerSecond.toFixed(0)} /s`.padStart(14)}   one relay start included`,
  ];
}
