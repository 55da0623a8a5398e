import type { Answer, Review } from "../model/case.ts";
import type { ActionTiming, Frame, Observation, UpstreamOutcome } from "../model/evidence.ts";
import { caseTimeoutMsFor, type TargetProfile } from "../model/target.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";
import { ClientAnswerer } from "./answerer.ts";
import { Broker } from "./broker.ts";
import type { ControlServer } from "./channels.ts";
import { processCoreWait } from "./core-wait.ts";
import {
  type AnswerFor,
  type ArmedProbe,
  ClientShapeRefused,
  callProbeAndRace,
  describeCallEnd,
  type HarnessAnswerer,
  type HarnessUpstream,
  type InputFraming,
  type ProbeCallEnd,
  type Sequence,
  upstreamRefusal,
} from "./ends.ts";
import { callFramesOf, FrameRecorder } from "./frames.ts";
import type { JsonRpcId, LineChannel } from "./jsonrpc-peer.ts";
import { type ActionLog, timedActions, upstreamRequestTimes } from "./lateness.ts";
import { ModernAnswerer, ModernUpstream } from "./mrtr.ts";
import { fillPlaceholders } from "./placeholders.ts";
import { ProbeToolMissing } from "./probe-call.ts";
import { onceMoreIfPortTaken, RelayHost } from "./relay-host.ts";
import { RELAY_LOG_CHARS, type RelayProcess } from "./relay-process.ts";
import { Reviewer, type ReviewRecord } from "./reviewer.ts";
import { DETACHED_NO_STREAM, DETACHED_UNSENT, ScriptedUpstream } from "./upstream.ts";
import {
  CALL_END_GRACE_MS,
  MRTR_DEADLINE_SLACK_MS,
  MRTR_SETTLE_MS,
  OUTCOME_GRACE_MS,
  PROBE_CALL_SLACK_MS,
  UPSTREAM_WAIT_MARGIN_MS,
  UPSTREAM_WAIT_MIN_MS,
  within,
} from "./waits.ts";

export interface SessionOptions {
  profile: TargetProfile;
  profileFile?: string;
  era: Era;
  capabilities: Record<string, unknown>;
  /** The era the answerer speaks when it differs from the upstream's (a relay bridging eras, either way). */
  downstreamEra?: Era;
  /** The answerer holds back notifications/initialized until after the first case's probe call (legacy eras). */
  holdInitialized?: boolean;
  /** Streamable HTTP downstream: the answerer never opens the standalone GET stream. */
  noStandaloneStream?: boolean;
  control: ControlServer;
  /** The most bytes of one frame the evidence keeps (default DEFAULT_MAX_FRAME_BYTES, src/harness/frames.ts). */
  maxFrameBytes?: number;
}

export interface CaseRunInput {
  caseKey: string;
  params: Record<string, unknown>;
  answer: Answer;
  /** The case's canary: a review question that shows it is this case's (see ReviewWatcher). */
  canary?: string;
  /** What the reviewer does, for targets with a review surface. */
  review?: Review;
  /** 2026-07-28: the inputRequests key and requestState the upstream uses. */
  mrtr?: InputFraming;
  /** Streamable HTTP upstream: send the sampling request on the standalone GET stream, tied to no request. */
  unrelated?: boolean;
  /** Legacy eras: the upstream answers the probe call first and sends the sampling request afterwards, on its own. */
  detached?: boolean;
  /** The sampling request's JSON-RPC id (legacy eras; the fuzzer's): default the upstream's next own id. */
  requestId?: JsonRpcId;
  /** Several sampling requests in one case, and the answerer's result for each. */
  sequence?: Sequence;
  answerFor?: AnswerFor;
}

