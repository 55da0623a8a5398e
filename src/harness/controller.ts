import type { Answer } from "../model/case.ts";
import type { CaseRun } from "../model/case-run.ts";
import type { LoadedCase } from "../model/load.ts";
import type { TargetProfile } from "../model/target.ts";
import type { Era } from "../protocol/eras.ts";
import { ControlServer } from "./channels.ts";
import { canaryFor, withCanary } from "./instantiate.ts";
import { bystanderAnswer, runIsolationCase } from "./isolation.ts";
import { KILL_GRACE_MS } from "./processes.ts";
import { type CaseRunOutput, RelaySession, SessionStartError } from "./session.ts";

export type { CaseRun } from "../model/case-run.ts";

export interface RunPlan {
  profile: TargetProfile;
  profileFile?: string;
  /** Cases with the eras each runs in, in order; cases sharing an era and capabilities share a relay session. */
  work: Array<{ kase: LoadedCase; era: Era }>;
  seed: number;
  onCase?: (run: CaseRun) => void;
  /**
   * Asked before each case: a reason not to run it (its era's round trip already failed), or undefined. The case
   * is recorded as not run for that reason (`CaseRun.notRun`) and costs no time.
   */
  skip?: (item: { kase: LoadedCase; era: Era }) => string | undefined;
  /** Aborting stops the run: the case running is abandoned (its relay reaped), the rest are recorded as not run. */
  signal?: AbortSignal;
}

/** A session group gets its relay started at most this many times (the first start and one reopen). */
export const MAX_STARTS_PER_GROUP = 2;
/**
 * On top of caseTimeoutMs, what one case may take before the harness gives it up: the session's own waits after
 * the probe call (up to 2 s for the call to end, 0.3 s of settle) plus margin. A case that exceeds it means the
 * relay stopped answering; its session is given up.
 */
export const CASE_SLACK_MS = 3_000;
/** Start-up, judging and writing: the run's fixed cost on top of its cases (a generous figure for slow machines). */
export const RUN_OVERHEAD_MS = 15_000;

/** Capabilities the answerer declares for a case: the case's own, else sampling (+tools when the request has tools). */
export function answererCapabilities(kase: LoadedCase): Record<string, unknown> {
  if (kase.capabilities) return kase.capabilities;
  const hasTools = "tools" in kase.request || "toolChoice" in kase.request;
  return { sampling: hasTools ? { tools: {} } : {} };
}

/** Timing cases take their delay from the target's own deadline (`delayOfAnswerTimeout`), not a fixed figure. */
export function withProfileDelay(answer: Answer, profile: TargetProfile): Answer {
  if (answer.action !== "accept" || answer.delayOfAnswerTimeout === undefined) return answer;
  const { delayOfAnswerTimeout, ...rest } = answer;
  return { ...rest, delayMs: Math.max(1, Math.round(delayOfAnswerTimeout * profile.answerTimeoutMs)) };
}

/** The session group of a case: cases of one era (both ends) and one set of declared capabilities share a relay. */
export function sessionGroup(item: { kase: LoadedCase; era: Era }): string {
  const caps = JSON.stringify(answererCapabilities(item.kase));
  return `${item.era} ${item.kase.downstreamEra ?? item.era} ${caps}`;
}

/**
 * The longest a run of these cases can take against this profile, in ms (the README states it):
 *   groups × 2 × (startupTimeoutMs + KILL_GRACE_MS) + isolation cases × (startupTimeoutMs + KILL_GRACE_MS)
 *   + case runs × (startupTimeoutMs + caseTimeoutMs + CASE_SLACK_MS) + RUN_OVERHEAD_MS
 * Every relay start is bounded by startupTimeoutMs, every stop by the kill grace, every case by caseTimeoutMs plus
 * slack (plus startupTimeoutMs for the one case of a session that waits for the relay to launch the upstream), and a
 * group's relay is started at most twice. Relays that fail early end far sooner: a relay that never starts costs one
 * start; an era whose round trip fails costs its round trip only.
 */
export function worstCaseMs(
  profile: Pick<TargetProfile, "startupTimeoutMs" | "caseTimeoutMs">,
  work: Array<{ kase: LoadedCase; era: Era }>,
): number {
  const isolation = work.filter((w) => w.kase.sessions === 2).length;
  const groups = new Set(work.filter((w) => w.kase.sessions !== 2).map(sessionGroup)).size;
  const start = profile.startupTimeoutMs + KILL_GRACE_MS;
  const perCase = profile.startupTimeoutMs + profile.caseTimeoutMs + CASE_SLACK_MS;
  return groups * MAX_STARTS_PER_GROUP * start + isolation * start + work.length * perCase + RUN_OVERHEAD_MS;
}

