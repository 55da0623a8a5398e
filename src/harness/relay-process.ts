import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, isAbsolute, resolve } from "node:path";
import type { TargetProfile } from "../model/target.ts";

export interface Placeholders {
  "upstream.command"?: string;
  "upstream.url"?: string;
  port: string;
  tmp: string;
}

/** Replaces {{name}} placeholders; an unknown or unavailable placeholder is an error naming it. */
export function fillPlaceholders(text: string, values: Placeholders): string {
  return text.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, name: string) => {
    const value = (values as unknown as Record<string, string | undefined>)[name];
    if (value === undefined) throw new Error(`placeholder {{${name}}} is not available for this profile`);
    return value;
  });
}

/** A free loopback TCP port (bound then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const address = server.address();
  await new Promise<void>((r) => server.close(() => r()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** A running relay process; its whole process group is reaped on stop. */
export class RelayProcess {
  readonly child: ChildProcessWithoutNullStreams;
  private stderrTail = "";
  exited: string | undefined;

  constructor(profile: TargetProfile, profileFile: string | undefined, values: Placeholders) {
    const base = profileFile ? dirname(profileFile) : process.cwd();
    const argv = profile.command.map((a) => fillPlaceholders(a, values));
    const cwd = profile.cwd ? (isAbsolute(profile.cwd) ? profile.cwd : resolve(base, profile.cwd)) : base;
    const env: Record<string, string> = { ...(process.env as Record<string, string>) };
    for (const [k, v] of Object.entries(profile.env)) env[k] = fillPlaceholders(v, values);
    // Relative program paths resolve against the profile's folder (a bare name is looked up on PATH).
    const program = argv[0]!.includes("/") && !isAbsolute(argv[0]!) ? resolve(base, argv[0]!) : argv[0]!;
    this.child = spawn(program, argv.slice(1), { cwd, env, stdio: "pipe", detached: true });
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-4000);
    });
    this.child.on("error", (error) => {
      this.exited = `could not start: ${error.message}`;
    });
    this.child.on("exit", (code, signal) => {
      this.exited ??= signal ? `killed by ${signal}` : `exited with code ${code}`;
    });
  }

  /**
   * Rejects once the process has exited (at once if it already has): race it against a start-up step so a
   * relay that dies fails the step instead of letting it wait out its timeout.
   */
  whenExited(during: string): Promise<never> {
    const gone = new Promise<never>((_, reject) => {
      const fail = () => reject(new Error(`the relay ${this.exited ?? "exited"} ${during}`));
      if (this.child.exitCode !== null || this.child.signalCode !== null) fail();
      else this.child.once("exit", fail);
    });
    gone.catch(() => undefined);
    return gone;
  }

  get stderr(): string {
    return this.stderrTail;
  }

  /** Ends stdin, then SIGTERM, then SIGKILL to the whole process group; resolves once it has exited. */
  async stop(graceMs = 1500): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined || this.child.exitCode !== null || this.child.signalCode !== null) {
      this.killGroup(pid, "SIGKILL");
      return;
    }
    const exited = new Promise<void>((r) => this.child.once("exit", () => r()));
    this.child.stdin.end();
    this.killGroup(pid, "SIGTERM");
    const timer = setTimeout(() => this.killGroup(pid, "SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
    // Children the relay started (upstream shims, npx wrappers) share its group: reap them too.
    this.killGroup(pid, "SIGKILL");
  }

  private killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  }
}
