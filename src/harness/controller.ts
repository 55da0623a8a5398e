import { setMaxListeners } from "node:events";
import { availableParallelism } from "node:os";
import type { Answer } from "../model/case.ts";
import type { CaseRun } from "../model/case-run.ts";
import type { LoadedCase } from "../model/load.ts";
import type { TargetProfile } from "../model/target.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";
import { ControlServer } from "./channels.ts";
import { canaryFor, withCanary } from "./instantiate.ts";
import { bystanderAnswer, runIsolationCase } from "./isolation.ts";
import { KILL_GRACE_MS } from "./processes.ts";
import { RELAY_LOG_CHARS } from "./relay-process.ts";
import { sequenceFor } from "./sequence.ts";
import { type CaseHooks, type CaseRunOutput, RelaySession, SessionStartError } from "./session.ts";
import { CASE_SLACK_MS, LANE_HOLD_MS, SPLIT_AFTER_MS } from "./waits.ts";

export type { CaseRun } from "../model/case-run.ts";

export interface RunPlan {
  profile: TargetProfile;
  profileFile?: string;
  /** Cases with the eras each runs in, in order; cases sharing an era and capabilities share a relay session. */
  work: Array<{ kase: LoadedCase; era: Era }>;
  seed: number;
  /** Each case as it is recorded, with its index in `work`. */
  onCase?: (run: CaseRun, index: number) => void;
  /**
   * Whether runCases keeps every run to return them at the end (default true). A caller that takes each run in
   * `onCase` passes false: no run outlives its onCase then, and runCases returns none.
   */
  retain?: boolean;
  /**
   * Asked before each case: a reason not to run it (its era's round trip already failed), or undefined. The case
   * is recorded as not run for that reason (`CaseRun.notRun`) and costs no time.
   */
  skip?: (item: { kase: LoadedCase; era: Era }) => string | undefined;
  /** Aborting stops the run: the case running is abandoned (its relay reaped), the rest are recorded as not run. */
  signal?: AbortSignal;
  /** How many session groups (or two-session cases) run at the same time; default 1 (one after another). */
  concurrency?: number;
  /**
   * The era's prerequisite cases (the round trip): each era's other cases start only once every one of these has
   * ended, so the skip hook can act on its verdict. Plans put them first in their era.
   */
  prerequisite?: (item: { kase: LoadedCase; era: Era }) => boolean;
  /**
   * The expected ms of a case (it only orders the work: units whose longest case is longest start first, so the
   * longest waits overlap with the rest instead of trailing it).
   */
  cost?: (item: { kase: LoadedCase; era: Era }) => number;
  /** Cases that get a relay session of their own instead of their group's (a long deliberate wait). */
  ownSession?: (item: { kase: LoadedCase; era: Era }) => boolean;
  /** The most bytes of one frame the evidence keeps (default DEFAULT_MAX_FRAME_BYTES, src/harness/frames.ts). */
  maxFrameBytes?: number;
}

/** A session group gets its relay started at most this many times (the first start and one reopen). */
export const MAX_STARTS_PER_GROUP = 2;
/**
 * At most this many times in a run, a group whose case holds its relay session while it waits (SPLIT_AFTER_MS) moves
 * its remaining cases to a relay session of their own, so they need not queue behind the wait. Bounded, as each
 * split starts a relay (at most MAX_STARTS_PER_GROUP times, as any group).
 */
export const MAX_SPLITS = 6;
/**
 * On top of caseTimeoutMs, what one case may take before the harness gives it up: the session's own waits after
 * the probe call (up to 2 s for the call to end, 0.3 s of settle) plus margin. A case that exceeds it means the
 * relay stopped answering; its session is given up. (Defined with the other waits in waits.ts.)
 */
export { CASE_SLACK_MS };
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

/**
 * The session group of a case: cases of one era (both ends) and one set of declared capabilities share a relay. A
 * case whose answerer holds back notifications/initialized changes the session's start, and only its first case
 * can see it held: it has a session of its own.
 */
export function sessionGroup(item: { kase: LoadedCase; era: Era }): string {
  const caps = JSON.stringify(answererCapabilities(item.kase));
  const held = item.kase.holdInitialized ? ` hold-initialized ${item.kase.row}/${item.kase.id}` : "";
  return `${item.era} ${item.kase.downstreamEra ?? item.era} ${caps}${held}`;
}

