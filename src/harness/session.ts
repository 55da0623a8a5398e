import { setTimeout as sleep } from "node:timers/promises";
import type { Answer, Review } from "../model/case.ts";
import type { Frame, Observation, UpstreamOutcome } from "../model/evidence.ts";
import type { TargetProfile } from "../model/target.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";
import { ClientAnswerer } from "./answerer.ts";
import { type ControlServer, recorded } from "./channels.ts";
import { launchRelay, openDownstream, type UpstreamEndpoint } from "./endpoints.ts";
import {
  callProbeAndRace,
  type HarnessAnswerer,
  type HarnessUpstream,
  type InputFraming,
  type ProbeCallEnd,
} from "./ends.ts";
import { FrameRecorder } from "./frames.ts";
import { ModernAnswerer, ModernUpstream } from "./mrtr.ts";
import { makeTempDir, removeTempDir } from "./processes.ts";
import { fillPlaceholders, type RelayProcess } from "./relay-process.ts";
import { Reviewer } from "./reviewer.ts";
import { ScriptedUpstream } from "./upstream.ts";
import {
  CALL_END_GRACE_MS,
  MRTR_DEADLINE_SLACK_MS,
  MRTR_SETTLE_MS,
  OUTCOME_GRACE_MS,
  PROBE_CALL_SLACK_MS,
  UPSTREAM_WAIT_MARGIN_MS,
  UPSTREAM_WAIT_MIN_MS,
} from "./waits.ts";

export interface SessionOptions {
  profile: TargetProfile;
  profileFile?: string;
  era: Era;
  capabilities: Record<string, unknown>;
  /** The era the answerer speaks when it differs from the upstream's (legacy eras only). */
  downstreamEra?: Era;
  control: ControlServer;
}

export interface CaseRunInput {
  caseKey: string;
  params: Record<string, unknown>;
  answer: Answer;
  /** What the reviewer does, for targets with a review surface. */
  review?: Review;
  /** 2026-07-28: the inputRequests key and requestState the upstream uses. */
  mrtr?: InputFraming;
}

export interface CaseRunOutput {
  observation: Observation;
  frames: Frame[];
  negotiated: { upstream: string | null; downstream: string | null };
  /** Relay stderr seen during the case, when the relay broke. */
  relayLog?: string;
  /** Set when the harness could not drive the case (the run was interrupted, …). */
  harnessError?: string;
}

/**
 * 2026-07-28: once the answerer's call has ended, how long the upstream still waits for the relay's retry before it
 * records the input as withheld (silence is the only signal of a refusal in this era). A relay that refused before
 * asking has nothing pending: a short settle. A relay that passed the question on may still act on its own when
 * its answer deadline passes (retry without the key, or — a defect — with a stand-in answer): wait that deadline
 * (the profile's answerTimeoutMs) plus slack, capped by the case's wait.
 */
