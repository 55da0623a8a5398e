/**
 * Every fixed wait of the harness, in one place, each with its reason. Where the protocol gives a signal (a
 * response, a retry, a closed stream, the relay's own expiry) the harness moves on at that signal; these are the
 * waits that remain, for things that have no signal (silence is the only refusal in 2026-07-28; a relay that never
 * answers gives nothing to wait for but a clock).
 *
 * All of them are scaled by one factor, `MCPX_CONFORM_TIME_SCALE` (default 1): on a slow or loaded machine set it to
 * 2 or 3 and every settle, grace and bound below grows with it. A value that is not a positive number is ignored
 * (1). The profile's own deadlines (startupTimeoutMs, caseTimeoutMs, answerTimeoutMs) are the target's figures and
 * are not scaled.
 */

/** The factor every wait below is multiplied by: `MCPX_CONFORM_TIME_SCALE`, a positive number, default 1. */
export function timeScale(value: string | undefined = process.env.MCPX_CONFORM_TIME_SCALE): number {
  const n = Number(value);
  return value !== undefined && value.trim() !== "" && Number.isFinite(n) && n > 0 ? n : 1;
}

/**
 * `promise`, or undefined once `ms` have passed, whichever comes first. The timer is cleared when the promise wins:
 * a grace left pending would hold the process open that long after the run has ended.
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const SCALE = timeScale();
const scaled = (ms: number) => Math.round(ms * SCALE);

// --- one case through a relay session (session.ts) ---

/**
 * A case still running after this long is waiting (on the relay's deadline, a held notification, a review left open),
 * not computing: one exchange costs a few tens of ms. Its lane goes on to another session meanwhile; its own session
 * stays with it. Not scaled: it bounds no wait, it only lets waits overlap.
 */
export const LANE_HOLD_MS = 150;
/**
 * A case still holding its (legacy, or not yet released) relay session this long after it began moves the rest of its
 * session group to a relay session of their own (controller.ts, MAX_SPLITS): a relay start costs about as much.
 */
export const SPLIT_AFTER_MS = 400;

/** 2026-07-28: after the answerer's call ended with no question shown, how long the upstream still waits for a retry (a relay that refused before asking has nothing pending). */
export const MRTR_SETTLE_MS = scaled(500);
/** 2026-07-28: after a question was shown, the slack on top of the profile's answerTimeoutMs for a relay acting on its own deadline. */
export const MRTR_DEADLINE_SLACK_MS = scaled(300);
/** Once the upstream has its outcome, how long the probe tool call may still take to end (its frames belong in the evidence). */
export const CALL_END_GRACE_MS = scaled(2_000);
/** Once the probe call ended first, how long the upstream's outcome may still take to arrive (it crosses another pipe). */
export const OUTCOME_GRACE_MS = scaled(300);
/** The upstream waits the case's caseTimeoutMs less this margin for its answer, so it decides before the call times out. */
export const UPSTREAM_WAIT_MARGIN_MS = 500;
/** The shortest the upstream ever waits for its answer (a profile with a tiny caseTimeoutMs). */
export const UPSTREAM_WAIT_MIN_MS = scaled(500);
/** The answerer's probe call may take caseTimeoutMs plus this before the harness stops waiting for its response. */
export const PROBE_CALL_SLACK_MS = scaled(1_000);

/**
 * A case with `holdInitialized`: how long after its probe call the answerer holds back notifications/initialized. No
 * signal says "the relay would have asked by now": a relay that does not wait for initialized forwards the call, gets
 * the upstream's request and asks within a few pipe hops, far sooner than this.
 */
export const HOLD_INITIALIZED_MS = scaled(600);

/**
 * How long the harness waits for an answer to a request that a relay may hold until the client has initialized (a
 * legacy client's tools/list before its notifications/initialized; a 2026-07-28 client's tools/list after server/discover
 * was refused): a server may answer nothing before then (lifecycle, "Initialization"), and this much silence is taken
 * as that, not as a relay that never starts. A relay that relays tools/list answers within one upstream round trip.
 */
