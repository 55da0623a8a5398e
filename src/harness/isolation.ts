import { setTimeout as sleep } from "node:timers/promises";
import type { Answer } from "../model/case.ts";
import type { Observation, UpstreamOutcome } from "../model/evidence.ts";
import type { TargetProfile } from "../model/target.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";
import { ClientAnswerer } from "./answerer.ts";
import type { ControlServer } from "./channels.ts";
import {
  type ArmedProbe,
  ClientShapeRefused,
  callProbeAndRace,
  describeCallEnd,
  type Probe,
  type ProbeCallEnd,
  upstreamRefusal,
} from "./ends.ts";
import { FrameRecorder } from "./frames.ts";
import { withCanary } from "./instantiate.ts";
import type { LineChannel } from "./jsonrpc-peer.ts";
import { ModernAnswerer, ModernUpstream } from "./mrtr.ts";
import { onceMoreIfPortTaken, RelayHost } from "./relay-host.ts";
import { RELAY_LOG_CHARS } from "./relay-process.ts";
import { type CaseRunOutput, upstreamWaitMs } from "./session.ts";
import { ScriptedUpstream } from "./upstream.ts";
import {
  ASKER_ANSWER_POLL_MS,
  ASKER_ANSWER_WAIT_MS,
  ASKER_FORWARD_WAIT_MS,
  CALL_END_GRACE_MS,
  ISOLATION_STOP_GRACE_MS,
  MRTR_SECOND_ANSWER_MS,
  MRTR_SETTLE_MS,
  OUTCOME_GRACE_MS,
  PROBE_CALL_SLACK_MS,
  within,
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
  /** The case × era canary in `params` and `answer` (2026-07-28: session B's token is derived from it). */
  canary: string;
  /** Session A's answer (canary filled in). */
  answer: Answer;
  /** Session B's answer. */
  bystander: Answer;
  /** 2026-07-28: session B's answer delay, when the case sets it (see secondAskerAnswer). */
  secondDelayMs?: number;
  /** The most bytes of one frame the evidence keeps (default DEFAULT_MAX_FRAME_BYTES, src/harness/frames.ts). */
  maxFrameBytes?: number;
}

/**
 * Runs a two-session case on a relay of its own. Should the relay say EADDRINUSE before either session saw it (the
 * port the harness picked was taken between its check and the relay's bind), the case is tried once more on a new
 * port, as a relay session's start is (RelaySession.open).
 */
export function runIsolationCase(
  input: IsolationRunInput,
): Promise<CaseRunOutput & { harnessError?: string }> {
  const once = isModernEra(input.era) ? runModernIsolationCase : runIsolationOnce;
  return onceMoreIfPortTaken(
    () => once(input),
    (ended) => {
      if (!("value" in ended)) return undefined;
      const seen = ended.value.frames.some((f) => f.end === "downstream" && f.dir === "from-relay");
      return seen ? undefined : ended.value.relayLog;
    },
  );
}

