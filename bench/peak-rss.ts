/**
 * Peak resident memory of the harness process alone (not its relays): the CLI runs as a child process, and its
 * VmHWM (the kernel's high-water mark of its resident set, /proc/<pid>/status) is read by the child itself as it
 * exits (a preload given with --import; relays are spawned without it) and polled every 50 ms from outside, so a
 * child that dies of exhausted heap (no exit handler runs) still reports how high it got. Linux only (/proc).
 * `npm run bench` and test/e2e/bounded.test.ts use it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const BIN = join(ROOT, "bin/mcpx-conform.js");
const POLL_MS = 50;

/** kB of VmHWM in a /proc/<pid>/status text, or 0. */
export function vmHwmKb(status: string): number {
  const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
  return m ? Number(m[1]) : 0;
}

/** The preload: at exit, the process writes its own VmHWM (kB) to the file named by MCPX_PEAK_RSS_FILE. */
const PRELOAD = [
  'import { readFileSync, writeFileSync } from "node:fs";',
  "const file = process.env.MCPX_PEAK_RSS_FILE;",
  'if (file) process.on("exit", () => {',
  '  const m = /^VmHWM:\\s+(\\d+)\\s+kB/m.exec(readFileSync("/proc/self/status", "utf8"));',
  '  writeFileSync(file, m ? m[1] : "0");',
  "});",
].join("\n");

export interface MeasuredRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The harness process's peak resident set, in bytes. */
  peakRssBytes: number;
  wallMs: number;
  /**
   * CPU (user + sys) the machine spent while the run lasted, in ms: the harness, every relay and every process they
   * started, including those no parent waits for (a relay's upstream is reaped with the relay's process group, so
   * getrusage of the child would miss it). Read from /proc/stat, so anything else busy on the machine counts too:
   * run the benchmark on a quiet machine.
   */
  cpuMs: number;
}

/** The machine's busy CPU time so far, in ms (/proc/stat's first line: user nice system … in clock ticks of 10 ms). */
export function machineBusyMs(stat = readFileSync("/proc/stat", "utf8")): number {
  const [, user, nice, system, , , irq, softirq, steal] = stat
    .split("\n")[0]!
    .trim()
    .split(/\s+/)
    .map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 10;
}

function polledKb(pid: number | undefined): number {
  try {
    return pid === undefined ? 0 : vmHwmKb(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return 0; // exited between polls
  }
}

/** Runs `mcpx-conform ARGS` as a child process and measures its peak RSS (see above). */
export function measuredRun(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<MeasuredRun> {
  const dir = mkdtempSync(join(tmpdir(), "mcpx-conform-peak-"));
  const file = join(dir, "vmhwm");
  const t0 = performance.now();
  const busy0 = machineBusyMs();
  const child = spawn(
    process.execPath,
    [`--import=data:text/javascript,${encodeURIComponent(PRELOAD)}`, BIN, ...args],
    {
      cwd: options.cwd ?? ROOT,
      env: { ...(options.env ?? process.env), MCPX_PEAK_RSS_FILE: file },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.on("data", (c) => (stderr += c));
  let polled = 0;
  const poll = setInterval(() => {
    polled = Math.max(polled, polledKb(child.pid));
  }, POLL_MS);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 600_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      let reported = 0;
      try {
        reported = Number(readFileSync(file, "utf8")) || 0;
      } catch {}
      rmSync(dir, { recursive: true, force: true });
      const peakRssBytes = Math.max(polled, reported) * 1024;
      resolve({
        code,
        signal,
        stdout,
        stderr,
        peakRssBytes,
        wallMs: performance.now() - t0,
        cpuMs: machineBusyMs() - busy0,
      });
    });
  });
}
