import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ControlServer } from "../../src/harness/channels.ts";
import { stdioUpstream } from "../../src/harness/endpoints.ts";
import { makeTempDir, removeTempDir } from "../../src/harness/processes.ts";
import { upstreamPipe } from "../../src/harness/upstream-launcher.ts";

/**
 * The upstream shim's control token names the harness session; anyone who has it can pose as the relay's upstream.
 * It must never be on a command line (`ps` shows every process's argv to every user): it lives in a 0600 file in the
 * session's 0700 temporary folder.
 */
const control = new ControlServer();
const tmp = makeTempDir();
afterAll(async () => {
  await control.close();
  removeTempDir(tmp);
});

const mode = (path: string) => statSync(path).mode & 0o777;

/** Launches the shim of the pipe asked for as a relay would, and waits for its connection. */
async function launched(
  pipe: "bash" | "node",
  server: ControlServer,
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
) {
  const token = randomBytes(8).toString("hex");
  const previous = process.env.MCPX_CONFORM_NODE_SHIM;
  process.env.MCPX_CONFORM_NODE_SHIM = pipe === "node" ? "1" : "0";
  try {
    expect(upstreamPipe()).toBe(pipe);
    const endpoint = stdioUpstream(server, token, dir);
    const command = endpoint.placeholders["upstream.command"]!;
    const shim = spawn(command, [], { stdio: ["pipe", "pipe", "inherit"], env });
    const exited = new Promise<number | null>((resolve) => shim.on("exit", (code) => resolve(code)));
    const channel = await endpoint.next(10_000);
    return { token, command, shim, exited, channel };
  } finally {
    if (previous === undefined) delete process.env.MCPX_CONFORM_NODE_SHIM;
    else process.env.MCPX_CONFORM_NODE_SHIM = previous;
  }
}

/**
 * Runs `use` against a freshly launched shim (in `dir`, else a temporary folder of its own), then kills the shim and
 * removes the folder it made, however `use` ended.
 */
async function withShim(
  pipe: "bash" | "node",
  server: ControlServer,
  use: (shim: Awaited<ReturnType<typeof launched>> & { dir: string }) => Promise<void>,
  options: { dir?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<void> {
  const dir = options.dir ?? makeTempDir();
  try {
    const shim = await launched(pipe, server, dir, options.env);
    try {
      await use({ ...shim, dir });
    } finally {
      shim.shim.kill("SIGKILL");
    }
  } finally {
    if (!options.dir) removeTempDir(dir);
  }
}

// This machine's bash pipes (CI runs on Debian); the Node shim is what a machine without a usable bash runs.
const PIPES = ["bash", "node"] as const;

describe.each(PIPES)("the upstream shim (%s pipe)", (pipe) => {
  it("keeps its token off argv: the running shim's `ps -o args` and its launcher hold no token", async () => {
    await control.start();
    await withShim(pipe, control, async ({ token, command, shim, dir }) => {
      expect(readFileSync(command, "utf8")).not.toContain(token);
      expect(mode(dir)).toBe(0o700);
      expect(mode(command)).toBe(0o700);
      expect(mode(join(dir, "upstream.token"))).toBe(0o600);
      const args = execFileSync("ps", ["-o", "args=", "-p", String(shim.pid)], { encoding: "utf8" });
      expect(args).toContain(pipe === "node" ? "upstream-shim.mjs" : command);
      expect(args).not.toContain(token);
      const all = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
      expect(all).not.toContain(token);
    });
  });

  it("copies bytes unchanged both ways, and closes the connection when the relay closes its stdin", async () => {
    await withShim(pipe, control, async ({ shim, exited, channel }) => {
      const fromRelay: string[] = [];
      channel.onLine((line) => fromRelay.push(line));
      const closed = new Promise<string>((resolve) => channel.onClose(resolve));
      let toRelay = "";
      shim.stdout.on("data", (chunk: Buffer) => (toRelay += chunk.toString("utf8")));
      channel.send('{"jsonrpc":"2.0","id":1,"result":{"text":"é 🦊 \\u0000"}}');
      // A character split between two writes arrives whole.
      const fox = Buffer.from('{"jsonrpc":"2.0","id":2,"method":"x","params":{"t":"🦊"}}\n');
      shim.stdin.write(fox.subarray(0, fox.length - 6));
      shim.stdin.write(fox.subarray(fox.length - 6));
      await expect.poll(() => fromRelay.length, { timeout: 5_000 }).toBe(1);
      await expect.poll(() => toRelay, { timeout: 5_000 }).toContain("\n");
      expect(fromRelay[0]).toBe(fox.toString("utf8").trimEnd());
      expect(toRelay).toBe('{"jsonrpc":"2.0","id":1,"result":{"text":"é 🦊 \\u0000"}}\n');
      shim.stdin.end();
      expect(await closed).toBe("the relay closed the upstream's stdio");
      expect(await exited).toBe(0);
    });
  });

  it("runs as a relay may start it: with no environment at all, or one whose BASH_ENV prints", async () => {
    const dir = makeTempDir();
    const noisy = join(dir, "noisy-bash-env");
    writeFileSync(noisy, "echo 'sourced BASH_ENV'\ncat() { echo 'a function named cat'; }\nexport -f cat\n");
    try {
      for (const env of [{}, { PATH: process.env.PATH ?? "", BASH_ENV: noisy }])
        await withShim(
          pipe,
          control,
          async ({ shim, channel }) => {
            let toRelay = "";
            shim.stdout.on("data", (chunk: Buffer) => (toRelay += chunk.toString("utf8")));
            channel.send('{"jsonrpc":"2.0","id":7,"result":{}}');
            await expect.poll(() => toRelay, { timeout: 5_000 }).toContain("\n");
            expect(toRelay, JSON.stringify(env)).toBe('{"jsonrpc":"2.0","id":7,"result":{}}\n');
          },
          { dir, env },
        );
    } finally {
      removeTempDir(dir);
    }
  });

  it("closes its stdout and the connection when the relay stops it with SIGTERM", async () => {
    await withShim(pipe, control, async ({ shim, exited, channel }) => {
      const closed = new Promise<string>((resolve) => channel.onClose(resolve));
      const stdoutEnded = new Promise<void>((resolve) => shim.stdout.on("end", resolve));
      shim.stdout.resume();
      shim.kill("SIGTERM");
      await stdoutEnded;
      expect(await closed).toBe("the relay closed the upstream's stdio");
      await exited;
    });
  });

  it("exits, closing its stdout, when the harness closes the connection", async () => {
    const own = new ControlServer();
    await own.start();
    await withShim(pipe, own, async ({ shim, exited }) => {
      const stdoutEnded = new Promise<void>((resolve) => shim.stdout.on("end", resolve));
      shim.stdout.resume();
      await own.close();
      await stdoutEnded;
      expect(await exited).toBe(0);
    });
  });
});

describe("harness temporary folders", () => {
  it("are 0700 whatever the umask", () => {
    const previous = process.umask(0);
    try {
      const dir = makeTempDir();
      expect(mode(dir)).toBe(0o700);
      removeTempDir(dir);
    } finally {
      process.umask(previous);
    }
  });
});