// Long: one relay, two sessions and their shared upstream, set up, raced and reaped in one visible order.
async function runIsolationOnce(
  input: IsolationRunInput,
): Promise<CaseRunOutput & { harnessError?: string }> {
  const { profile, era } = input;
  const recorder = new FrameRecorder(input.maxFrameBytes);
  const upstreams: ScriptedUpstream[] = [];
  let host: RelayHost | undefined;
  let probe: Probe | undefined;
  let asker: ClientAnswerer | undefined;
  let bystander: ClientAnswerer | undefined;
  let outcome: UpstreamOutcome;
  // Set when the relay could not start (both sessions connected or not): the harness could not drive the case.
  let started = false;
  let notDriven: string | undefined;
  try {
    host = await RelayHost.launch({ profile, profileFile: input.profileFile, control: input.control, era });
    // Every upstream connection the relay makes gets a scripted upstream armed with the case's probe: a relay
    // may share one upstream between its sessions or launch one per session.
    host.acceptUpstreams(recorder, (wire) => {
      const upstream = new ScriptedUpstream(wire, era);
      if (probe) upstream.arm(probe);
      upstreams.push(upstream);
    });
    const answerer = (channel: LineChannel) =>
      new ClientAnswerer(channel, era, input.capabilities, profile.probe);
    asker = await host.connect(recorder, answerer, { session: ASKER });
    bystander = await host.connect(recorder, answerer, { session: BYSTANDER });
    started = true;
    outcome = await probeOnce(input, asker, bystander, upstreams, recorder, (p) => {
      probe = p;
    });
  } catch (error) {
    outcome = {
      kind: "broken",
      detail: `the relay session could not start: ${error instanceof Error ? error.message : String(error)}`,
    };
    if (!started) notDriven = outcome.detail;
  } finally {
    // An upstream the relay connects from now on (until the host closes) is not armed with the case.
    probe = undefined;
    for (const upstream of upstreams) upstream.arm(undefined);
  }
  const observation: Observation = {
    sent: input.params,
    asked: [...(asker?.asked ?? [])],
    answered: asker?.answered,
    upstream: host ? host.outcome(outcome) : outcome,
    bystanders: [{ session: BYSTANDER, asked: [...(bystander?.asked ?? [])], answered: bystander?.answered }],
  };
  return finish(observation, { recorder, upstreams, asker, host, notDriven });
}

/**
 * The case's output from what it observed, then the relay of this one case reaped: both sessions closed at once
 * and little grace before the kill. All the relay wrote on stderr is the case's (bounded).
 */
async function finish(
  observation: Observation,
  run: {
    recorder: FrameRecorder;
    upstreams: Array<{ negotiated: string | null }>;
    asker: { negotiated: string | null } | undefined;
    host: RelayHost | undefined;
    /** Why the relay could not start: the harness could not drive the case (an error, as for a relay session). */
    notDriven?: string | undefined;
    /** The relay does not serve the kind of client the case needs: the case is n/a. */
    notApplicable?: string | undefined;
  },
): Promise<CaseRunOutput> {
  const { host } = run;
  const output: CaseRunOutput = {
    observation,
    frames: run.recorder.since(0),
    negotiated: { upstream: run.upstreams[0]?.negotiated ?? null, downstream: run.asker?.negotiated ?? null },
  };
  if (host) output.relayLog = host.relay.stderr.slice(-RELAY_LOG_CHARS);
  if (run.notDriven) output.harnessError = run.notDriven;
  if (run.notApplicable) output.notApplicable = run.notApplicable;
  await host?.close(ISOLATION_STOP_GRACE_MS);
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
    await within(callP, CALL_END_GRACE_MS);
    await askerAnswerSettled(asker, recorder);
    return first.outcome;
  }
  // The probe call ended first: give the upstream a moment, else the sampling round never completed.
  const late = await within(outcomeP, OUTCOME_GRACE_MS);
  if (late) return late;
  const call = first.call;
  const how =
    "error" in call
      ? call.error.message
      : `the relay answered the probe tool call with ${JSON.stringify(call.response.error ?? call.response.result).slice(0, 200)}`;
  return { kind: "broken", detail: `the upstream's sampling request was never answered: ${how}` };
}

/**
 * 2026-07-28: session B's token, the case's canary under another prefix, so that neither token contains the other
 * (what reached an end is traced to one session by the token it carries).
 */
export function secondAskerToken(canary: string): string {
  return canary.startsWith("Cnry-") ? `CnryB-${canary.slice(5)}` : `B.${[...canary].reverse().join("")}`;
}

/** A JSON value with every occurrence of one token replaced by another. */
function retoken<T>(value: T, from: string, to: string): T {
  return JSON.parse(JSON.stringify(value).replaceAll(from, to)) as T;
}

/**
 * Session B's answer in 2026-07-28: the case's answer under B's token, by default later than A's (twice A's delay,
 * at least MRTR_SECOND_ANSWER_MS), so that A answers while B's exchange is still open at the relay; a case's
 * `secondDelayMs` shorter than A's delay has B answer first while A's is open (both orders catch different mix-ups).
 */
