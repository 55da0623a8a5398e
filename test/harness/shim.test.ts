import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ControlServer } from "../../src/harness/channels.ts";
import { stdioUpstream } from "../../src/harness/endpoints.ts";
import { makeTempDir, removeTempDir } from "../../src/harness/processes.ts";

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

describe("the upstream shim", () => {
  it("keeps its token off argv: the running shim's `ps -o args` and its launcher hold no token", async () => {
    await control.start();
    const token = randomBytes(8).toString("hex");
    const endpoint = stdioUpstream(control, token, tmp);
    const command = endpoint.placeholders["upstream.command"]!;
    expect(readFileSync(command, "utf8")).not.toContain(token);
    expect(mode(tmp)).toBe(0o700);
    expect(mode(command)).toBe(0o700);
    expect(mode(join(tmp, "upstream.token"))).toBe(0o600);

    // Launched as a relay would: the shim presents the token from its file, so the session receives it.
    const shim = spawn(command, [], { stdio: ["pipe", "pipe", "inherit"] });
    try {
      const channel = await endpoint.next(10_000);
      expect(channel).toBeDefined();
      const args = execFileSync("ps", ["-o", "args=", "-p", String(shim.pid)], { encoding: "utf8" });
      expect(args).toContain("upstream-shim.mjs");
      expect(args).not.toContain(token);
      const all = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
      expect(all).not.toContain(token);
    } finally {
      shim.kill("SIGKILL");
    }
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