/**
 * The longest a run of these cases can take against this profile, in ms (the README states it):
 *   (sessions + MAX_SPLITS) × 2 × (startupTimeoutMs + KILL_GRACE_MS) + isolation cases × (startupTimeoutMs + KILL_GRACE_MS)
 *   + case runs × (startupTimeoutMs + caseTimeoutMs + CASE_SLACK_MS) + RUN_OVERHEAD_MS
 * where sessions are the session groups plus the cases on a session of their own (`ownSession`). Every relay start is
 * bounded by startupTimeoutMs, every stop by the kill grace, every case by caseTimeoutMs plus slack (plus
 * startupTimeoutMs for the one case of a session that waits for the relay to launch the upstream), and a session is
 * started at most twice. Relays that fail early end far sooner: a relay that never starts costs one start; an era
 * whose round trip fails costs its round trip only.
 */
export function worstCaseMs(
  profile: Pick<TargetProfile, "startupTimeoutMs" | "caseTimeoutMs">,
  work: Array<{ kase: LoadedCase; era: Era }>,
  ownSession: (item: { kase: LoadedCase; era: Era }) => boolean = () => false,
): number {
  const isolation = work.filter((w) => w.kase.sessions === 2).length;
  const shared = work.filter((w) => w.kase.sessions !== 2 && !ownSession(w));
  const own = work.filter((w) => w.kase.sessions !== 2 && ownSession(w)).length;
  const sessions = new Set(shared.map(sessionGroup)).size + own;
  const start = profile.startupTimeoutMs + KILL_GRACE_MS;
  const perCase = profile.startupTimeoutMs + profile.caseTimeoutMs + CASE_SLACK_MS;
  return (
    (sessions + MAX_SPLITS) * MAX_STARTS_PER_GROUP * start +
    isolation * start +
    work.length * perCase +
    RUN_OVERHEAD_MS
  );
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

/** One case × era made concrete (canary named by its index in the plan), with the ways its run is recorded (at that index). */
function instantiate(
  plan: RunPlan,
  { kase, era }: WorkItem,
  index: number,
  runs: Array<CaseRun | undefined>,
) {
  const canary = canaryFor(kase.id, era, plan.seed, index);
  const sequence = sequenceFor(kase, canary, plan.maxFrameBytes);
  const params = sequence?.sequence.first[0]?.params ?? withCanary(kase.request, canary);
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
    if (plan.retain !== false) runs[index] = run;
    plan.onCase?.(run, index);
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
    sequence,
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
    /** The case needs a session shape the relay does not serve: n/a against this target. */
    notApplicable: (why: string, frames: CaseRun["frames"] = []) =>
      record({ ...unobserved(why), frames, notApplicable: why }),
  };
}

/**
 * The relay session of one group (era, downstream era, capabilities): started at most MAX_STARTS_PER_GROUP times,
 * never again once a start failed; remembers why, so the group's later cases get that reason at once.
 */
class GroupSession {
  private session: RelaySession | undefined;
  /** A start made ahead of the group's turn, not yet taken by a case. */
  private ahead: Promise<RelaySession | NoSession> | undefined;
  private starts = 0;
  private failure: Failure | undefined;
  /** Why the last session was given up (the reason a reopen is needed). */
  private lastBreak: string | undefined;

  constructor(
    private readonly plan: RunPlan,
    private readonly control: ControlServer,
  ) {}

  /**
   * A usable session for this case, or why there is none (`silent`: the relay said nothing readable; `every`: an
   * earlier session of the run failed that way while this one waited at the start gate).
   */
  async acquire(item: WorkItem, shared: Shared): Promise<RelaySession | NoSession> {
    const ahead = this.ahead;
    if (ahead) {
      // Started ahead of its turn (startAhead): this case takes it, or its failure, as if it had started it.
      this.ahead = undefined;
      const opened = await ahead;
      if (!(opened instanceof RelaySession) || !opened.broken) return opened;
    }
    return this.acquireNow(item, shared);
  }

  /** No session, none starting and none failed yet: a start ahead of the group's turn would be its first. */
  get idle(): boolean {
    return this.starts === 0 && !this.ahead && !this.session && !this.failure;
  }

  /**
   * Starts the group's relay session ahead of its turn (while the lanes are busy with other groups), so the lane
   * that takes the group finds it up; the start is the one its first case would make (same gate, same failure).
   */
  startAhead(item: WorkItem, shared: Shared): Promise<unknown> {
    this.ahead = this.acquireNow(item, shared);
    return this.ahead;
  }