export function secondAskerAnswer(answer: Answer, canary: string, delayMs?: number): Answer {
  const own = retoken(answer, canary, secondAskerToken(canary));
  if (own.action !== "accept") return own;
  return {
    ...own,
    delayMs: delayMs ?? Math.max(MRTR_SECOND_ANSWER_MS, 2 * delayOf(answer)),
  };
}

const delayOf = (answer: Answer) => (answer.action === "accept" ? (answer.delayMs ?? 0) : 0);

/** Resolves when `ready` holds, polling; false when `boundMs` passed first. */
async function until(ready: () => boolean, boundMs: number): Promise<boolean> {
  for (let waited = 0; !ready(); waited += ASKER_ANSWER_POLL_MS) {
    if (waited >= boundMs) return false;
    await sleep(ASKER_ANSWER_POLL_MS);
  }
  return true;
}

/**
 * Session isolation in 2026-07-28 (multi-round-trip requests). There is no server→client request to route: what a
 * relay can mix up is which call an input belongs to. Two clients on one relay each call the probe tool with a case
 * key and a canary token of their own; the upstream answers each call with input_required under the SAME input key
 * (the case's), each with its own requestState, so only requestState (or the call itself) tells the two exchanges
 * apart. A calls first; B calls once A has been asked; A answers once B has been asked (after the case's delay), B
 * later still: when A's answer comes, both exchanges are open at the relay, so a relay that files pending exchanges by
 * input key, or continues the latest one, hands A's answer to B's call. B is a second asker, not a bystander: the
 * verdict (src/judge/checks/isolation.ts) wants each session asked its own request only and each upstream call's retry to
 * carry its own session's answer under its own requestState.
 */
// Long: one relay, two clients and their upstream, set up, raced and reaped in one visible order.
async function runModernIsolationCase(
  input: IsolationRunInput,
): Promise<CaseRunOutput & { harnessError?: string }> {
  const { profile, era } = input;
  const recorder = new FrameRecorder(input.maxFrameBytes);
  const upstreams: ModernUpstream[] = [new ModernUpstream()];
  let host: RelayHost | undefined;
  let asker: ModernAnswerer | undefined;
  let second: ModernAnswerer | undefined;
  const token = secondAskerToken(input.canary);
  const secondParams = retoken(input.params, input.canary, token);
  let outcomes: [UpstreamOutcome, UpstreamOutcome];
  let started = false;
  let notDriven: string | undefined;
  let notApplicable: string | undefined;
  try {
    host = await RelayHost.launch({ profile, profileFile: input.profileFile, control: input.control, era });
    // Every upstream connection the relay makes serves both calls (a relay may share one or open one per client; over
    // HTTP each 2026-07-28 POST is one): one scripted upstream keeps both calls' state, whatever connection a retry
    // comes on.
    host.acceptUpstreams(recorder, (wire) => upstreams[0]!.attach(wire));
    const answerer = (channel: LineChannel) => new ModernAnswerer(channel, input.capabilities, profile.probe);
    asker = await host.connect(recorder, answerer, { session: ASKER, era });
    second = await host.connect(recorder, answerer, { session: BYSTANDER, era });
    started = true;
    outcomes = await exchangeTwice(input, asker, second, {
      caseKey: `${input.caseKey}#${BYSTANDER}`,
      params: secondParams,
      answer: secondAskerAnswer(input.answer, input.canary, input.secondDelayMs),
      arm: (probe) => {
        for (const upstream of upstreams) upstream.arm(probe);
      },
      settle: (caseKey) => {
        for (const upstream of upstreams) upstream.settle(MRTR_SETTLE_MS, caseKey);
      },
    });
  } catch (error) {
    const broken: UpstreamOutcome = {
      kind: "broken",
      detail: `the relay session could not start: ${error instanceof Error ? error.message : String(error)}`,
    };
    outcomes = [broken, broken];
    if (!started) notDriven = broken.detail;
    if (!started)
      notApplicable =
        upstreamRefusal(upstreams[0], error) ??
        (error instanceof ClientShapeRefused ? error.message : undefined);
  } finally {
    for (const upstream of upstreams) upstream.arm(undefined);
  }
  const gone = (o: UpstreamOutcome): UpstreamOutcome => (host ? host.outcome(o) : o);
  const observation: Observation = {
    sent: input.params,
    asked: [...(asker?.asked ?? [])],
    answered: asker?.answered,
    upstream: gone(outcomes[0]),
    bystanders: [
      {
        session: BYSTANDER,
        asked: [...(second?.asked ?? [])],
        answered: second?.answered,
        token,
        upstream: gone(outcomes[1]),
      },
    ],
  };
  return finish(observation, { recorder, upstreams, asker, host, notDriven, notApplicable });
}