/** Why a session failed, kept so that later cases needing the same kind of session get it at once. */
interface Failure {
  reason: string;
  frames: CaseRun["frames"];
  relayLog?: string;
}

type WorkItem = { kase: LoadedCase; era: Era };
type Outcome = Omit<
  CaseRun,
  "kase" | "era" | "canary" | "expect" | "capabilities" | "answerTimeoutMs" | "startedAt" | "durationMs"
>;

/** One case × era made concrete (canary filled in), with the ways its run is recorded. */
function instantiate(plan: RunPlan, { kase, era }: WorkItem, n: number, runs: CaseRun[]) {
  const canary = canaryFor(kase.id, era, plan.seed, n);
  const params = withCanary(kase.request, canary);
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const record = (out: Outcome) => {
    const run: CaseRun = {
      kase,
      era,
      canary,
      expect: withCanary(kase.expect, canary),
      capabilities: answererCapabilities(kase),
      answerTimeoutMs: plan.profile.answerTimeoutMs,
      startedAt,
      durationMs: Math.round(performance.now() - t0),
      ...out,
    };
    runs.push(run);
    plan.onCase?.(run);
  };
  const unobserved = (detail: string) => ({
    observation: { sent: params, asked: [], upstream: { kind: "broken" as const, detail } },
    frames: [] as CaseRun["frames"],
    negotiated: { upstream: null, downstream: null },
  });
  return {
    canary,
    params,
    answer: withProfileDelay(withCanary(kase.answer, canary), plan.profile),
    record,
    /** The harness could not drive this case: an error with the real cause, never a verdict on the relay. */
    notDriven: (failure: Failure, prefix = "") =>
      record({
        ...unobserved(`${prefix}${failure.reason}`),
        frames: failure.frames,
        harnessError: `${prefix}${failure.reason}`,
        ...(failure.relayLog ? { relayLog: failure.relayLog } : {}),
      }),
    /** Not run: a prerequisite of its era failed (the judge records that failure). */
    notRun: (why: string) => record({ ...unobserved(`not run: ${why}`), notRun: why }),
  };
}

/**
 * The relay session of one group (era, downstream era, capabilities): started at most MAX_STARTS_PER_GROUP times,
 * never again once a start failed; remembers why, so the group's later cases get that reason at once.
 */
class GroupSession {
  private session: RelaySession | undefined;
  private starts = 0;
  private failure: Failure | undefined;
  /** Why the last session was given up (the reason a reopen is needed). */
  private lastBreak: string | undefined;

  constructor(
    private readonly plan: RunPlan,
    private readonly control: ControlServer,
  ) {}

  /** A usable session for this case, or why there is none (`silent`: the relay said nothing readable). */
  async acquire({ kase, era }: WorkItem): Promise<RelaySession | { failure: Failure; silent?: boolean }> {
    if (this.failure) return { failure: this.failure };
    if (this.session && !this.session.broken) return this.session;
    if (this.session) this.lastBreak ??= this.session.brokenReason;
    await this.close();
    const capabilities = answererCapabilities(kase);
    if (this.starts >= MAX_STARTS_PER_GROUP) {
      this.failure = {
        reason: `the relay broke again after a reopen (${this.lastBreak ?? "it died"}), so the rest of this session group (${era}, capabilities ${JSON.stringify(capabilities)}) was not run`,
        frames: [],
      };
      return { failure: this.failure };
    }
    this.starts++;
    try {
      this.session = await RelaySession.open({
        profile: this.plan.profile,
        profileFile: this.plan.profileFile,
        era,
        capabilities,
        ...(kase.downstreamEra ? { downstreamEra: kase.downstreamEra } : {}),
        control: this.control,
      });
      this.lastBreak = undefined;
      return this.session;
    } catch (error) {
      const failure: Failure = {
        reason: `the relay session could not start: ${error instanceof Error ? error.message : String(error)}`,
        frames: error instanceof SessionStartError ? error.frames : [],
        ...(error instanceof SessionStartError && error.relayLog ? { relayLog: error.relayLog } : {}),
      };
      this.failure = {
        ...failure,
        frames: [],
        reason: `${failure.reason} (as for this session group's first case, not retried)`,
      };
      return { failure, silent: error instanceof SessionStartError && error.silent };
    }
  }

  async close(): Promise<void> {
    await this.session?.close();
    this.session = undefined;
  }
}

/**
 * A case through its group's relay session; returns the failure when the relay could not start without saying
 * anything readable (every later session would fail the same way).
 */