function modernSettleMs(asked: boolean, answerTimeoutMs: number, waitMs: number): number {
  return asked
    ? Math.min(waitMs, Math.max(MRTR_SETTLE_MS, answerTimeoutMs + MRTR_DEADLINE_SLACK_MS))
    : MRTR_SETTLE_MS;
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

/** A session that never started: the frames both ends saw and the relay's stderr, for the evidence. */
export class SessionStartError extends Error {
  constructor(
    message: string,
    readonly frames: Frame[],
    readonly relayLog: string | undefined,
    /** The relay sent nothing the harness could read as JSON-RPC: its failure does not depend on the session's era or capabilities. */
    readonly silent = false,
  ) {
    super(message);
  }
}

/** What the relay wrote that is not JSON-RPC, quoted (the evidence keeps every such line whole). */
function nonJsonHint(frames: Frame[]): string {
  const raw = frames.filter((f) => f.dir === "from-relay" && f.raw !== undefined && !f.truncated);
  if (raw.length === 0) return "";
  const first = raw[0]!.raw!.slice(0, 80);
  return `; the relay wrote ${raw.length} line(s) that are not JSON, first: ${JSON.stringify(first)}`;
}

/**
 * One relay process with one downstream session in one era: the harness upstream at one end (launched by
 * the relay through the shim), the harness answerer at the other. Cases run through it one after another.
 */
export class RelaySession {
  readonly recorder = new FrameRecorder();
  private relay!: RelayProcess;
  private answerer!: HarnessAnswerer;
  private upstream: Promise<HarnessUpstream> | undefined;
  private upstreamEnd: HarnessUpstream | undefined;
  private givenUp: string | undefined;
  /** How far start-up got (named when it does not finish in time). */
  private step = "the relay process starting";
  private readonly tmp: string;
  private endpoint: UpstreamEndpoint | undefined;
  private closeDownstream: (() => Promise<void>) | undefined;
  private reviewer: Reviewer | undefined;

  private constructor(private readonly options: SessionOptions) {
    this.tmp = makeTempDir();
  }

  static async open(options: SessionOptions): Promise<RelaySession> {
    const session = new RelaySession(options);
    session.recorder.mark();
    let timer: NodeJS.Timeout | undefined;
    try {
      // The whole start-up (spawn, listening, initialize, tools/list) shares one deadline: startupTimeoutMs.
      const ms = options.profile.startupTimeoutMs;
      await Promise.race([
        session.start(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new Error(`the relay did not start within ${ms} ms (waiting for ${session.waitingFor})`),
              ),
            ms,
          );
        }),
      ]);
    } catch (error) {
      const log = session.relay?.stderr.trim();
      await session.close();
      const detail = error instanceof Error ? error.message : String(error);
      const frames = session.recorder.since(0);
      const understood = frames.some((f) => f.dir === "from-relay" && f.message !== undefined);
      // The relay's stderr travels apart (relayLog): the judge quotes its end after the reason.
      throw new SessionStartError(
        `${detail}${nonJsonHint(frames)}`,
        frames,
        log ? log.slice(-2000) : undefined,
        !understood,
      );
    } finally {
      clearTimeout(timer);
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
    return this.relay?.stderr ?? "";
  }

  private async start(): Promise<void> {
    const { profile, era, control } = this.options;
    const launched = await launchRelay(profile, this.options.profileFile, control, this.tmp);
    this.endpoint = launched.endpoint;
    this.relay = launched.relay;
    const values = launched.values;
    this.upstream = this.endpoint.next(profile.startupTimeoutMs).then((channel) => {
      const wire = recorded(channel, this.recorder, "upstream");
      const upstream: HarnessUpstream = isModernEra(era)
        ? new ModernUpstream(wire)
        : new ScriptedUpstream(wire, era);
      this.upstreamEnd = upstream;
      return upstream;
    });
    this.upstream.catch(() => undefined);
    const exited = this.relay.whenExited("during start-up");
    const url = profile.downstream.url ? fillPlaceholders(profile.downstream.url, values) : undefined;
    this.step = profile.downstream.transport === "stdio" ? "the downstream" : `the relay to listen at ${url}`;
    const downstream = await Promise.race([openDownstream(profile, this.relay, url, this.recorder), exited]);
    this.closeDownstream = downstream.close;
    // The answerer speaks the downstream's era (a case may pin it apart from the upstream's).
    const downstreamEra = this.options.downstreamEra ?? era;
    this.answerer = isModernEra(downstreamEra)
      ? new ModernAnswerer(downstream.channel, this.options.capabilities)
      : new ClientAnswerer(downstream.channel, downstreamEra, this.options.capabilities);
    this.step = "the relay to answer initialize and tools/list";
    await Promise.race([this.answerer.connect(profile.startupTimeoutMs), exited]);
    if (profile.answerer.kind === "review") {
      const modelConnected = typeof this.options.capabilities.sampling === "object";
      this.reviewer = new Reviewer(
        fillPlaceholders(profile.answerer.url, values),
        modelConnected,
        this.recorder,
      );
    }
  }

  async runCase(input: CaseRunInput): Promise<CaseRunOutput> {
    const { profile } = this.options;
    const start = this.recorder.mark();
    const waitMs = upstreamWaitMs(profile.caseTimeoutMs);
    this.answerer.script(input.answer);
    this.reviewer?.script(input.review, input.answer);
    let upstream: HarnessUpstream | undefined;
    let outcome: UpstreamOutcome;
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
      upstream.arm({ caseKey: input.caseKey, params: input.params, waitMs, done: settle, mrtr: input.mrtr });
      const raced = callProbeAndRace(
        this.answerer,
        input.caseKey,
        profile.caseTimeoutMs + PROBE_CALL_SLACK_MS,
        outcomeP,
      );
      const callP = raced.call;
      const first = await raced.first;
      if ("outcome" in first) {
        outcome = first.outcome;
        await Promise.race([callP, sleep(CALL_END_GRACE_MS)]);
      } else {
        outcome = await this.outcomeAfterCall(upstream, first.call, outcomeP, waitMs);
      }
    } catch (error) {
      outcome = { kind: "broken", detail: error instanceof Error ? error.message : String(error) };
    }
    if (this.relay.exited && outcome.kind !== "result" && outcome.kind !== "error") {
      outcome = { kind: "broken", detail: `the relay ${this.relay.exited}` };
    }
    return this.output(input, outcome, start);
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
  ): Promise<UpstreamOutcome> {
    const { profile } = this.options;
    const graceMs = upstream.settle
      ? modernSettleMs(this.answerer.asked.length > 0, profile.answerTimeoutMs, waitMs)
      : 0;
    upstream.settle?.(graceMs);
    const late = await Promise.race([outcomeP, sleep(graceMs + OUTCOME_GRACE_MS).then(() => undefined)]);
    if (late) return late;
    upstream.arm(undefined);
    const how =
      "error" in call
        ? call.error.message
        : `the relay answered the probe tool call with ${JSON.stringify(call.response.error ?? call.response.result).slice(0, 200)}`;
    return {
      kind: "broken",
      detail: upstream.strayCalls.length
        ? `the probe tool call reached the upstream twice; ${how}`
        : `the upstream's sampling request was never answered: ${how}`,
    };
  }

  /** What both ends saw during the case. */
  private output(input: CaseRunInput, outcome: UpstreamOutcome, start: number): CaseRunOutput {
    const output: CaseRunOutput = {
      observation: {
        sent: input.params,
        asked: [...this.answerer.asked],
        answered: this.reviewer?.answered ?? this.answerer.answered,
        ...(this.reviewer
          ? { reviews: [...this.reviewer.records], modelAnswered: this.answerer.answered }
          : {}),
        declared: this.upstreamEnd?.declared,
        upstream: outcome,
      },
      frames: this.recorder.since(start),
      negotiated: { upstream: this.upstreamEnd?.negotiated ?? null, downstream: this.answerer.negotiated },
    };
    if (outcome.kind === "broken" && this.relay.stderr) output.relayLog = this.relay.stderr.slice(-2000);
    return output;
  }

  async close(): Promise<void> {
    this.reviewer?.stop();
    await this.closeDownstream?.().catch(() => undefined);
    await this.relay?.stop();
    await this.endpoint?.close().catch(() => undefined);
    removeTempDir(this.tmp);
  }
}