interface SecondCall {
  caseKey: string;
  params: Record<string, unknown>;
  answer: Answer;
  arm: (probe: ArmedProbe) => void;
  settle: (caseKey: string) => void;
}

/** Both calls, staggered as runModernIsolationCase describes; what the upstream got for A's call and for B's. */
async function exchangeTwice(
  input: IsolationRunInput,
  asker: ModernAnswerer,
  second: ModernAnswerer,
  b: SecondCall,
): Promise<[UpstreamOutcome, UpstreamOutcome]> {
  const { profile } = input;
  const waitMs = upstreamWaitMs(profile.caseTimeoutMs);
  const callMs = profile.caseTimeoutMs + PROBE_CALL_SLACK_MS;
  const armed = (caseKey: string, params: Record<string, unknown>) => {
    let done!: (o: UpstreamOutcome) => void;
    const outcome = new Promise<UpstreamOutcome>((resolve) => {
      done = resolve;
    });
    let settled = false;
    const probe: ArmedProbe = {
      caseKey,
      params,
      waitMs,
      done: (o) => {
        if (settled) return;
        settled = true;
        done(o);
      },
    };
    return { probe, outcome };
  };
  const a = armed(input.caseKey, input.params);
  const other = armed(b.caseKey, b.params);
  b.arm(a.probe);
  b.arm(other.probe);
  asker.script(input.answer);
  second.script(b.answer);
  let secondEnded = false;
  // A answers only once B's exchange is open too, and, where B is to answer first, once B has answered (its delay
  // alone keeps that order only while the machine keeps up). Bounded: a relay that never asks B still gets A's answer.
  const bFirst = delayOf(b.answer) < delayOf(input.answer);
  asker.holdAnswer = async () => {
    await until(() => (bFirst ? second.retried > 0 : second.asked.length > 0) || secondEnded, waitMs / 2);
  };
  const call = (answerer: ModernAnswerer, caseKey: string) =>
    answerer.callProbe(caseKey, callMs).then(
      (response): ProbeCallEnd => ({ response }),
      (error: Error): ProbeCallEnd => ({ error }),
    );
  let askerEnded = false;
  const callA = call(asker, input.caseKey).finally(() => {
    askerEnded = true;
  });
  await until(() => asker.asked.length > 0 || askerEnded, waitMs / 2);
  const callB = call(second, b.caseKey).finally(() => {
    secondEnded = true;
  });
  return Promise.all([
    outcomeOf(callA, a.outcome, () => b.settle(input.caseKey)),
    outcomeOf(callB, other.outcome, () => b.settle(b.caseKey)),
  ]);
}

/** What the upstream got for one call: its outcome, or, once the call ended and the upstream settled, why none. */
async function outcomeOf(
  call: Promise<ProbeCallEnd>,
  outcome: Promise<UpstreamOutcome>,
  settle: () => void,
): Promise<UpstreamOutcome> {
  const first = await Promise.race([outcome, call.then(() => undefined)]);
  if (first) return first;
  // The call ended: a retry still awaited is withheld after the settle time; a call never seen upstream is broken.
  settle();
  const late = await within(outcome, MRTR_SETTLE_MS + OUTCOME_GRACE_MS);
  if (late) return late;
  const how = describeCallEnd(await call);
  return {
    kind: "broken",
    detail: `the call never reached the upstream as an input_required exchange: ${how}`,
  };
}
