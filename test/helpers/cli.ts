import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
export const BIN = join(ROOT, "bin/mcpx-conform.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI as a user would (a child process), with a hard deadline. */
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
 * A fresh folder under `tmpdir()`. In a test file that is the file's own temporary root (test/setup/temp.ts), which
 * is removed with everything in it after the file's tests, so callers need not clean up.
 */
export function tempDir(prefix = "mcpx-conform-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
