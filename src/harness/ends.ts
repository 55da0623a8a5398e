import type { Answer } from "../model/case.ts";
import type { SequenceEntry, UpstreamOutcome } from "../model/evidence.ts";
import { type JsonRpcId, type JsonRpcPeer, type JsonRpcResponse, PeerTimeoutError } from "./jsonrpc-peer.ts";
import type { ActionLog } from "./lateness.ts";

/**
 * The two ends the harness plays around a relay, whatever the era: the session drives either kind through these
 * small interfaces (legacy: ScriptedUpstream / ClientAnswerer; 2026-07-28: ModernUpstream / ModernAnswerer).
 */

/** 2026-07-28: how the upstream frames its input_required result (a case may pin both for the MRTR rows). */
export interface InputFraming {
  /** The inputRequests key of the sampling request. */
  key?: string;
  /** The requestState sent with it; null sends none. */
  requestState?: string | null;
}

/** One sampling request of a sequence: its params, the token its canary became, and (2026-07-28) its key. */
export interface Ask {
  key: string;
  token: string;
  params: Record<string, unknown>;
}

/**
 * Several sampling requests for one probe call (cases with `sequence:` or `mrtr.keys:`), all within the probe's one
 * wait. A round's requests go out at once (legacy: concurrent requests; 2026-07-28: one input_required with a key
 * each); the next round is asked for once every request of the round has its outcome.
 */
export interface Sequence {
  first: Ask[];
  /** The requests of round `round + 1` from the outcomes of round `round`; undefined or empty ends the sequence. */
  next?(round: number, answered: Array<{ ask: Ask; outcome: UpstreamOutcome }>): Ask[] | undefined;
  /** Where the upstream records each request it sent, with its outcome, in order (through recordEntry). */
  record: SequenceEntry[];
  /**
   * What is kept of the outcome of each request after the first (default: all of it), as soon as nothing needs more
   * of it. The first request's outcome is the probe's, judged in full; the others are judged on what this leaves
   * (src/judge/checks/sequence.ts). Applying it twice changes nothing.
   */
  keptOutcome?(outcome: UpstreamOutcome): UpstreamOutcome;
}

/** Records one request of a sequence with its outcome: the first as it is, the others as the sequence keeps them. */
export function recordEntry(sequence: Sequence, entry: SequenceEntry): void {
  const keep = sequence.record.length > 0 ? sequence.keptOutcome : undefined;
  sequence.record.push(keep ? { ...entry, outcome: keep(entry.outcome) } : entry);
}

/**
 * Records the requests of a round the harness's own wait ran out before sending (a tool loop still going when the
 * case's time was up) as timed out with no time of their own (`afterMs` 0): the sequence says where it stopped and
 * why, never that it ended by itself (lateness.ts, boundLateness, reads it).
 */
export function recordUnsent(sequence: Sequence, round: number, asks: Ask[], deadlineMs: number): void {
  for (const ask of asks)
    recordEntry(sequence, {
      round,
      key: ask.key,
      token: ask.token,
      sent: ask.params,
      outcome: { kind: "timeout", deadlineMs, afterMs: 0 },
    });
}

/**
 * What the upstream does on the next probe tool call, whatever its era: send these sampling params and report what came
 * back.
 */
export interface Probe {
  caseKey: string;
  params: Record<string, unknown>;
  /** How long to wait for the relay's answer to the sampling request. */
  waitMs: number;
  done: (outcome: UpstreamOutcome) => void;
  /** Streamable HTTP: send the sampling request on the standalone GET stream (tied to no request) instead. */
  unrelated?: boolean;
  /** The sampling request's JSON-RPC id (the fuzzer's, from the whole id space); default the peer's next. */
  requestId?: JsonRpcId;
  /**
   * Answer the probe call at once and send the sampling request DETACHED_AFTER_CALL_MS later, tied to no request
   * (Streamable HTTP: on the standalone GET stream; stdio: whenever, as a stdio server may).
   */
  detached?: boolean;
}

export interface ArmedProbe extends Probe {
  /** 2026-07-28 only; legacy upstreams ignore it. */
  mrtr?: InputFraming;
  /** Several sampling requests instead of `params` alone (its first request's outcome is the probe's). */
  sequence?: Sequence;
}

export interface HarnessUpstream {
  /** Arms the next probe call; undefined disarms every armed probe. */
  arm(probe: ArmedProbe | undefined): void;
  /** Ends a case at the upstream: its probe, if never called, is disarmed; a retry it still awaits is no longer awaited. */
  disarm(caseKey: string): void;
  /** The protocol version the relay spoke to the upstream, once known. */
  readonly negotiated: string | null;
  /** Probe calls that arrived with no probe armed (a late or duplicated call). */
  readonly strayCalls: unknown[];
  /** Client capabilities the relay declared to the upstream, once known. */
  readonly declared?: unknown;
  /**
   * The answerer's probe call has ended, so no further answer can come from it: an upstream that is waiting for
   * the relay to come back (2026-07-28: a retry) decides within `graceMs`. Legacy upstreams have no such wait.
   */
  settle?(graceMs: number, caseKey: string, within?: string): void;
  /**
   * The settle time of a case is over and its outcome has not come: if the upstream still awaits that case's retry
   * (it was settled), no retry came, and the upstream decides so now instead of on its own timer. False when it
   * awaits nothing for the case (the relay never called the probe, or the input request never went out).
   */
  expireSettled?(caseKey: string): boolean;
  /** 2026-07-28: the requestState the upstream sent for this case's input_required, while it awaits the retry. */
  requestStateOf?(caseKey: string): string | undefined;
  /**
   * Why the relay's upstream side cannot reach this upstream's era (its client offered an older version and was
   * refused, and never reached the tools), quoting what was sent and answered; undefined when it can, or did.
   */
  eraRefusal?(): string | undefined;
}

