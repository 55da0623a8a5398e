import { randomBytes } from "node:crypto";
import { chmodSync, writeFileSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { TargetProfile } from "../model/target.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";
import { type ControlServer, childStdioChannel } from "./channels.ts";
import type { FrameRecorder } from "./frames.ts";
import { httpDownstreamChannel } from "./http-downstream.ts";
import { HttpUpstreamHost } from "./http-upstream.ts";
import type { LineChannel } from "./jsonrpc-peer.ts";
import { recorded } from "./lines.ts";
import type { Placeholders } from "./placeholders.ts";
import { downstreamHeaders } from "./probe-call.ts";
import { freePort, RelayProcess } from "./relay-process.ts";
import { writeUpstreamLauncher } from "./upstream-launcher.ts";
import { LISTEN_POLL_MS, UPSTREAM_POLL_MS } from "./waits.ts";

/**
 * Where the harness upstream lives for one session: the placeholders a profile's command may use to reach it,
 * and the channel of each upstream connection the relay opens.
 */
export interface UpstreamEndpoint {
  placeholders: Omit<Placeholders, "port" | "tmp">;
  /**
   * The next upstream connection the relay makes (one per upstream process the relay launches; an HTTP upstream
   * multiplexes all the relay's sessions onto one channel).
   */
  next(timeoutMs: number): Promise<LineChannel>;
  close(): Promise<void>;
}

/**
 * stdio: the relay launches an executable shim that pipes to the controller's loopback control channel
 * (src/harness/upstream-launcher.ts). The token that names the session never travels on a command line (anyone can
 * read those in `ps`): it is written to a 0600 file in the session's 0700 temporary folder, which only the shim reads.
 */
export function stdioUpstream(control: ControlServer, token: string, tmp: string): UpstreamEndpoint {
  const tokenFile = join(tmp, "upstream.token");
  writeFileSync(tokenFile, token, { mode: 0o600 });
  chmodSync(tokenFile, 0o600);
  const shim = writeUpstreamLauncher(tmp, control.address, tokenFile);
  return {
    placeholders: { "upstream.command": shim },
    next: (timeoutMs) => control.next(token, timeoutMs),
    close: async () => undefined,
  };
}

export async function openUpstream(
  profile: TargetProfile,
  control: ControlServer,
  token: string,
  tmp: string,
  era?: Era,
): Promise<UpstreamEndpoint> {
  switch (profile.upstream.transport) {
    case "stdio":
      return stdioUpstream(control, token, tmp);
    case "streamable-http":
    case "sse":
      return httpUpstream(
        await HttpUpstreamHost.start(profile.upstream.transport, {
          modern: era !== undefined && isModernEra(era),
        }),
      );
  }
}

/** Streamable HTTP or SSE: the harness hosts the upstream at {{upstream.url}} on 127.0.0.1. */
function httpUpstream(host: HttpUpstreamHost): UpstreamEndpoint {
  const url = new URL(host.url);
  return {
    placeholders: { "upstream.url": host.url, "upstream.origin": url.origin, "upstream.path": url.pathname },
    next: (timeoutMs) => host.next(timeoutMs),
    close: () => host.close(),
  };
}

/**
 * Starts the relay of a profile: hosts (or prepares the shim of) the harness upstream under a fresh token, picks
 * a free port, fills the placeholders and spawns the relay. Returns the filled values for the downstream URL.
 */
export async function launchRelay(
  profile: TargetProfile,
  profileFile: string | undefined,
  control: ControlServer,
  tmp: string,
  era?: Era,
): Promise<{ endpoint: UpstreamEndpoint; relay: RelayProcess; values: Placeholders }> {
  const port = await freePort();
  const endpoint = await openUpstream(profile, control, randomBytes(8).toString("hex"), tmp, era);
  const values: Placeholders = { ...endpoint.placeholders, port: String(port), tmp };
  return { endpoint, relay: new RelayProcess(profile, profileFile, values), values };
}

/**
 * Connects the harness answerer to the relay's downstream side; every frame is recorded (labelled `session` when
 * several downstream sessions share one relay). HTTP: one attempt (see connectWhenReady for the retries); `era` is the
 * one the answerer speaks (2026-07-28 over Streamable HTTP: no session, the version header from the start).
 */
export async function openDownstream(
  profile: TargetProfile,
  relay: RelayProcess,
  url: string | undefined,
  recorder: FrameRecorder,
  session?: string,
  era?: Era,
  listen: { noStandaloneStream?: boolean } = {},
): Promise<{ channel: LineChannel; close(): Promise<void> }> {
  switch (profile.downstream.transport) {
    case "stdio":
      return {
        channel: recorded(childStdioChannel(relay.child), recorder, "downstream", session),
        close: async () => undefined,
      };
    case "streamable-http":
    case "sse": {
      if (url === undefined) throw new Error(`a ${profile.downstream.transport} downstream needs a url`);
      // The relay's stdout carries no protocol here: drain it so that a chatty relay never blocks on a full pipe.
      relay.child.stdout.resume();
      const http = await httpDownstreamChannel(
        profile.downstream.transport,
        url,
        profile.startupTimeoutMs,
        downstreamHeaders(profile, undefined),
        era,
        listen.noStandaloneStream === true,
      );
      return { channel: recorded(http.channel, recorder, "downstream", session), close: http.close };
    }
  }
}

/**
 * Hands every upstream connection the relay opens, recorded, to `serve`, until `accepting` turns false: a relay may
 * launch an upstream process, or open an upstream session, per downstream session or per request. Over stdio each is
 * labelled `upstream-N` (a process of its own; with `firstUnlabelled` the first is not, as a relay with one upstream
 * has it); over HTTP the host labels each session.
 */
export function acceptUpstreams(
  endpoint: UpstreamEndpoint,
  profile: TargetProfile,
  recorder: FrameRecorder,
  accepting: () => boolean,
  serve: (wire: LineChannel) => void,
  options: {
    firstUnlabelled?: boolean;
    firstWithinMs?: number;
    onFirstMissing?: (error: Error) => void;
  } = {},
): void {
  let count = 0;
  void (async () => {
    while (accepting()) {
      const first = count === 0 && options.firstWithinMs !== undefined;
      const channel = await endpoint
        .next(first ? options.firstWithinMs! : UPSTREAM_POLL_MS)
        .catch((error: Error) => {
          if (first) options.onFirstMissing?.(error);
          return undefined;
        });
      if (first && !channel) return;
      if (!channel || !accepting()) continue;
      count++;
      const stdio = profile.upstream.transport === "stdio";
      const label = stdio && !(count === 1 && options.firstUnlabelled) ? `upstream-${count}` : undefined;
      serve(recorded(channel, recorder, "upstream", label));
    }
  })();
}

/** Nothing accepted a TCP connection at the relay's port (yet): always worth another try, as a failed fetch is. */
class PortClosed extends Error {}

/**
 * Resolves once something accepts a TCP connection at host:port (closed at once); rejects with PortClosed when the
 * connection is refused or not made within `withinMs` (a host that drops the attempt would hold it for minutes).
 */
function portAccepts(at: { host: string; port: number }, withinMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(at.port, at.host);
    socket.setTimeout(withinMs, () => {
      socket.destroy();
      reject(new PortClosed(`no connection to ${at.host}:${at.port} within ${withinMs} ms`));
    });
    socket.once("connect", () => {
      socket.destroy();
      resolve();
    });
    socket.once("error", (error) => {
      socket.destroy();
      reject(new PortClosed(error.message));
    });
  });
}