  private async acquireNow({ kase, era }: WorkItem, shared: Shared): Promise<RelaySession | NoSession> {
    const refused = shared.refused.get(clientShape({ kase, era }));
    if (refused) return { failure: refused, refused: true };
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
    const opened = await shared.gate.through(
      () => this.start(era, capabilities, kase.downstreamEra, shared, kase.holdInitialized === true),
      (v) => v instanceof RelaySession,
    );
    if (opened instanceof RelaySession) this.session = opened;
    return opened;
  }

  private async start(
    era: Era,
    capabilities: Record<string, unknown>,
    downstreamEra: Era | undefined,
    shared: Shared,
    holdInitialized: boolean,
  ): Promise<RelaySession | NoSession> {
    const shape = clientShape({ era, downstreamEra });
    const refused = shared.refused.get(shape);
    if (refused) return { failure: refused, refused: true };
    const every = shared.everySession.get(shape);
    if (every) return { failure: every, every: true };
    this.starts++;
    try {
      const session = await RelaySession.open({
        profile: this.plan.profile,
        profileFile: this.plan.profileFile,
        era,
        capabilities,
        ...(downstreamEra ? { downstreamEra } : {}),
        ...(holdInitialized ? { holdInitialized } : {}),
        ...(this.plan.maxFrameBytes ? { maxFrameBytes: this.plan.maxFrameBytes } : {}),
        control: this.control,
      });
      this.lastBreak = undefined;
      return session;
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
      if (error instanceof SessionStartError && error.refused) {
        // The relay does not serve this kind of client: every case that needs one is n/a, and only those.
        const refusal = { reason: error.refused, frames: failure.frames };
        if (!shared.refused.has(shape)) shared.refused.set(shape, { ...refusal, frames: [] });
        this.failure = { ...refusal, frames: [] };
        return { failure: refusal, refused: true };
      }
      const silent = error instanceof SessionStartError && error.silent;
      // Set before the start gate opens, so a session waiting at it gets this reason instead of starting; only
      // sessions of the same shape (the kind of client the harness connects) are spared the start.
      if (silent && !shared.everySession.has(shape))
        shared.everySession.set(shape, { ...failure, frames: [] });
      return { failure, silent };
    }
  }

  async close(): Promise<void> {
    // A start still under way (ahead of a turn that never came: bail, interrupt) is waited for, then closed.
    const ahead = this.ahead;
    this.ahead = undefined;
    if (ahead) await ahead;
    await this.session?.close();
    this.session = undefined;
  }
}

/**
 * A case that only waits now, handed on by its lane and recorded when `settling` resolves: with `sessionFree`, its
 * session already takes the next case (2026-07-28 settle); else the session stays its own until then, or until
 * `sessionFreed` resolves (a case whose lane went on at LANE_HOLD_MS may still let its session go later).
 */
interface Settling {
  settling: Promise<void>;
  sessionFree: boolean;
  sessionFreed: Promise<void>;
}

/** How a handed-on case holds its unit now (`lane`: the session is still its own), and whether it has settled. */
interface Hand {
  how: "session" | "lane";
  settled: boolean;
}

/**
 * A case through its group's relay session. A relay that could not start without saying anything readable has set
 * the run's `everySession` failure (every later session would fail the same way).
 */
async function runInSession(
  plan: RunPlan,
  group: GroupSession,
  item: WorkItem,
  c: ReturnType<typeof instantiate>,
  shared: Shared,
): Promise<Settling | undefined> {
  const { kase, era } = item;
  const session = await group.acquire(item, shared);
  if (!(session instanceof RelaySession)) {
    if (session.refused) c.notApplicable(session.failure.reason, session.failure.frames);
    else if (session.every) c.notDriven(session.failure, NOT_RETRIED);
    else c.notDriven(session.failure);
    return;
  }
  const review = kase.review ? withCanary(kase.review, c.canary) : undefined;
  const input = {
    caseKey: `${kase.row}/${kase.id}@${era}`,
    params: c.params,
    answer: c.answer,
    ...(review ? { review } : {}),
    ...(kase.mrtr ? { mrtr: withCanary(kase.mrtr, c.canary) } : {}),
    ...(kase.stream === "standalone" ? { unrelated: true } : {}),
    ...(c.sequence ?? {}),
  };
  let handOn!: (how: "session" | "lane") => void;
  const handedOn = new Promise<"session" | "lane">((r) => {
    handOn = r;
  });
  let freeSession!: () => void;
  const sessionFreed = new Promise<void>((r) => {
    freeSession = r;
  });
  const hooks = {
    sessionFree: () => {
      handOn("session");
      freeSession();
    },
    laneFree: () => handOn("lane"),
  };
  // A case still running after LANE_HOLD_MS is waiting: its lane goes on (the first hand-on decides; a later
  // sessionFree still lets the session go through sessionFreed).
  const hold = setTimeout(hooks.laneFree, LANE_HOLD_MS);
  const recorded = runBounded(session, plan.profile, input, plan.signal, hooks)
    .then(c.record)
    .finally(() => clearTimeout(hold));
  // A case that only waits now hands its lane (and in 2026-07-28 its session) on and is recorded when it settles.
  const first = await Promise.race([recorded, handedOn]);
  return first === undefined
    ? undefined
    : { settling: recorded, sessionFree: first === "session", sessionFreed };
}