export interface HarnessAnswerer {
  readonly peer: JsonRpcPeer;
  /** The protocol version the relay spoke to the answerer, once known. */
  readonly negotiated: string | null;
  /** Sampling request params the answerer was shown since the last `script`, in order. */
  readonly asked: unknown[];
  /** When (performance.now()) the answerer was first shown a sampling request since the last `script`. */
  readonly askedAt: number | undefined;
  /** What the answerer replied (`{result}` or `{error}`), when it replied. */
  readonly answered: unknown;
  /** Called when the script makes the answerer wait on purpose (the session hands the lane on meanwhile). */
  onWait: (() => void) | undefined;
  /** The case's scripted actions as carried out, timed (lateness.ts); reset by `script`. */
  readonly actions: ActionLog;
  connect(timeoutMs: number): Promise<void>;
  /** `answerFor`: the result for one request, when it depends on the request (several requests in one case). */
  script(answer: Answer, answerFor?: AnswerFor): void;
  /** Calls the probe tool and resolves with the relay's final response to that call. */
  callProbe(caseKey: string, timeoutMs: number): Promise<JsonRpcResponse>;
}

/** The accepted result for one sampling request a case sends among several (undefined: the case's own result). */
export type AnswerFor = (params: unknown) => Record<string, unknown> | undefined;

/** The probe call's own ending: the relay's final response to it, or why there was none. */
export type ProbeCallEnd = { response: JsonRpcResponse } | { error: Error };

/** How the probe tool call ended, for a reason: its transport error, or the relay's response (bounded). */
export function describeCallEnd(end: ProbeCallEnd): string {
  return "error" in end
    ? end.error.message
    : `the relay answered the probe tool call with ${JSON.stringify(end.response.error ?? end.response.result).slice(0, 200)}`;
}

/**
 * Calls the probe tool and races its ending against the upstream's outcome: whichever comes first decides how
 * the session waits for the other (both session kinds, one and two downstreams, use this).
 */
export function callProbeAndRace<O>(
  answerer: Pick<HarnessAnswerer, "callProbe">,
  caseKey: string,
  timeoutMs: number,
  outcome: Promise<O>,
): { call: Promise<ProbeCallEnd>; first: Promise<{ outcome: O } | { call: ProbeCallEnd }> } {
  const call = answerer.callProbe(caseKey, timeoutMs).then(
    (response): ProbeCallEnd => ({ response }),
    (error: Error): ProbeCallEnd => ({ error }),
  );
  const first = Promise.race([outcome.then((o) => ({ outcome: o })), call.then((c) => ({ call: c }))]);
  return { call, first };
}

/**
 * The relay does not serve the kind of client a case needs (the cases that need one are n/a against it, the others
 * are not affected); `message` says how it refused.
 */
export class ClientShapeRefused extends Error {}

/**
 * The relay answers no request of a legacy client before its notifications/initialized (it held tools/list until the
 * notification came, as a server may: lifecycle, "Initialization"): a call cannot reach it before then, so a case that
 * needs its call in flight before the notification cannot be exercised against it.
 */
export class InitializedRequired extends ClientShapeRefused {
  constructor(heldMs: number) {
    super(
      `the relay answers no request before notifications/initialized: tools/list was not answered within ${heldMs} ms without it, and was answered once it came, so no call can reach the relay before the notification`,
    );
  }
}

/**
 * The relay does not serve clients of this era (a 2026-07-28 client: it refused server/discover and tools/list; a
 * legacy client: it refused initialize with -32022, the spec's UnsupportedProtocolVersionError): the cases that need
 * such a client are n/a against it, the others are not affected. `message` says how it refused.
 */
export class ClientEraRefused extends ClientShapeRefused {
  constructor(era: string, how: string) {
    super(`the relay does not serve ${era} clients: ${how}`);
  }
}

/**
 * The relay's upstream side cannot reach the session's upstream (its client offered an older version, was refused, and
 * never spoke the era: HarnessUpstream.eraRefusal), and the relay then failed the start on its own (an error, an exit):
 * the cases that need that upstream are n/a. A start the harness gave up waiting for (`timedOut`, or a request of its
 * own that timed out) proves nothing of the kind: the relay may have been about to fall back to the era.
 */
export function upstreamRefusal(
  upstream: HarnessUpstream | undefined,
  error: unknown,
  timedOut = false,
): string | undefined {
  return timedOut || error instanceof PeerTimeoutError ? undefined : upstream?.eraRefusal?.();
}