/** The host and port a relay's HTTP URL names (the scheme's port when it names none). */
export function listensAt(url: string): { host: string; port: number } {
  const u = new URL(url);
  const port = u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
  return { host: u.hostname.replace(/^\[|\]$/g, ""), port };
}

/** A refusal that means "not ready yet" (nothing listens, or a proxy's 502/503/504), not an answer. */
const NOT_READY = /ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|fetch failed|HTTP 50[234]\b|\b50[234]\b/;

/**
 * Opens the downstream and connects an answerer. Readiness is an answered initialize (2026-07-28: server/discover
 * and tools/list), not an open port: over HTTP a relay that refuses the connection or answers 502/503/504 is tried
 * again every LISTEN_POLL_MS until `deadline` (a relay that listens before it can serve is driven once it can). Any
 * other refusal (a 401, a JSON-RPC error, a closed stream) is the relay's answer, at once.
 */
export async function connectWhenReady<A extends { connect(timeoutMs: number): Promise<void> }>(
  open: () => Promise<{ channel: LineChannel; close(): Promise<void> }>,
  make: (channel: LineChannel) => A,
  options: {
    http: boolean;
    deadline: number;
    gone: () => string | undefined;
    waiting: (why: string) => void;
    /**
     * The relay's host and port (HTTP): each try first opens a bare TCP connection there, so that while a slow relay
     * starts (seconds for a Python one) a try costs a refused connect, not a transport, a client and a request.
     */
    listening?: { host: string; port: number };
  },
): Promise<{ answerer: A; close(): Promise<void> }> {
  for (;;) {
    let close: (() => Promise<void>) | undefined;
    try {
      if (options.listening)
        await portAccepts(options.listening, Math.max(1, Math.ceil(options.deadline - performance.now())));
      const downstream = await open();
      close = downstream.close;
      const answerer = make(downstream.channel);
      await answerer.connect(Math.max(1, options.deadline - performance.now()));
      return { answerer, close: downstream.close };
    } catch (error) {
      await close?.().catch(() => undefined);
      const message = error instanceof Error ? error.message : String(error);
      const notReady = error instanceof PortClosed || NOT_READY.test(message);
      const again = options.http && notReady && options.gone() === undefined;
      // Past the deadline by a little: the caller's own start-up timer (started earlier) says why first.
      if (!again || performance.now() >= options.deadline + 4 * LISTEN_POLL_MS) throw error;
      options.waiting(message);
      await sleep(LISTEN_POLL_MS);
    }
  }
}