/** A run's lanes: `--concurrency` when given, else the machine's parallelism, at least 2. */
export function defaultConcurrency(): number {
  return Math.max(2, availableParallelism());
}

/**
 * Where a relay start may begin. Until one session of the run has started, starts go one at a time in plan order:
 * a relay that fails silently then fails the first session only, and every later case gets that reason at once
 * (`everySession`), exactly as in a sequential run. Once one start succeeded, starts run freely.
 */
class StartGate {
  private proven = false;
  private tail: Promise<void> = Promise.resolve();

  /** A start has succeeded: starts run freely. */
  get open(): boolean {
    return this.proven;
  }

  /** Runs `start` under the gate (alone until a start has succeeded once). */
  async through<T>(start: () => Promise<T>, succeeded: (value: T) => boolean): Promise<T> {
    if (this.proven) return start();
    let release!: () => void;
    const previous = this.tail;
    this.tail = new Promise<void>((r) => {
      release = r;
    });
    await previous;
    try {
      const value = await start();
      if (succeeded(value)) this.proven = true;
      return value;
    } finally {
      release();
    }
  }

  /** Waits for any start in progress to settle while the run has not yet proven it can start a relay. */
  async settled(): Promise<void> {
    if (!this.proven)
      await this.through(
        async () => undefined,
        () => false,
      );
  }
}

/**
 * A lane's unit of work: the cases of one session group (one relay session, run one after another), or one
 * two-session case (a relay of its own). Items keep their index in the plan: it names their canary and their place
 * in the returned runs, so a concurrent run gives the same content as a sequential one.
 */
interface Unit {
  items: Array<{ item: WorkItem; index: number }>;
  /** Index of the next item to run. */
  next: number;
  /** A lane is running one of its items (a session drives one case at a time). */
  busy: boolean;
  /** Cases of the unit that handed its session on and are still settling (2026-07-28). */
  settling: number;
  group?: GroupSession;
}

/**
 * Session groups, cases on a session of their own and two-session cases; the units whose longest case is expected to
 * take longest come first (ties: by size, then plan order), so the run's longest waits start early.
 */
const unit = (group?: GroupSession): Unit => ({ items: [], next: 0, busy: false, settling: 0, group });

function unitsOf(plan: RunPlan, control: ControlServer): Unit[] {
  const units: Unit[] = [];
  const byGroup = new Map<string, Unit>();
  plan.work.forEach((item, index) => {
    if (item.kase.sessions === 2 || plan.ownSession?.(item)) {
      const own = unit(item.kase.sessions === 2 ? undefined : new GroupSession(plan, control));
      own.items.push({ item, index });
      units.push(own);
      return;
    }
    const key = sessionGroup(item);
    let shared = byGroup.get(key);
    if (!shared) {
      shared = unit(new GroupSession(plan, control));
      byGroup.set(key, shared);
      units.push(shared);
    }
    shared.items.push({ item, index });
  });
  const cost = plan.cost;
  if (!cost) return units;
  // Within a session, its prerequisite first, then the longest waits: a 2026-07-28 case settles while the next runs,
  // so a long settle started early overlaps the session's other cases instead of trailing them.
  const first = plan.prerequisite ?? (() => false);
  for (const u of units)
    u.items.sort(
      (a, b) =>
        Number(first(b.item)) - Number(first(a.item)) || cost(b.item) - cost(a.item) || a.index - b.index,
    );
  const longest = (u: Unit) => Math.max(...u.items.map((e) => cost(e.item)));
  const keyed = units.map((u) => ({ u, longest: longest(u) }));
  keyed.sort((a, b) => b.longest - a.longest || b.u.items.length - a.u.items.length);
  return keyed.map((k) => k.u);
}