export interface CaseRunOutput {
  observation: Observation;
  frames: Frame[];
  negotiated: { upstream: string | null; downstream: string | null };
  /** Relay stderr seen during the case, when the relay broke. */
  relayLog?: string;
  /** Set when the harness could not drive the case (the run was interrupted, …). */
  harnessError?: string;
  /** Set when the case needs a kind of client the relay does not serve (see CaseRun.notApplicable). */
  notApplicable?: string;
  /** The harness's scripted actions in the case, timed from the case's start (lateness.ts). */
  actions?: ActionTiming[];
  /**
   * The harness's own wait in the case (lateness.ts, boundLateness): how long its upstream waited for an answer at
   * most, and how long the harness waited for a core while the case ran (core-wait.ts). Set by the case driver.
   */
  harnessWait?: { boundMs: number; coreWaitMs: number };
}

/**
 * 2026-07-28: once the answerer's call has ended, how long the upstream still waits for the relay's retry before it
 * records the input as withheld (silence is the only signal of a refusal in this era), and how that reads in the
 * verdict (`within`, free of measured time). A question the relay never asked, or one the answerer answered (the relay
 * then ruled on that answer), leaves nothing pending: a short settle. A question still open (declined, never answered)
 * leaves the relay free to act on its own when its answer deadline passes (retry without the key, or — a defect — with
 * a stand-in answer): wait until that deadline (the profile's answerTimeoutMs, counted from when the question was
 * shown, as the relay cannot have started its clock later) plus slack, capped by the case's wait.
 */
function modernSettle(
  pending: boolean,
  answerTimeoutMs: number,
  waitMs: number,
  sinceAskedMs: number,
): { ms: number; within: string } {
  if (!pending) return { ms: MRTR_SETTLE_MS, within: `within ${MRTR_SETTLE_MS} ms` };
  const deadline = answerTimeoutMs + MRTR_DEADLINE_SLACK_MS;
  return {
    ms: Math.min(waitMs, Math.max(MRTR_SETTLE_MS, deadline - sinceAskedMs)),
    within:
      deadline <= waitMs
        ? `by the relay's answer deadline (${answerTimeoutMs} ms after the question was shown, plus ${MRTR_DEADLINE_SLACK_MS} ms)`
        : `within the case's wait (${waitMs} ms) or the relay's answer deadline, whichever came first`,
  };
}

/** How long the harness upstream waits for its answer in a case: the case's timeout less a margin, so it decides first. */
export function upstreamWaitMs(caseTimeoutMs: number): number {
  return Math.max(UPSTREAM_WAIT_MIN_MS, caseTimeoutMs - UPSTREAM_WAIT_MARGIN_MS);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
    }),
  ]);
}

/** What the upstream does on the case's probe call. */
function armed(input: CaseRunInput, waitMs: number, done: (o: UpstreamOutcome) => void): ArmedProbe {
  const { caseKey, params, mrtr, sequence, unrelated, detached, requestId } = input;
  return {
    caseKey,
    params,
    waitMs,
    done,
    mrtr,
    ...(sequence ? { sequence } : {}),
    ...(unrelated ? { unrelated: true } : {}),
    ...(detached ? { detached: true } : {}),
    ...(requestId !== undefined ? { requestId } : {}),
  };
}

/** The relay's final response to the probe call, as `{result}` or `{error}`. */
function responseOf(call: { response: { result?: unknown; error?: unknown } }): unknown {
  const { result, error } = call.response;
  return error !== undefined ? { error } : { result };
}

/** A session that never started: the frames both ends saw and the relay's stderr, for the evidence. */
export class SessionStartError extends Error {
  constructor(
    message: string,
    readonly frames: Frame[],
    readonly relayLog: string | undefined,
    /** The relay sent nothing the harness could read as JSON-RPC: its failure does not depend on the session's era or capabilities. */
    readonly silent = false,
    /**
     * The relay does not serve the downstream's era (ClientShapeRefused), or its upstream side cannot reach the
     * upstream's (HarnessUpstream.eraRefusal): the cases that need that session shape are n/a.
     */
    readonly refused?: string,
  ) {
    super(message);
  }
}

/** The start-up deadline passed (the relay is alive but did not finish starting in time). */
class StartTimedOut extends Error {}