export const HELD_REQUEST_MS = scaled(4_000);

/**
 * A `detached` case: how long after answering the probe call the upstream sends its sampling request, so the call's
 * result has travelled through the relay and no request of the answerer's is pending when the request arrives.
 */
export const DETACHED_AFTER_CALL_MS = scaled(300);

// --- bounds (controller.ts, processes.ts): never waited out by a working relay ---

/** On top of caseTimeoutMs, what one case may take before the relay is deemed to have stopped answering: the waits above plus margin. */
export const CASE_SLACK_MS = scaled(3_000);
/** How long a relay has to exit after SIGTERM before its whole process group gets SIGKILL. */
export const KILL_GRACE_MS = scaled(1_500);

// --- two-session cases (isolation.ts) ---

/** How often the isolation runner looks for one more upstream connection (stateful relays open one per session). */
export const UPSTREAM_POLL_MS = scaled(200);
/** SIGTERM → SIGKILL grace for an isolation case's own relay (it served one case; nothing to flush). */
export const ISOLATION_STOP_GRACE_MS = scaled(300);
/** After the upstream's outcome, how long the asker's deliberately slow answer may take to be sent, so both answers are compared. */
export const ASKER_ANSWER_WAIT_MS = scaled(1_000);
/**
 * Once the asker has answered, how long the isolation runner waits for the relay's next frame to the upstream (a relay
 * that hands both sessions' answers upstream forwards the asker's too), so that frame is in the transcript every time.
 */
export const ASKER_FORWARD_WAIT_MS = scaled(300);
/** How often the isolation runner looks whether the asker has answered (the answerer has no event for it). */
export const ASKER_ANSWER_POLL_MS = scaled(50);
/** 2026-07-28 isolation: the least delay of the second asker's answer, so the first asker answers while both are open. */
export const MRTR_SECOND_ANSWER_MS = scaled(400);

// --- review surface (reviewer.ts) ---

/** How long one long poll of the review surface (`GET /questions?wait=`) may hold before it is renewed. */
export const REVIEW_LONG_POLL_MS = scaled(10_000);
/** A review surface without long polling (it answers at once, no version header) is polled this often. */
export const REVIEW_POLL_MS = scaled(20);
/** Any other review-surface request (a decision, a plain poll) that takes longer than this is abandoned. */
export const REVIEW_REQUEST_TIMEOUT_MS = scaled(2_000);

// --- broker answerer (broker.ts) ---

/** A broker has no signal for a new question (its list is read, not waited on): its HTTP list is read this often. */
export const BROKER_POLL_MS = scaled(25);
/** A broker listed by a command line (a process per look, e.g. `mcpx elicit list`) is read this often. */
export const BROKER_COMMAND_POLL_MS = scaled(150);
/** Any one broker call (an HTTP request or a command line) that takes longer than this is abandoned. */
export const BROKER_CALL_TIMEOUT_MS = scaled(3_000);

// --- HTTP transports (http-downstream.ts) ---

/** How often start-up tries to connect to a relay's HTTP port until it listens. */
export const LISTEN_POLL_MS = scaled(50);
/** Closing an HTTP session: how long the DELETE (session termination) may take on a stuck relay. */
export const TERMINATE_SESSION_MS = scaled(1_000);

/** 2026-07-28: how long the answerer waits for server/discover, which a relay may leave unanswered (it is optional). */
export const DISCOVER_TIMEOUT_MS = scaled(5_000);

/** Streamable HTTP upstream: how long a request meant for the standalone GET stream waits for the relay to open it. */
export const STANDALONE_STREAM_WAIT_MS = scaled(1_000);
/** How often that wait looks whether the stream is open (a GET has no event the host could await here). */
export const STANDALONE_STREAM_POLL_MS = scaled(20);