/**
 * Hands units to lanes. An era's prerequisite cases (its round trip) are always ready and go first; its other cases are
 * ready once every prerequisite of the era has ended (the skip hook then knows whether it failed). A lane takes the
 * ready unit whose next case is expected to wait longest (its own unit on a tie: its session is warm; sessions stay
 * open, so a unit left is resumed later on the same session), else waits for a case to end. Should nothing be ready and nothing running (a plan that puts a prerequisite after its era's
 * other cases), the first unit with work left runs, as in a sequential run.
 */
class Scheduler {
  private readonly prerequisitesLeft = new Map<Era, number>();
  /** Cases (row/id) seen holding their session in some era: likely to wait in the others too. */
  private readonly holding = new Set<string>();
  /** Each case's expected cost, computed once (the hand-out compares them on every take). */
  private readonly costs = new Map<WorkItem, number>();
  private readonly longestCost: number;
  private wake: () => void = () => undefined;
  private changed: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly units: Unit[],
    work: WorkItem[],
    private readonly isPrerequisite: (item: WorkItem) => boolean,
    /** Expected cost of a case: a lane leaves its unit for one whose next case waits longer (sessions stay open). */
    private readonly cost: (item: WorkItem) => number = () => 0,
  ) {
    for (const w of work)
      if (isPrerequisite(w)) this.prerequisitesLeft.set(w.era, (this.prerequisitesLeft.get(w.era) ?? 0) + 1);
    for (const w of work) this.costs.set(w, cost(w));
    this.longestCost = Math.max(0, ...this.costs.values());
    this.reset();
  }

  /** The case's expected cost as planned. */
  expected(item: WorkItem): number {
    return this.costs.get(item) ?? this.cost(item);
  }

  /** The expected cost of a case; above every other once the same case has held its session in another era. */
  private costOf(item: WorkItem): number {
    const base = this.expected(item);
    return this.holding.has(`${item.kase.row}/${item.kase.id}`) ? Math.max(base, this.longestCost + 1) : base;
  }

  /**
   * A case still runs and holds its session (LANE_HOLD_MS): the same case in the eras still to run starts first in
   * its unit, so its wait overlaps the rest of the run instead of trailing it.
   */
  noteHolding(item: WorkItem): void {
    this.holding.add(`${item.kase.row}/${item.kase.id}`);
  }

  /** Moves the unit's costliest remaining case to its next place (not past a prerequisite, which stays first). */
  private promote(unit: Unit): void {
    const at = unit.next;
    if (at >= unit.items.length || this.isPrerequisite(unit.items[at]!.item)) return;
    let best = at;
    for (let k = at + 1; k < unit.items.length; k++)
      if (this.costOf(unit.items[k]!.item) > this.costOf(unit.items[best]!.item)) best = k;
    if (best !== at) unit.items.splice(at, 0, ...unit.items.splice(best, 1));
  }

  private reset(): void {
    this.changed = new Promise<void>((r) => {
      this.wake = r;
    });
  }

  private ready(unit: Unit): boolean {
    const entry = unit.items[unit.next];
    if (!entry || unit.busy) return false;
    return this.isPrerequisite(entry.item) || (this.prerequisitesLeft.get(entry.item.era) ?? 0) === 0;
  }

  /**
   * The unit a lane will want next once the lanes are free: the first, in hand-out order, whose next case is ready
   * and whose relay session has not been started (for startAhead); undefined when there is none.
   */
  upcoming(): Unit | undefined {
    if (this.stopped) return undefined;
    return this.units.find((u) => u.group?.idle && u.next < u.items.length && this.ready(u));
  }

  /**
   * The ready unit whose next case is expected to take longest (its wait then overlaps the rest of the run); on a
   * tie the lane's own unit (its session is warm), then hand-out order.
   */
  private longestReady(current: Unit | undefined, left: Unit[]): Unit | undefined {
    if (this.holding.size > 0) for (const u of left) if (!u.busy) this.promote(u);
    const next = (u: Unit) => this.costOf(u.items[u.next]!.item);
    let best = current && this.ready(current) ? current : undefined;
    for (const u of left) if (this.ready(u) && (best === undefined || next(u) > next(best))) best = u;
    return best;
  }

  /** A unit split off a running one (its remaining cases, on a relay session of their own) joins the hand-out. */
  add(added: Unit): void {
    this.units.push(added);
    this.notify();
  }

  /** No further unit is handed out (a lane crashed). */
  stop(): void {
    this.stopped = true;
    this.wake();
  }

  /** The next unit for a lane (its own first, if still ready), or undefined when nothing is left to run. */
  async take(current: Unit | undefined): Promise<Unit | undefined> {
    for (;;) {
      if (this.stopped) return undefined;
      const left = this.units.filter((u) => u.next < u.items.length);
      if (left.length === 0) return undefined;
      // Round trips first, wherever they are: an era's other cases (and their waits) start only after its own.
      const prerequisite = left.find((u) => this.ready(u) && this.isPrerequisite(u.items[u.next]!.item));
      const unit =
        prerequisite ??
        this.longestReady(current, left) ??
        (left.every((u) => !u.busy) && this.units.every((u) => u.settling === 0) ? left[0] : undefined);
      if (unit) {
        unit.busy = true;
        return unit;
      }
      await this.changed;
    }
  }

  /**
   * A lane is done with a case of `unit`: it ended, or it was handed on while it settles. Handed on with its session
   * free (`session`), the unit's next case may start now; else (`lane`) the unit stays busy until `finished`.
   */
  done(unit: Unit, item: WorkItem, handedOn?: "session" | "lane"): void {
    if (handedOn !== "lane") {
      unit.next++;
      unit.busy = false;
    }
    if (handedOn) unit.settling++;
    else this.count(item);
    this.notify();
  }

  /** A case handed on with its lane only lets its session go while it settles: the unit's next case may start. */
  sessionFreed(unit: Unit): void {
    unit.next++;
    unit.busy = false;
    this.notify();
  }

  /** A case that settled after its lane moved on has been recorded. */
  finished(unit: Unit, item: WorkItem, handedOn: "session" | "lane"): void {
    if (handedOn === "lane") {
      unit.next++;
      unit.busy = false;
    }
    unit.settling--;
    this.count(item);
    this.notify();
  }

  private count(item: WorkItem): void {
    if (this.isPrerequisite(item))
      this.prerequisitesLeft.set(item.era, (this.prerequisitesLeft.get(item.era) ?? 1) - 1);
  }

  private notify(): void {
    const wake = this.wake;
    this.reset();
    wake();
  }
}

