import { setTimeout as sleep } from "node:timers/promises";
import type { Answer } from "../model/case.ts";
import type { Observation, UpstreamOutcome } from "../model/evidence.ts";
import type { TargetProfile } from "../model/target.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";
import { ClientAnswerer } from "./answerer.ts";
import { type ControlServer, recorded } from "./channels.ts";
import { connectWhenReady, launchRelay, openDownstream, type UpstreamEndpoint } from "./endpoints.ts";
import { callProbeAndRace } from "./ends.ts";
import { FrameRecorder } from "./frames.ts";
import { withCanary } from "./instantiate.ts";
import { makeTempDir, removeTempDir } from "./processes.ts";
import { fillPlaceholders, RELAY_LOG_CHARS, type RelayProcess } from "./relay-process.ts";
import { type CaseRunOutput, upstreamWaitMs } from "./session.ts";
import { type Probe, ScriptedUpstream } from "./upstream.ts";
import {
  ASKER_ANSWER_POLL_MS,
  ASKER_ANSWER_WAIT_MS,
  ASKER_FORWARD_WAIT_MS,
  CALL_END_GRACE_MS,
  ISOLATION_STOP_GRACE_MS,
  OUTCOME_GRACE_MS,
  PROBE_CALL_SLACK_MS,
  UPSTREAM_POLL_MS,
} from "./waits.ts";

/**
 * Session isolation (cases with `sessions: 2`): one relay, two downstream client sessions A and B on it. A calls
 * the probe tool; the sampling request it causes must reach A only, and the upstream must receive A's answer.
 * B answers everything at once with a decoy (the case's answer under a different canary) while A answers after
 * the case's delay, so a bridge that broadcasts server requests to every session and forwards the first answer
 * hands the upstream B's decoy, and is caught even when it happens to forward A's.
 *
 * Both answerers use the same JSON-RPC ids, as independent clients do; a relay has to keep them apart.
 */

export const ASKER = "A";
export const BYSTANDER = "B";

/** Why the isolation rule does not apply to this target (a relay that has one client session), or undefined. */
export function multiSessionNotApplicable(profile: TargetProfile): string | undefined {
  return profile.downstream.transport === "stdio"
    ? 'n/a on a stdio downstream: "the client launches the MCP server as a subprocess" (basic/transports#stdio), so one relay process serves one client session and there is no other session an answer could reach'
    : undefined;
}

/** What the bystander session answers: the asker's answer under a decoy canary, at once. */
export function bystanderAnswer(answer: Answer, canary: string): Answer {
  const decoy = withCanary(answer, `${canary}-bystander`);
  if (decoy.action !== "accept") return decoy;
  const { delayMs: _delay, ...immediate } = decoy;
  return immediate;
}

export interface IsolationRunInput {
  profile: TargetProfile;
  profileFile?: string;
  era: Era;
  capabilities: Record<string, unknown>;
  control: ControlServer;
  caseKey: string;
  params: Record<string, unknown>;
  /** Session A's answer (canary filled in). */
  answer: Answer;
  /** Session B's answer. */
  bystander: Answer;
}

