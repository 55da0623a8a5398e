import { spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT, tempDir } from "./paths.ts";

// Files that need only these import them from ./paths.ts, which starts nothing (test/architecture/lanes.test.ts).
export { ROOT, tempDir } from "./paths.ts";
export const BIN = join(ROOT, "bin/mcpx-conform.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real CLI as a user would (a child process), with a hard deadline. Each call pays Node's and tsx's start-up
 * (about 0.6 s here): use it for one smoke test per command and for what is about the process itself (signals, the
 * real exit code, stdin, the process table); everything else goes through `cliInProcess`.
 */
export function cli(args: string[], options: { timeoutMs?: number; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `mcpx-conform ${args.join(" ")} did not finish within ${options.timeoutMs ?? 120_000} ms\n${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 120_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/**
 * Runs the CLI in this process (`main` with its own output sinks and folder), as `cli` would but without a child
 * process: same result shape; stderr is not a TTY. Fails if the run left a SIGINT/SIGTERM handler installed.
 */
export async function cliInProcess(
  args: string[],
  options: { cwd?: string; stdin?: string } = {},
): Promise<CliResult> {
  // Loaded on first use: most files import this module only for ROOT and tempDir.
  const { main } = await import("../../src/main.ts");
  const handlers = () => process.listenerCount("SIGINT") + process.listenerCount("SIGTERM");
  const before = handlers();
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd: options.cwd ?? ROOT,
    isTTY: false,
    ...(options.stdin !== undefined ? { stdin: () => options.stdin! } : {}),
  });
  if (handlers() !== before)
    throw new Error(`mcpx-conform ${args.join(" ")} left ${handlers() - before} signal handler(s) installed`);
  return { code, stdout, stderr };
}

/** Runs the same `run` arguments twice, each into a fresh folder (exit 0 each); returns both folders. */
export async function runTwice(args: string[]): Promise<[string, string]> {
  const dirs: [string, string] = [tempDir(), tempDir()];
  for (const out of dirs) {
    const r = await cliInProcess([...args, "--out", out]);
    if (r.code !== 0) throw new Error(`mcpx-conform ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  }
  return dirs;
}