/**
 * Runs every planned case against the target: groups them into relay sessions by era and declared capabilities and
 * runs up to `concurrency` units (a session group, or a two-session case) at the same time, each group on its own
 * relay session as in a sequential run; reopens a session when the relay dies or stops answering (at most once per
 * group), and always reaps what it started. A relay that fails to start without saying anything readable fails every
 * later session the same way: the remaining cases get that error at once instead of waiting out the start-up again.
 * Runs come back in plan order, with canaries named by plan index, whatever the order they ended in.
 */
// Long: the lanes, the starts ahead and the settling cases share one scheduler, its units and their sessions.
export async function runCases(plan: RunPlan): Promise<CaseRun[]> {
  // Every case in flight listens for an abort, and settling cases overlap: more than Node's default of ten at once.
  if (plan.signal) setMaxListeners(0, plan.signal);
  const control = new ControlServer();
  await control.start();
  const slots: Array<CaseRun | undefined> = new Array(plan.work.length);
  const units = unitsOf(plan, control);
  const scheduler = new Scheduler(units, plan.work, plan.prerequisite ?? (() => false), plan.cost);
  const shared: Shared = { gate: new StartGate(), everySession: new Map(), refused: new Map() };
  // A lane that throws (a harness bug) stops the others from starting further cases; the error is rethrown.
  const crashed = (error: unknown) => {
    scheduler.stop();
    throw error;
  };
  const settlingRuns: Promise<void>[] = [];
  const closing: Promise<void>[] = [];
  const lanes = Math.max(1, Math.min(plan.concurrency ?? 1, units.length));
  // A unit's relay session closes once its last case has ended and every case of it has settled.
  const closeIfDone = (u: Unit) => {
    if (u.next >= u.items.length && u.settling === 0 && !u.busy && u.group) closing.push(u.group.close());
  };
  const startAhead = aheadStarter(plan, scheduler, shared, lanes);
  let splits = 0;
  // The running case of `u` holds its session while it waits: the cases after it get a relay session of their own.
  const splitOff = (u: Unit) => {
    if (splits >= MAX_SPLITS || !u.group || u.next + 1 >= u.items.length || plan.signal?.aborted) return;
    splits++;
    const rest = unit(new GroupSession(plan, control));
    rest.items = u.items.splice(u.next + 1);
    scheduler.add(rest);
    startAhead();
  };
  /**
   * The case handed on its lane but holds its session: the same case starts first in the eras still to run; should it
   * let its session go before it settles, the unit goes on; else its remaining cases move to a session of their own
   * (at once when one of them is expected to take longer than waiting for the split would). Returns the split timer.
   */
  const whileHolding = (u: Unit, item: WorkItem, handedOn: Settling, hand: Hand) => {
    scheduler.noteHolding(item);
    const urgent = u.items.slice(u.next + 1).some((e) => scheduler.expected(e.item) >= SPLIT_AFTER_MS);
    const split = setTimeout(
      () => {
        if (!hand.settled && hand.how === "lane") splitOff(u);
      },
      urgent ? 0 : SPLIT_AFTER_MS - LANE_HOLD_MS,
    );
    void handedOn.sessionFreed.then(() => {
      if (hand.settled) return;
      clearTimeout(split);
      hand.how = "session";
      scheduler.sessionFreed(u);
    });
    return split;
  };
  const lane = async () => {
    for (let unit = await scheduler.take(undefined); unit; unit = await scheduler.take(unit)) {
      const u = unit;
      startAhead();
      const { item, index } = u.items[u.next]!;
      let handedOn: Settling | undefined;
      try {
        handedOn = await runItem(plan, control, shared, u, item, instantiate(plan, item, index, slots));
      } catch (error) {
        scheduler.done(u, item);
        crashed(error);
      }
      if (!handedOn) {
        scheduler.done(u, item);
        closeIfDone(u);
        continue;
      }
      const hand: Hand = { how: handedOn.sessionFree ? "session" : "lane", settled: false };
      scheduler.done(u, item, hand.how);
      const split = hand.how === "lane" ? whileHolding(u, item, handedOn, hand) : undefined;
      settlingRuns.push(
        handedOn.settling.then(() => {
          clearTimeout(split);
          hand.settled = true;
          scheduler.finished(u, item, hand.how);
          closeIfDone(u);
        }, crashed),
      );
    }
  };
  try {
    const ended = await Promise.allSettled(Array.from({ length: lanes }, lane));
    // Lanes end when nothing is left to hand out; cases handed on may still be settling (none are added now).
    ended.push(...(await Promise.allSettled(settlingRuns)), ...(await Promise.allSettled(closing)));
    const crash = ended.find((e) => e.status === "rejected");
    if (crash) throw crash.reason;
  } finally {
    await Promise.all(units.map((u) => u.group?.close()));
    await control.close();
  }
  return slots.filter((r): r is CaseRun => r !== undefined);
}

