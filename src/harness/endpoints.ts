import { chmodSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TargetProfile } from "../model/target.ts";
import { type ControlServer, childStdioChannel, recorded } from "./channels.ts";
import type { FrameRecorder } from "./frames.ts";
import type { LineChannel } from "./jsonrpc-peer.ts";
import type { RelayProcess } from "./relay-process.ts";

const SHIM = join(dirname(fileURLToPath(import.meta.url)), "upstream-shim.mjs");

/**
 * Where the harness upstream lives for one session: the placeholders a profile's command may use to reach it,
 * and the channel of each upstream connection the relay opens.
 */
export interface UpstreamEndpoint {
  placeholders: { "upstream.command": string; "upstream.url"?: string };
  /** The next upstream connection the relay makes (one per upstream the relay launches or connects). */
  next(timeoutMs: number): Promise<LineChannel>;
  close(): Promise<void>;
}

/** stdio: the relay launches an executable shim that pipes to the controller's loopback control channel. */
export function stdioUpstream(control: ControlServer, token: string, tmp: string): UpstreamEndpoint {
  const shim = join(tmp, "upstream");
  writeFileSync(shim, `#!/bin/sh\nexec '${process.execPath}' '${SHIM}' '${control.address}' '${token}'\n`);
  chmodSync(shim, 0o755);
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
): Promise<UpstreamEndpoint> {
  switch (profile.upstream.transport) {
    case "stdio":
      return stdioUpstream(control, token, tmp);
    default:
      throw new Error(
        `upstream transport ${profile.upstream.transport} is not supported by this harness build`,
      );
  }
}

/** Connects the harness answerer to the relay's downstream side; every frame is recorded. */
export async function openDownstream(
  profile: TargetProfile,
  relay: RelayProcess,
  url: string | undefined,
  recorder: FrameRecorder,
): Promise<{ channel: LineChannel; close(): Promise<void> }> {
  void url;
  switch (profile.downstream.transport) {
    case "stdio":
      return {
        channel: recorded(childStdioChannel(relay.child), recorder, "downstream"),
        close: async () => undefined,
      };
    default:
      throw new Error(
        `downstream transport ${profile.downstream.transport} is not supported by this harness build`,
      );
  }
}