async function runInSession(
  plan: RunPlan,
  group: GroupSession,
  item: WorkItem,
  c: ReturnType<typeof instantiate>,
): Promise<Failure | undefined> {
  const { kase, era } = item;
  const session = await group.acquire(item);
  if (!(session instanceof RelaySession)) {
    c.notDriven(session.failure);
    return session.silent ? { ...session.failure, frames: [] } : undefined;
  }
  const review = kase.review ? withCanary(kase.review, c.canary) : undefined;
  const input = {
    caseKey: `${kase.row}/${kase.id}@${era}`,
    params: c.params,
    answer: c.answer,
    ...(review ? { review } : {}),
    ...(kase.mrtr ? { mrtr: withCanary(kase.mrtr, c.canary) } : {}),
  };
  c.record(await runBounded(session, plan.profile, input, plan.signal));
  return undefined;
}

/**
 * Runs every planned case against the target: groups them into relay sessions by era and declared capabilities,
 * reopens a session when the relay dies or stops answering (at most once per group), and always reaps what it
 * started. A relay that fails to start without saying anything readable fails every later session the same way:
 * the remaining cases get that error at once instead of waiting out the start-up timeout again.
 */
export async function runCases(plan: RunPlan): Promise<CaseRun[]> {
  const { profile, signal } = plan;
  const control = new ControlServer();
  await control.start();
  const runs: CaseRun[] = [];
  const groups = new Map<string, WorkItem[]>();
  for (const item of plan.work)
    groups.set(sessionGroup(item), [...(groups.get(sessionGroup(item)) ?? []), item]);
  /** A start failure that does not depend on the session (the relay exited or wrote nothing readable). */
  let everySession: Failure | undefined;
  let n = 0;
  try {
    for (const items of groups.values()) {
      const group = new GroupSession(plan, control);
      for (const item of items) {
        const { kase, era } = item;
        const c = instantiate(plan, item, n++, runs);
        const skipped = signal?.aborted ? undefined : plan.skip?.(item);
        if (signal?.aborted)
          c.notDriven(
            { reason: String(signal.reason ?? "interrupted"), frames: [] },
            "the run was interrupted before this case ran: ",
          );
        else if (skipped) c.notRun(skipped);
        else if (everySession)
          c.notDriven(everySession, "not retried, as in an earlier session of this run: ");
        else if (kase.sessions === 2)
          // Session isolation needs a relay of its own with two downstream sessions (see isolation.ts).
          c.record(
            await runIsolationCase({
              profile,
              profileFile: plan.profileFile,
              era,
              capabilities: answererCapabilities(kase),
              control,
              caseKey: `${kase.row}/${kase.id}@${era}`,
              params: c.params,
              answer: c.answer,
              bystander: bystanderAnswer(kase.answer, c.canary),
            }),
          );
        else everySession ??= await runInSession(plan, group, item, c);
      }
      await group.close();
    }
  } finally {
    await control.close();
  }
  return runs;
}

/**
 * One case with a hard bound: caseTimeoutMs + CASE_SLACK_MS (+ startupTimeoutMs while the relay has not yet launched
 * the upstream). A case that exceeds it, or during which the relay sent nothing at either end, means the relay
 * stopped answering: the session is given up (the next case reopens it, once per group).
 */
async function runBounded(
  session: RelaySession,
  profile: TargetProfile,
  input: Parameters<RelaySession["runCase"]>[0],
  signal: AbortSignal | undefined,
): Promise<CaseRunOutput> {
  const bound =
    (session.upstreamReady ? 0 : profile.startupTimeoutMs) + profile.caseTimeoutMs + CASE_SLACK_MS;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const mark = session.recorder.mark();
  const giveUp = new Promise<"timeout" | "abort">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), bound);
    onAbort = () => resolve("abort");
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  const running = session.runCase(input);
  const first = await Promise.race([running, giveUp]);
  clearTimeout(timer);
  if (onAbort) signal?.removeEventListener("abort", onAbort);
  if (first !== "timeout" && first !== "abort") {
    const heard = first.frames.some((f) => f.dir === "from-relay" && f.end !== "control");
    const ended = first.observation.upstream.kind === "result" || first.observation.upstream.kind === "error";
    if (!heard && !ended) session.giveUp("the relay sent nothing at either end during a whole case");
    return first;
  }
  const why =
    first === "abort"
      ? `the run was interrupted (${String(signal?.reason ?? "signal")}) during this case`
      : `the relay stopped answering: the case did not end within ${bound} ms`;
  session.giveUp(why);
  // The relay is reaped now; the case's own waits then end at once (its channels close).
  running.catch(() => undefined);
  await session.close();
  return {
    observation: { sent: input.params, asked: [], upstream: { kind: "broken", detail: why } },
    frames: session.recorder.since(mark),
    negotiated: { upstream: null, downstream: null },
    ...(first === "abort" ? { harnessError: why } : {}),
    ...(session.relayStderr ? { relayLog: session.relayStderr.slice(-2000) } : {}),
  } as CaseRunOutput;
}