/**
 * Relay sessions start ahead of their turn (as many at a time as there are lanes), while the lanes run cases of other
 * sessions: a relay's start-up (process, module load, initialize) is mostly waiting, and the ~40 of a default run
 * would otherwise hold the lanes for seconds. The returned function starts what it may now; each start that ends
 * calls it again.
 */
function aheadStarter(plan: RunPlan, scheduler: Scheduler, shared: Shared, lanes: number): () => void {
  let starting = 0;
  const startAhead = (): void => {
    // Not before the run's first start has succeeded: until then starts go one at a time in plan order (StartGate).
    while (shared.gate.open && starting < lanes && !plan.signal?.aborted) {
      const u = scheduler.upcoming();
      const first = u?.items[u.next]?.item;
      if (!u?.group || !first || plan.skip?.(first) || shapeFailure(shared, first)) return;
      starting++;
      void u.group.startAhead(first, shared).finally(() => {
        starting--;
        startAhead();
      });
    }
  };
  return startAhead;
}

/**
 * What the lanes share: the start gate, and, per session shape (the kind of client the harness connects:
 * `clientShape`), a start failure that does not depend on the session's era or capabilities, and a refusal to serve
 * that kind of client at all. Neither touches sessions of another shape.
 */
interface Shared {
  gate: StartGate;
  everySession: Map<string, Failure>;
  refused: Map<string, Failure>;
}

/** Why a case of this shape needs no start: its kind of client was refused, or failed silently, earlier in the run. */
function shapeFailure(shared: Shared, item: WorkItem): NoSession | undefined {
  const shape = clientShape(item);
  const refused = shared.refused.get(shape);
  if (refused) return { failure: refused, refused: true };
  const every = shared.everySession.get(shape);
  return every ? { failure: every, every: true } : undefined;
}