// Long: one relay, two sessions and their shared upstream, set up, raced and reaped in one visible order.
export async function runIsolationCase(
  input: IsolationRunInput,
): Promise<CaseRunOutput & { harnessError?: string }> {
  const { profile, era } = input;
  if (isModernEra(era)) {
    // 2026-07-28 has no server-to-client request to route; its answerers are not two-session capable here.
    return {
      observation: { sent: input.params, asked: [], upstream: { kind: "broken", detail: "not driven" } },
      frames: [],
      negotiated: { upstream: null, downstream: null },
      harnessError: `two-session cases are not driven in ${era} by this harness build`,
    };
  }
  const recorder = new FrameRecorder();
  const tmp = makeTempDir();
  const upstreams: ScriptedUpstream[] = [];
  const closers: Array<() => Promise<void>> = [];
  let relay: RelayProcess | undefined;
  let endpoint: UpstreamEndpoint | undefined;
  let probe: Probe | undefined;
  let accepting = true;
  let asker: ClientAnswerer | undefined;
  let bystander: ClientAnswerer | undefined;
  let outcome: UpstreamOutcome;
  try {
    const launched = await launchRelay(profile, input.profileFile, input.control, tmp, era);
    endpoint = launched.endpoint;
    relay = launched.relay;
    const values = launched.values;
    // Every upstream connection the relay makes gets a scripted upstream armed with the case's probe: a relay
    // may share one upstream between its sessions or launch one per session.
    const ep = endpoint;
    void (async () => {
      while (accepting) {
        const channel = await ep.next(UPSTREAM_POLL_MS).catch(() => undefined);
        if (!channel || !accepting) continue;
        const label = profile.upstream.transport === "stdio" ? `upstream-${upstreams.length + 1}` : undefined;
        const upstream = new ScriptedUpstream(recorded(channel, recorder, "upstream", label), era);
        if (probe) upstream.arm(probe);
        upstreams.push(upstream);
      }
    })();
    const running = relay;
    const exited = running.whenExited("during start-up");
    const url = profile.downstream.url ? fillPlaceholders(profile.downstream.url, values) : undefined;
    const connect = async (session: string) => {
      const connected = await connectWhenReady(
        () => openDownstream(profile, running, url, recorder, session),
        (channel) => new ClientAnswerer(channel, era, input.capabilities, profile.probe),
        {
          http: profile.downstream.transport !== "stdio",
          deadline: performance.now() + profile.startupTimeoutMs,
          gone: () => running.exited,
          waiting: () => undefined,
        },
      );
      closers.push(connected.close);
      return connected.answerer;
    };
    asker = await Promise.race([connect(ASKER), exited]);
    bystander = await Promise.race([connect(BYSTANDER), exited]);
    outcome = await probeOnce(input, asker, bystander, upstreams, recorder, (p) => {
      probe = p;
    });
  } catch (error) {
    outcome = {
      kind: "broken",
      detail: `the relay session could not start: ${error instanceof Error ? error.message : String(error)}`,
    };
  } finally {
    accepting = false;
    for (const upstream of upstreams) upstream.arm(undefined);
  }
  if (relay?.exited && outcome.kind !== "result" && outcome.kind !== "error") {
    outcome = { kind: "broken", detail: `the relay ${relay.exited}` };
  }
  const observation: Observation = {
    sent: input.params,
    asked: [...(asker?.asked ?? [])],
    answered: asker?.answered,
    upstream: outcome,
    bystanders: [{ session: BYSTANDER, asked: [...(bystander?.asked ?? [])], answered: bystander?.answered }],
  };
  const output: CaseRunOutput = {
    observation,
    frames: recorder.since(0),
    negotiated: { upstream: upstreams[0]?.negotiated ?? null, downstream: asker?.negotiated ?? null },
  };
  // This relay served this case alone: all it wrote on stderr is the case's (bounded).
  if (relay) output.relayLog = relay.stderr.slice(-RELAY_LOG_CHARS);
  // This relay served one case only: close both sessions at once and give it little grace before the kill.
  await Promise.all(closers.map((close) => close().catch(() => undefined)));
  await relay?.stop(ISOLATION_STOP_GRACE_MS);
  await endpoint?.close().catch(() => undefined);
  removeTempDir(tmp);
  return output;
}

/**
 * A's answer is slow on purpose: let it finish (bounded), so that the verdict compares the two answers. A relay that
 * hands both answers upstream forwards A's too: then wait (bounded) for its next frame to the upstream, so whether the
 * transcript holds it does not depend on a race with the end of the case.
 */
async function askerAnswerSettled(asker: ClientAnswerer, recorder: FrameRecorder): Promise<void> {
  for (
    let waited = 0;
    asker.asked.length > 0 && asker.answered === undefined && waited < ASKER_ANSWER_WAIT_MS;
    waited += ASKER_ANSWER_POLL_MS
  ) {
    await sleep(ASKER_ANSWER_POLL_MS);
  }
  const answeredAt = recorder.length;
  for (
    let waited = 0;
    asker.answered !== undefined &&
    waited < ASKER_FORWARD_WAIT_MS &&
    !recorder.since(answeredAt).some((f) => f.end === "upstream" && f.dir === "from-relay");
    waited += ASKER_ANSWER_POLL_MS
  ) {
    await sleep(ASKER_ANSWER_POLL_MS);
  }
}

/** Arms the probe, has A call it with both sessions scripted, and returns what reached the upstream. */
async function probeOnce(
  input: IsolationRunInput,
  asker: ClientAnswerer,
  bystander: ClientAnswerer,
  upstreams: ScriptedUpstream[],
  recorder: FrameRecorder,
  setProbe: (probe: Probe) => void,
): Promise<UpstreamOutcome> {
  const { profile } = input;
  asker.script(input.answer);
  bystander.script(input.bystander);
  let settle!: (o: UpstreamOutcome) => void;
  const outcomeP = new Promise<UpstreamOutcome>((r) => {
    settle = r;
  });
  let settled = false;
  const probe: Probe = {
    caseKey: input.caseKey,
    params: input.params,
    waitMs: upstreamWaitMs(profile.caseTimeoutMs),
    done: (o) => {
      if (settled) return;
      settled = true;
      settle(o);
    },
  };
  setProbe(probe);
  for (const upstream of upstreams) upstream.arm(probe);
  const raced = callProbeAndRace(asker, input.caseKey, profile.caseTimeoutMs + PROBE_CALL_SLACK_MS, outcomeP);
  const callP = raced.call;
  const first = await raced.first;
  if ("outcome" in first) {
    await Promise.race([callP, sleep(CALL_END_GRACE_MS)]);
    await askerAnswerSettled(asker, recorder);
    return first.outcome;
  }
  // The probe call ended first: give the upstream a moment, else the sampling round never completed.
  const late = await Promise.race([outcomeP, sleep(OUTCOME_GRACE_MS).then(() => undefined)]);
  if (late) return late;
  const call = first.call;
  const how =
    "error" in call
      ? call.error.message
      : `the relay answered the probe tool call with ${JSON.stringify(call.response.error ?? call.response.result).slice(0, 200)}`;
  return { kind: "broken", detail: `the upstream's sampling request was never answered: ${how}` };
}
