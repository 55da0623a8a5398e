import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, isAbsolute, resolve } from "node:path";
import type { TargetProfile } from "../model/target.ts";
import { outputRead } from "./channels.ts";
import { relayEnv } from "./env.ts";
import { fillPlaceholders, type Placeholders, writeProfileFiles } from "./placeholders.ts";
import { KILL_GRACE_MS, killGroup, trackGroup, untrackGroup } from "./processes.ts";
import { redact } from "./redact.ts";

/** How much of the relay's stderr is kept (the end of it), before and after redaction. */
const STDERR_RAW_KEEP = 16_000;
const STDERR_TAIL = 4_000;
/** How much of the relay's stderr one evidence transcript keeps (the end of what it wrote during the case). */
export const RELAY_LOG_CHARS = 2_000;

/**
 * Whether a loopback TCP port can be bound right now (released again at once). A listener on every interface (`::`)
 * holds it too, so this also finds a port a relay listening on `::` could not take; the harness itself never binds
 * anything but 127.0.0.1.
 */
function bindable(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** Below Linux's ephemeral range (32768–60999): no outgoing connection of any process holds these ports. */
const PORT_RANGE = { from: 20_000, to: 32_767 };
/** A relay that could not listen on the port the harness picked for it (taken since the harness checked it). */
export const PORT_TAKEN = /\bEADDRINUSE\b/;

/**
 * A free TCP port for a relay to listen on. Picked at random from PORT_RANGE and checked, rather than
 * asked of the OS (port 0): the OS hands a just-released ephemeral port to the next asker, so two runs side by side
 * (parallel test files, CI shards on one host) could both give their relay the same port and talk to each other's.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from + 1));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port found in ${PORT_RANGE.from}-${PORT_RANGE.to} after 50 tries`);
}

/** A running relay process; its whole process group is reaped on stop. */
export class RelayProcess {
  readonly child: ChildProcessWithoutNullStreams;
  private stderrRaw = "";
  private stderrCut = false;
  /** Characters the relay has written on stderr in all (the buffer keeps only the end of them). */
  private stderrTotal = 0;
  /** The profile's env values (filled): never shown, whatever the relay prints. */
  private readonly secrets: string[];
  exited: string | undefined;
  /** Where the relay runs and with what environment (a broker's command lines run the same way). */
  readonly cwd: string;
  readonly env: Record<string, string>;

  constructor(profile: TargetProfile, profileFile: string | undefined, values: Placeholders) {
    const base = profileFile ? dirname(profileFile) : process.cwd();
    const argv = profile.command.map((a) => fillPlaceholders(a, values));
    const cwd = profile.cwd ? (isAbsolute(profile.cwd) ? profile.cwd : resolve(base, profile.cwd)) : base;
    const extra = Object.fromEntries(
      Object.entries(profile.env).map(([k, v]) => [k, fillPlaceholders(v, values)]),
    );
    this.secrets = Object.values(extra);
    const env = relayEnv(profile, extra);
    // A relay configured by a file finds it written before it starts.
    writeProfileFiles(profile.files, values);
    this.cwd = cwd;
    this.env = env;
    // Relative program paths resolve against the profile's folder (a bare name is looked up on PATH).
    const program = argv[0]!.includes("/") && !isAbsolute(argv[0]!) ? resolve(base, argv[0]!) : argv[0]!;
    // A process group of its own, so that stop() reaches the relay's children too.
    this.child = spawn(program, argv.slice(1), { cwd, env, stdio: "pipe", detached: true });
    trackGroup(this.child.pid);
    this.child.stderr.on("data", (chunk: Buffer) => {
      // A flooding relay costs a bounded buffer; the tail is redacted only when read.
      const text = chunk.toString();
      this.stderrRaw += text;
      this.stderrTotal += text.length;
      if (this.stderrRaw.length > STDERR_RAW_KEEP) {
        this.stderrRaw = this.stderrRaw.slice(-STDERR_RAW_KEEP);
        this.stderrCut = true;
      }
    });
    this.child.on("error", (error) => {
      // A spawn error (ENOENT, EACCES) emits no "exit": this is the relay's end.
      this.exited ??= `could not start: ${error.message}`;
      this.child.emit("gone");
    });
    this.child.on("exit", (code, signal) => {
      this.exited ??= signal ? `killed by ${signal}` : `exited with code ${code}`;
      this.child.emit("gone");
    });
  }

  /** True once the process has exited or could not be started. */
  get gone(): boolean {
    return this.exited !== undefined || this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /**
   * Rejects once the process has exited (at once if it already has): race it against a start-up step so a
   * relay that dies fails the step instead of letting it wait out its timeout.
   */
  whenExited(during: string): Promise<never> {
    const gone = new Promise<never>((_, reject) => {
      const fail = () => reject(new Error(`the relay ${this.exited ?? "exited"} ${during}`));
      // Node may report the exit before the last lines on stdout are read: a relay that answers (a refusal of
      // initialize, say) and exits at once is read to the end first, so its answer settles the step.
      const failAfterOutput = () => void outputRead(this.child.stdout).then(fail);
      if (this.gone) failAfterOutput();
      else this.child.once("gone", failAfterOutput);
    });
    gone.catch(() => undefined);
    return gone;
  }

  /**
   * The end of the relay's stderr (at most 4,000 characters, whole lines), with the profile's env values and
   * anything credential-shaped redacted: this is what results, evidence and reports may quote.
   */
  get stderr(): string {
    return this.stderrSince(0);
  }

  /** Where the relay's stderr is now: `stderrSince(mark)` is what it writes from here on. */
  get stderrMark(): number {
    return this.stderrTotal;
  }

  /** The relay's stderr since `mark` (a `stderrMark`), bounded and redacted as `stderr` is. */
  stderrSince(mark: number): string {
    const kept = Math.min(this.stderrTotal - mark, this.stderrRaw.length);
    let text = kept > 0 ? this.stderrRaw.slice(-kept) : "";
    // A cut buffer starts mid-line: a secret's name may be cut off, so the partial line is dropped.
    if (this.stderrTotal - mark > this.stderrRaw.length || (mark === 0 && this.stderrCut))
      text = text.slice(text.indexOf("\n") + 1);
    const clean = redact(text, this.secrets);
    if (clean.length <= STDERR_TAIL) return clean;
    const tail = clean.slice(-STDERR_TAIL);
    const nl = tail.indexOf("\n");
    return nl >= 0 && nl < tail.length - 1 ? tail.slice(nl + 1) : tail;
  }

  /**
   * Ends stdin, then SIGTERM, then (after KILL_GRACE_MS) SIGKILL to the whole process group; resolves once the
   * relay has exited. Children the relay started share its group and are reaped with it.
   */
  async stop(graceMs = KILL_GRACE_MS): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined || this.gone) {
      killGroup(pid, "SIGKILL");
      untrackGroup(pid);
      return;
    }
    const exited = new Promise<void>((r) => this.child.once("gone", () => r()));
    this.child.stdin.end();
    killGroup(pid, "SIGTERM");
    const timer = setTimeout(() => killGroup(pid, "SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
    // Children the relay started (upstream shims, npx wrappers) share its group: reap them too.
    killGroup(pid, "SIGKILL");
    untrackGroup(pid);
  }
}