/** A group that has no session for a case, and why. */
interface NoSession {
  failure: Failure;
  /** The relay said nothing readable. */
  silent?: boolean;
  /** An earlier session of the same shape failed that way while this one waited at the start gate. */
  every?: boolean;
  /** The relay does not serve this kind of client: the case is n/a. */
  refused?: boolean;
}

const NOT_RETRIED =
  "not retried, as in an earlier session of this run of the same shape (kind of client and upstream): ";

/**
 * The session shape of a case: the kind of client the harness connects to the relay and the kind of upstream it
 * serves (each an era family: 2026-07-28 or a legacy era; the transports and the answerer kind are the profile's, the
 * same for the whole run). A relay that cannot serve one shape (a 2026-07-28 client; a legacy client in front of a
 * 2026-07-28 upstream) may serve the others, so failures are remembered per shape.
 */
export function clientShape(item: { era: Era; downstreamEra?: Era | undefined; kase?: LoadedCase }): string {
  const downstream = item.kase?.downstreamEra ?? item.downstreamEra ?? item.era;
  const family = (era: Era) => (isModernEra(era) ? era : "legacy");
  return `${family(downstream)} client, ${family(item.era)} upstream`;
}

/** One work item: not run (interrupted, skipped, an earlier silent start failure), a two-session case, or a case through its group's session. */
async function runItem(
  plan: RunPlan,
  control: ControlServer,
  shared: Shared,
  unit: Unit,
  item: WorkItem,
  c: ReturnType<typeof instantiate>,
): Promise<Settling | undefined> {
  const { kase, era } = item;
  const { signal } = plan;
  const interrupted = () =>
    c.notDriven(
      { reason: String(signal?.reason ?? "interrupted"), frames: [] },
      "the run was interrupted before this case ran: ",
    );
  if (signal?.aborted) return void interrupted();
  // A kind of client the relay refused makes the case n/a before anything else (its era's round trip included).
  const refused = shared.refused.get(clientShape(item));
  if (refused) return void c.notApplicable(refused.reason);
  const skipped = plan.skip?.(item);
  if (skipped) return void c.notRun(skipped);
  if (kase.sessions === 2) {
    // A relay of its own: it waits for the run's first start to settle (a silent failure is then known).
    await shared.gate.settled();
    const noSession = shapeFailure(shared, item);
    if (noSession?.refused) return void c.notApplicable(noSession.failure.reason);
    if (noSession) return void c.notDriven(noSession.failure, NOT_RETRIED);
    if (signal?.aborted) return void interrupted();
    // Session isolation needs a relay of its own with two downstream sessions (see isolation.ts).
    const isolated = await runIsolationCase({
      profile: plan.profile,
      profileFile: plan.profileFile,
      era,
      capabilities: answererCapabilities(kase),
      control,
      caseKey: `${kase.row}/${kase.id}@${era}`,
      params: c.params,
      canary: c.canary,
      answer: c.answer,
      bystander: bystanderAnswer(kase.answer, c.canary),
      ...(kase.secondDelayMs !== undefined ? { secondDelayMs: kase.secondDelayMs } : {}),
      ...(plan.maxFrameBytes ? { maxFrameBytes: plan.maxFrameBytes } : {}),
    });
    if (isolated.notApplicable && !shared.refused.has(clientShape(item)))
      shared.refused.set(clientShape(item), { reason: isolated.notApplicable, frames: [] });
    return void c.record(isolated);
  }
  const noSession = shapeFailure(shared, item);
  if (noSession?.refused) return void c.notApplicable(noSession.failure.reason);
  if (noSession) return void c.notDriven(noSession.failure, NOT_RETRIED);
  return runInSession(plan, unit.group!, item, c, shared);
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
  hooks?: CaseHooks,
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
  const running = session.runCase(input, hooks);
  let first: CaseRunOutput | "timeout" | "abort";
  try {
    first = await Promise.race([running, giveUp]);
  } catch (error) {
    session.recorder.release(mark);
    throw error;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
  if (first !== "timeout" && first !== "abort") {
    session.recorder.release(mark);
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
  const frames = session.recorder.since(mark);
  session.recorder.release(mark);
  return {
    observation: { sent: input.params, asked: [], upstream: { kind: "broken", detail: why } },
    frames,
    negotiated: { upstream: null, downstream: null },
    ...(first === "abort" ? { harnessError: why } : {}),
    ...(session.relayStderr ? { relayLog: session.relayStderr.slice(-RELAY_LOG_CHARS) } : {}),
  } as CaseRunOutput;
}