/**
 * A session whose ends speak different era families (a 2026-07-28 client with a legacy upstream, or the other way)
 * that started but lists no upstream tool, or that never started because the relay answered none of the client's
 * requests before the start-up deadline (a line pipe that drops everything before an `initialize` a 2026-07-28 client
 * never sends): the relay does not bridge that pairing, so the cases that need it are n/a, with that reason; sessions
 * of one family are not affected (the same silence there stays an `error`).
 */
function unbridged(options: SessionOptions, error: unknown, frames: Frame[]): string | undefined {
  const down = options.downstreamEra ?? options.era;
  if (isModernEra(down) === isModernEra(options.era)) return undefined;
  const how = `the relay does not bridge a ${down} client to a ${options.era} upstream`;
  if (error instanceof ProbeToolMissing) return `${how}: ${error.message}`;
  const toClient = frames.some((f) => f.end === "downstream" && f.dir === "from-relay");
  if (!(error instanceof StartTimedOut) || toClient) return undefined;
  const asked = frames
    .filter((f) => f.end === "downstream" && f.dir === "to-relay")
    .map((f) => (f.message as { method?: unknown } | undefined)?.method)
    .filter((m): m is string => typeof m === "string");
  const requests = asked.length > 0 ? ` (${[...new Set(asked)].join(", ")})` : "";
  return `${how}: it answered none of the client's requests${requests} within the ${options.profile.startupTimeoutMs} ms start-up deadline`;
}

/** What the relay wrote that is not JSON-RPC, quoted (the evidence keeps every such line whole). */
function nonJsonHint(frames: Frame[]): string {
  const raw = frames.filter((f) => f.dir === "from-relay" && f.raw !== undefined && !f.truncated);
  if (raw.length === 0) return "";
  const first = raw[0]!.raw!.slice(0, 80);
  return `; the relay wrote ${raw.length} line(s) that are not JSON, first: ${JSON.stringify(first)}`;
}

/** What a case tells its caller while it runs (see RelaySession.runCase). */
export interface CaseHooks {
  sessionFree?: () => void;
  laneFree?: () => void;
}

/** A case that let its session go while it settles: where its own frames end, and what both ends had seen by then. */
interface Released {
  end: number;
  requestState: string | undefined;
  asked: unknown[];
  answered: unknown;
  declared: unknown;
  /** The review surface's questions and the reviewer's answer so far (the next case re-scripts the reviewer). */
  reviews: ReviewRecord[] | undefined;
  reviewerAnswered: unknown;
  actions: ActionLog;
}

/** Where a case's frames are in the session's recorder, and whose late frames it must leave out. */
interface Slice {
  start: number;
  /** The relay's stderr when the case began (its own lines are those written since). */
  stderrMark: number;
  /** Cases still settling when this one began: [caseKey, requestState]. */
  overlapping: Array<[string, string | undefined]>;
  released: Released | undefined;
}

/**
 * One relay process with one downstream session in one era: the harness upstream at one end (launched by
 * the relay through the shim), the harness answerer at the other. Cases run through it one after another.
 */
export class RelaySession {
  readonly recorder: FrameRecorder;
  /** The relay and what the harness opened for it (unset while it launches, and when the launch failed). */
  private host: RelayHost | undefined;
  private answerer!: HarnessAnswerer;
  private upstream: Promise<HarnessUpstream> | undefined;
  private upstreamEnd: HarnessUpstream | undefined;
  private givenUp: string | undefined;
  /** How far start-up got (named when it does not finish in time). */
  private step = "the relay process starting";
  /** The person at the relay's review surface, or the agent at its broker (targets whose answerer is one). */
  private reviewer: Reviewer | Broker | undefined;
  /** Cases released while they settle (2026-07-28), with the requestState of each: their late frames are theirs. */
  private readonly settling = new Map<string, string | undefined>();

  private constructor(private readonly options: SessionOptions) {
    this.recorder = new FrameRecorder(options.maxFrameBytes);
  }

  /** The relay process (set once the session has started). */
  private get relay(): RelayProcess {
    return this.host!.relay;
  }

