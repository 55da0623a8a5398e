import type { UpstreamOutcome } from "../model/evidence.ts";
import type { TargetProfile } from "../model/target.ts";
import type { Era } from "../protocol/eras.ts";
import type { ControlServer } from "./channels.ts";
import {
  acceptUpstreams,
  connectWhenReady,
  launchRelay,
  listensAt,
  openDownstream,
  type UpstreamEndpoint,
} from "./endpoints.ts";
import type { FrameRecorder } from "./frames.ts";
import type { LineChannel } from "./jsonrpc-peer.ts";
import { fillPlaceholders, type Placeholders } from "./placeholders.ts";
import { makeTempDir, removeTempDir } from "./processes.ts";
import { PORT_TAKEN, type RelayProcess } from "./relay-process.ts";

export interface RelayHostOptions {
  profile: TargetProfile;
  profileFile?: string;
  control: ControlServer;
  /** The upstream's era (an HTTP upstream host speaks 2026-07-28 framing for it). */
  era: Era;
}

/**
 * One relay process and what the harness opened for it: its private temporary folder, the harness upstream it
 * launches (stdio) or connects to (HTTP), and the downstream sessions the harness connects to it. A single-session
 * case's RelaySession and a two-session case (src/harness/isolation.ts) both drive the relay through one of these, so
 * the launch, the upstream connections, the downstream connection, the relay-exited rule and the reaping are written
 * once.
 */
export class RelayHost {
  private readonly closers: Array<() => Promise<void>> = [];
  private closed = false;

  private constructor(
    private readonly options: RelayHostOptions,
    readonly relay: RelayProcess,
    /** The filled placeholders ({{port}}, {{tmp}}, the upstream's), for the answerer's URLs and a broker's commands. */
    readonly values: Placeholders,
    private readonly endpoint: UpstreamEndpoint,
    private readonly tmp: string,
  ) {}

  /** Picks a port, opens the harness upstream and spawns the relay. */
  static async launch(options: RelayHostOptions): Promise<RelayHost> {
    const tmp = makeTempDir();
    try {
      const { profile, profileFile, control, era } = options;
      const launched = await launchRelay(profile, profileFile, control, tmp, era);
      return new RelayHost(options, launched.relay, launched.values, launched.endpoint, tmp);
    } catch (error) {
      removeTempDir(tmp);
      throw error;
    }
  }

  /** The relay's downstream URL (HTTP downstreams), placeholders filled. */
  get downstreamUrl(): string | undefined {
    const { url } = this.options.profile.downstream;
    return url ? fillPlaceholders(url, this.values) : undefined;
  }

  /**
   * Hands every upstream connection the relay opens, recorded, to `serve` until the host closes (a relay may launch
   * an upstream per downstream session or per request: see acceptUpstreams).
   */
  acceptUpstreams(
    recorder: FrameRecorder,
    serve: (wire: LineChannel) => void,
    options?: Parameters<typeof acceptUpstreams>[5],
  ): void {
    acceptUpstreams(this.endpoint, this.options.profile, recorder, () => !this.closed, serve, options);
  }

  /**
   * Connects one downstream session with the answerer `make` builds, once the relay is ready (within the profile's
   * startupTimeoutMs); rejects at once should the relay exit first. `session` labels its frames when several
   * sessions share the relay; `era` is the one the answerer speaks; `waiting` hears why a try was not yet answered.
   */
  async connect<A extends { connect(timeoutMs: number): Promise<void> }>(
    recorder: FrameRecorder,
    make: (channel: LineChannel) => A,
    options: {
      session?: string;
      era?: Era;
      noStandaloneStream?: boolean;
      waiting?: (why: string) => void;
    } = {},
  ): Promise<A> {
    const { profile } = this.options;
    const url = this.downstreamUrl;
    const connected = await Promise.race([
      connectWhenReady(
        () =>
          openDownstream(profile, this.relay, url, recorder, options.session, options.era, {
            noStandaloneStream: options.noStandaloneStream === true,
          }),
        make,
        {
          http: profile.downstream.transport !== "stdio",
          ...(url ? { listening: listensAt(url) } : {}),
          deadline: performance.now() + profile.startupTimeoutMs,
          gone: () => this.relay.exited,
          waiting: options.waiting ?? (() => undefined),
        },
      ),
      this.relay.whenExited("during start-up"),
    ]);
    this.closers.push(connected.close);
    return connected.answerer;
  }

  /**
   * The relay-exited rule: an exchange that got no result and no error from a relay that has exited ended because
   * the relay did (whatever the harness saw first: a closed channel, a timeout).
   */
  outcome(outcome: UpstreamOutcome): UpstreamOutcome {
    return this.relay.exited && outcome.kind !== "result" && outcome.kind !== "error"
      ? { kind: "broken", detail: `the relay ${this.relay.exited}` }
      : outcome;
  }

  /** Closes the downstream sessions, then stops the relay's process group (SIGTERM, `graceMs`, SIGKILL) and cleans up. */
  async close(graceMs?: number): Promise<void> {
    this.closed = true;
    await Promise.all(this.closers.map((close) => close().catch(() => undefined)));
    await this.relay.stop(graceMs);
    await this.endpoint.close().catch(() => undefined);
    removeTempDir(this.tmp);
  }
}

/**
 * The port a relay listens on is the harness's pick: should another process take it between the check and the
 * relay's bind (the relay says EADDRINUSE on stderr), the attempt is made once more, on a new port. `relayLog` reads
 * the relay's stderr from what the attempt returned or threw, or undefined where the relay was not the cause.
 */
export async function onceMoreIfPortTaken<T>(
  attempt: () => Promise<T>,
  relayLog: (ended: { value: T } | { error: unknown }) => string | undefined,
): Promise<T> {
  const taken = (ended: { value: T } | { error: unknown }) => PORT_TAKEN.test(relayLog(ended) ?? "");
  let value: T;
  try {
    value = await attempt();
  } catch (error) {
    if (taken({ error })) return attempt();
    throw error;
  }
  return taken({ value }) ? attempt() : value;
}