  /**
   * Starts a relay session. The port the relay listens on is the harness's pick: should another process take it
   * between the check and the relay's bind (the relay says EADDRINUSE), the start is tried once more on a new one.
   */
  static open(options: SessionOptions): Promise<RelaySession> {
    return onceMoreIfPortTaken(
      () => RelaySession.openOnce(options),
      (ended) =>
        "error" in ended && ended.error instanceof SessionStartError ? ended.error.relayLog : undefined,
    );
  }

  private static async openOnce(options: SessionOptions): Promise<RelaySession> {
    const session = new RelaySession(options);
    // The start-up's frames are held until the session has started (a failed start reports them).
    const startMark = session.recorder.mark();
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    try {
      // The whole start-up (spawn, listening, initialize, tools/list) shares one deadline: startupTimeoutMs.
      const ms = options.profile.startupTimeoutMs;
      await Promise.race([
        session.start(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            timedOut = true;
            reject(
              new StartTimedOut(
                `the relay did not start within ${ms} ms (waiting for ${session.waitingFor})`,
              ),
            );
          }, ms);
        }),
      ]);
    } catch (error) {
      const log = session.host?.relay.stderr.trim();
      await session.close();
      const detail = error instanceof Error ? error.message : String(error);
      const frames = session.recorder.since(0);
      const understood = frames.some((f) => f.dir === "from-relay" && f.message !== undefined);
      // The relay's stderr travels apart (relayLog): the judge quotes its end after the reason.
      throw new SessionStartError(
        `${detail}${nonJsonHint(frames)}`,
        frames,
        log ? log.slice(-RELAY_LOG_CHARS) : undefined,
        !understood,
        // A relay that lists no upstream tool across era families does not bridge them, whatever its client tried. An
        // upstream refusal comes before a client-era refusal: a relay slow to answer server/discover whose tools/list
        // failed for its upstream's refusal does serve the client; it is the upstream it cannot reach.
        unbridged(options, error, frames) ??
          upstreamRefusal(session.upstreamEnd, error, timedOut) ??
          (error instanceof ClientShapeRefused ? error.message : undefined),
      );
    } finally {
      clearTimeout(timer);
      session.recorder.release(startMark);
    }
    return session;
  }

  /** True when the relay died, a channel closed or the session was given up: the controller opens a fresh session. */
  get broken(): boolean {
    return this.brokenReason !== undefined;
  }

  /** Why the session cannot be used any more, if it cannot. */
  get brokenReason(): string | undefined {
    if (this.givenUp) return this.givenUp;
    if (this.relay.exited !== undefined) return `the relay ${this.relay.exited}`;
    const closed = this.answerer.peer.closed;
    return closed !== undefined ? `the downstream channel closed (${closed})` : undefined;
  }

  /** The relay stopped answering: no further case runs through this session. */
  giveUp(reason: string): void {
    this.givenUp ??= reason;
  }

  /** The start-up step not yet done. */
  private get waitingFor(): string {
    if (this.answerer?.negotiated) return "the relay to answer tools/list (it answered initialize)";
    return this.step;
  }

  /** Whether the relay has launched (or connected to) the harness upstream yet. */
  get upstreamReady(): boolean {
    return this.upstreamEnd !== undefined;
  }

  /** The relay's stderr tail, redacted. */
  get relayStderr(): string {
    return this.host?.relay.stderr ?? "";
  }

  private async start(): Promise<void> {
    const { profile, era, control, profileFile } = this.options;
    const host = await RelayHost.launch({ profile, profileFile, control, era });
    this.host = host;
    const values = host.values;
    this.upstream = this.serveUpstreams(host);
    this.upstream.catch(() => undefined);
    const url = host.downstreamUrl;
    const http = profile.downstream.transport !== "stdio";
    this.step = http ? `the relay to listen at ${url}` : "the relay to answer initialize and tools/list";
    // The answerer speaks the downstream's era (a case may pin it apart from the upstream's).
    const downstreamEra = this.options.downstreamEra ?? era;
    await host.connect(
      this.recorder,
      (channel) => {
        this.answerer = this.makeAnswerer(channel, downstreamEra);
        return this.answerer;
      },
      {
        era: downstreamEra,
        ...(this.options.noStandaloneStream ? { noStandaloneStream: true } : {}),
        waiting: (why) => {
          this.step = `the relay to be ready at ${url} (last: ${why.slice(0, 160)})`;
          if (/ECONNREFUSED|fetch failed/.test(why)) this.step = `the relay to listen at ${url}`;
        },
      },
    );
    const modelConnected = typeof this.options.capabilities.sampling === "object";
    if (profile.answerer.kind === "review") {
      this.reviewer = new Reviewer(
        fillPlaceholders(profile.answerer.url, values),
        modelConnected,
        this.recorder,
      );
    } else if (profile.answerer.kind === "broker") {
      const context = { values: { ...values }, cwd: this.relay.cwd, env: this.relay.env };
      this.reviewer = new Broker(profile.answerer, context, modelConnected, this.recorder);
    }
  }

  /**
   * Every upstream connection the relay makes is served, for the whole session: a gateway may launch a process, or
   * open a session, per request it forwards. They share one scripted upstream (the armed case goes to whichever
   * connection calls the probe tool); resolves with it at the first connection (unlabelled, as a relay with one has
   * it), or rejects when none came within startupTimeoutMs.
   */
  private serveUpstreams(host: RelayHost): Promise<HarnessUpstream> {
    const { profile, era } = this.options;
    const upstream = isModernEra(era) ? new ModernUpstream() : new ScriptedUpstream(undefined, era);
    return new Promise<HarnessUpstream>((resolve, reject) => {
      host.acceptUpstreams(
        this.recorder,
        (wire) => {
          upstream.attach(wire);
          this.upstreamEnd = upstream;
          resolve(upstream);
        },
        { firstUnlabelled: true, firstWithinMs: profile.startupTimeoutMs, onFirstMissing: reject },
      );
    });
  }

  /** The answerer of the downstream's era, declaring the session's capabilities. */
  private makeAnswerer(channel: LineChannel, downstreamEra: Era): ModernAnswerer | ClientAnswerer {
    const { capabilities, profile, holdInitialized } = this.options;
    return isModernEra(downstreamEra)
      ? new ModernAnswerer(channel, capabilities, profile.probe)
      : new ClientAnswerer(channel, downstreamEra, capabilities, profile.probe, holdInitialized === true);
  }

  /**
   * One case through the session. The hooks say when the case has nothing left to do but wait. `sessionFree`
   * (2026-07-28: its probe call ended and the upstream gives the relay its settle time to retry): the caller may run
   * the next case on this session while this one settles; a settling case's late frames (its retry and the upstream's
   * response) are told apart from the next case's by content (callFramesOf), so each case keeps its own. `laneFree`
   * (the answerer waits on purpose: an answer that never comes or comes late): the session stays this case's, but the
   * caller may drive other sessions meanwhile.
   */
  async runCase(input: CaseRunInput, hooks: CaseHooks = {}): Promise<CaseRunOutput> {
    // The case's frames are held from its mark until it has read them (then the recorder lets them go).
    const start = this.recorder.mark();
    try {
      return await this.runFrom(start, input, hooks);
    } finally {
      this.recorder.release(start);
    }
  }

  // Long: one case at both ends (arm, call, race, hand the session on, settle) reads as one sequence.
  private async runFrom(start: number, input: CaseRunInput, hooks: CaseHooks): Promise<CaseRunOutput> {
    const { profile } = this.options;
    const stderrMark = this.relay.stderrMark;
    this.answerer.onWait = hooks.laneFree;
    const overlapping = [...this.settling.entries()];
    // An expiry case waits for the relay's own declared deadline, however long (caseTimeoutMsFor).
    const caseTimeoutMs = caseTimeoutMsFor(profile, input.answer);
    const waitMs = upstreamWaitMs(caseTimeoutMs);
    this.answerer.script(input.answer, input.answerFor);
    this.reviewer?.script(input.review, input.answer, input.answerFor, input.canary);
    let upstream: HarnessUpstream | undefined;
    let outcome: UpstreamOutcome;
    let released: Released | undefined;
    let callEnd: ProbeCallEnd | undefined;
    try {
      upstream = await withTimeout(
        this.upstream!,
        profile.startupTimeoutMs,
        "the relay launching the harness upstream",
      );
      let settle!: (o: UpstreamOutcome) => void;
      const outcomeP = new Promise<UpstreamOutcome>((r) => {
        settle = r;
      });
      upstream.arm(armed(input, waitMs, settle));
      const raced = callProbeAndRace(
        this.answerer,
        input.caseKey,
        caseTimeoutMs + PROBE_CALL_SLACK_MS,
        outcomeP,
      );
      const callP = raced.call;
      const first = await raced.first;
      if ("outcome" in first) {
        outcome = first.outcome;
        callEnd = await within(callP, CALL_END_GRACE_MS);
      } else {
        callEnd = first.call;
        // What the reviewer saw so far is kept with the case (release()): the next one re-scripts the reviewer.
        if (hooks.sessionFree && upstream.settle) {
          released = this.release(input, upstream);
          this.answerer.onWait = undefined;
          hooks.sessionFree();
        }
        // A detached request only goes out once the call has ended: its outcome comes within the upstream's own wait.
        outcome = input.detached
          ? await outcomeP.then(async (o) => {
              await this.reviewerSettled();
              return o;
            })
          : await this.outcomeAfterCall(upstream, first.call, outcomeP, waitMs, input.caseKey);
      }
    } catch (error) {
      outcome = { kind: "broken", detail: error instanceof Error ? error.message : String(error) };
    } finally {
      this.settling.delete(input.caseKey);
    }
    return this.output(
      input,
      this.host!.outcome(outcome),
      { start, stderrMark, overlapping, released },
      callEnd,
    );
  }

  /**
   * A detached case has no probe call left to wait for once the upstream has its outcome, and the relay may pass the
   * reviewer's (or broker's) answer on before the reviewer's own HTTP call returns: wait, bounded, for every decision
   * of the case to have its status, so what it answered is in the evidence.
   */
  private async reviewerSettled(): Promise<void> {
    const reviewer = this.reviewer;
    if (!reviewer) return;
    const deadline = performance.now() + CALL_END_GRACE_MS;
    const pending = () =>
      reviewer.records.some(
        (r) => r.decision.action !== "none" && r.status === undefined && !r.decision.note,
      );
    while (pending() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }

  /** The case lets the session go while it settles: what both ends had seen of it so far is kept as it was. */
  private release(input: CaseRunInput, upstream: HarnessUpstream): Released {
    const requestState = upstream.requestStateOf?.(input.caseKey);
    this.settling.set(input.caseKey, requestState);
    return {
      requestState,
      end: this.recorder.length,
      asked: [...this.answerer.asked],
      answered: this.answerer.answered,
      declared: this.upstreamEnd?.declared,
      reviews: this.reviewer ? [...this.reviewer.records] : undefined,
      reviewerAnswered: this.reviewer?.answered,
      actions: [...this.answerer.actions, ...(this.reviewer?.actions ?? [])],
    };
  }

  /**
   * The probe call ended before the upstream's outcome: give the upstream a moment (2026-07-28: it still awaits a
   * retry and decides within the settle time), else the sampling round never completed.
   */
  private async outcomeAfterCall(
    upstream: HarnessUpstream,
    call: ProbeCallEnd,
    outcomeP: Promise<UpstreamOutcome>,
    waitMs: number,
    caseKey: string,
  ): Promise<UpstreamOutcome> {
    const { profile } = this.options;
    const pending = this.answerer.asked.length > 0 && this.answerer.answered === undefined;
    // A 2026-07-28 answerer that leaves a question open (declined, never answered) says nothing more: a legacy
    // upstream behind it hears from the relay only when the relay's own deadline passes.
    const silentDownstream = isModernEra(this.options.downstreamEra ?? this.options.era);
    const sinceAskedMs = performance.now() - (this.answerer.askedAt ?? performance.now());
    const settle = modernSettle(pending, profile.answerTimeoutMs, waitMs, sinceAskedMs);
    const graceMs = upstream.settle || silentDownstream ? settle.ms : 0;
    upstream.settle?.(graceMs, caseKey, settle.within);
    const late = await within(outcomeP, graceMs + OUTCOME_GRACE_MS);
    if (late) return late;
    // The settle time is over: an upstream still awaiting the retry decides now (not on a timer that a loaded event
    // loop may run after this one), so a retry that never came is read as withheld, never as a broken exchange.
    if (upstream.expireSettled?.(caseKey)) return outcomeP;
    upstream.disarm(caseKey);
    const how = describeCallEnd(call);
    return {
      kind: "broken",
      detail: upstream.strayCalls.length
        ? `the probe tool call reached the upstream twice; ${how}`
        : `the upstream's sampling request was never answered: ${how}`,
    };
  }

  /**
   * The frames of a case: those seen while it ran, less the late frames of cases that were still settling when it
   * began; a case that settled after its release adds its own late frames seen since.
   */
  private framesOf(input: CaseRunInput, slice: Slice): Frame[] {
    const { start, overlapping, released } = slice;
    const end = released?.end ?? this.recorder.length;
    let frames = this.recorder.since(start, end);
    if (overlapping.length > 0) {
      const theirs = new Set<Frame>();
      for (const [key, state] of overlapping) for (const f of callFramesOf(frames, key, state)) theirs.add(f);
      frames = frames.filter((f) => !theirs.has(f));
    }
    if (!released) return frames;
    const late = this.recorder.since(start).slice(end - start);
    const mine = callFramesOf(late, input.caseKey, released.requestState);
    return [...frames, ...late.filter((f) => mine.has(f))];
  }

  /** What both ends saw during the case. */
  private output(
    input: CaseRunInput,
    outcome: UpstreamOutcome,
    slice: Slice,
    callEnd: ProbeCallEnd | undefined,
  ): CaseRunOutput {
    const seen = slice.released ?? {
      asked: [...this.answerer.asked],
      answered: this.answerer.answered,
      declared: this.upstreamEnd?.declared,
      reviews: this.reviewer ? [...this.reviewer.records] : undefined,
      reviewerAnswered: this.reviewer?.answered,
      actions: [...this.answerer.actions, ...(this.reviewer?.actions ?? [])],
    };
    const output: CaseRunOutput = {
      observation: {
        sent: input.params,
        asked: seen.asked,
        answered: seen.reviewerAnswered ?? seen.answered,
        ...(seen.reviews ? { reviews: seen.reviews, modelAnswered: seen.answered } : {}),
        declared: seen.declared,
        upstream: outcome,
        ...(input.sequence ? { sequence: [...input.sequence.record] } : {}),
        ...(callEnd && "response" in callEnd ? { callResponse: responseOf(callEnd) } : {}),
      },
      frames: this.framesOf(input, slice),
      negotiated: { upstream: this.upstreamEnd?.negotiated ?? null, downstream: this.answerer.negotiated },
    };
    if (seen.actions.length > 0)
      output.actions = timedActions(
        seen.actions,
        this.recorder.epochOf(slice.start),
        processCoreWait,
        upstreamRequestTimes(output.frames),
      );
    // The relay's stderr while the case ran (all it has written, when it broke), in every transcript, bounded.
    output.relayLog = (
      outcome.kind === "broken" ? this.relay.stderr : this.relay.stderrSince(slice.stderrMark)
    ).slice(-RELAY_LOG_CHARS);
    if (
      input.detached &&
      outcome.kind === "broken" &&
      [DETACHED_UNSENT, DETACHED_NO_STREAM].some((unsent) => outcome.detail.startsWith(unsent))
    )
      output.notApplicable = outcome.detail;
    return output;
  }

  async close(): Promise<void> {
    this.reviewer?.stop();
    await this.host?.close();
  }
}
