import { setMaxListeners } from "node:events";
import { caseKey } from "../model/case-key.ts";
import type { CaseRun } from "../model/case-run.ts";
import { MAX_SPLITS } from "./budget.ts";
import { answererCapabilities, type CaseInstance, instantiate, sessionGroup } from "./case-instance.ts";
import { ControlServer } from "./channels.ts";
import { NO_SPARE_CORE_SHARE } from "./core-load.ts";
import { holdCoreWait } from "./core-wait.ts";
import { debug } from "./debug.ts";
import {
  aheadStarter,
  clientShape,
  GroupSession,
  NOT_RETRIED,
  type Shared,
  StartGate,
  shapeFailure,
} from "./group-session.ts";
import type { HarnessPlan } from "./harness-plan.ts";
import { bystanderAnswer, runIsolationCase } from "./isolation.ts";
import { Scheduler, type Unit, unitsOf, type WorkItem } from "./scheduler.ts";
import { runInSession, type Settling } from "./session-driver.ts";
import { LANE_HOLD_MS, SPLIT_AFTER_MS } from "./waits.ts";

export type { CaseRun } from "../model/case-run.ts";

/**
 * The controller wires the run together: the scheduler (scheduler.ts) decides which case a lane runs next, the
 * group sessions (group-session.ts) hold the relay sessions, and the drivers run one case: session-driver.ts through
 * a group's session, isolation.ts on a relay of its own with two downstream sessions.
 */

/**
 * Runs every planned case against the target: groups them into relay sessions by era and declared capabilities and
 * runs up to `concurrency` units (a session group, or a two-session case) at the same time, each group on its own
 * relay session as in a sequential run; reopens a session when the relay dies or stops answering (at most once per
 * group), and always reaps what it started. A relay that fails to start without saying anything readable fails every
 * later session the same way: the remaining cases get that error at once instead of waiting out the start-up again.
 * Runs come back in plan order, with canaries named by plan index, whatever the order they ended in.
 */
export async function runCases(plan: HarnessPlan): Promise<CaseRun[]> {
  // Every case in flight listens for an abort, and settling cases overlap: more than Node's default of ten at once.
  if (plan.signal) setMaxListeners(0, plan.signal);
  const control = new ControlServer();
  await control.start();
  // The harness samples its own wait for a core for the whole run: a case it was late for is not judged (lateness.ts).
  const coreWait = holdCoreWait();
  const lanes = new Lanes(plan, control);
  try {
    await lanes.run();
  } finally {
    await lanes.close();
    await control.close();
    coreWait.release();
  }
  return lanes.runs();
}

/** The lanes of one run: each takes a unit from the scheduler, runs its next case, and reports how that case ended. */
class Lanes {
  private readonly slots: Array<CaseRun | undefined>;
  private readonly units: Array<Unit<GroupSession>>;
  private readonly scheduler: Scheduler<GroupSession>;
  private readonly shared: Shared = { gate: new StartGate(), everySession: new Map(), refused: new Map() };
  private readonly settling: Promise<void>[] = [];
  private readonly closing: Promise<void>[] = [];
  private readonly lanes: number;
  private readonly startAhead: () => void;
  private splits = 0;

  constructor(
    private readonly plan: HarnessPlan,
    private readonly control: ControlServer,
  ) {
    this.slots = new Array(plan.work.length);
    this.units = unitsOf<GroupSession>({
      work: plan.work,
      groupOf: sessionGroup,
      isolated: (item) => item.kase.sessions === 2,
      session: () => new GroupSession(plan, control),
      ...(plan.apart ? { apart: plan.apart } : {}),
      ...(plan.prerequisite ? { prerequisite: plan.prerequisite } : {}),
      ...(plan.cost ? { cost: plan.cost } : {}),
    });
    this.scheduler = new Scheduler(this.units, plan.work, plan.prerequisite, plan.cost);
    this.lanes = Math.max(1, Math.min(plan.concurrency ?? 1, this.units.length));
    this.startAhead = aheadStarter(plan, this.scheduler, this.shared, this.lanes);
  }

  /** Until nothing is left to hand out and every case handed on has settled; rethrows a lane's crash (a harness bug). */
  async run(): Promise<void> {
    const ended = await Promise.allSettled(Array.from({ length: this.lanes }, () => this.lane()));
    // Lanes end when nothing is left to hand out; cases handed on may still be settling (none are added now).
    ended.push(...(await Promise.allSettled(this.settling)), ...(await Promise.allSettled(this.closing)));
    const crash = ended.find((e) => e.status === "rejected");
    if (crash) throw crash.reason;
  }

  async close(): Promise<void> {
    await Promise.all(this.units.map((u) => u.group?.close()));
  }

  /** The runs in plan order. */
  runs(): CaseRun[] {
    return this.slots.filter((r): r is CaseRun => r !== undefined);
  }

  private async lane(): Promise<void> {
    const { scheduler } = this;
    for (let unit = await scheduler.take(undefined); unit; unit = await scheduler.take(unit)) {
      const u = unit;
      this.startAhead();
      const { item, index } = u.items[u.next]!;
      let handedOn: Settling | undefined;
      try {
        const c = instantiate(this.plan, item, index, this.slots);
        handedOn = await runItem(this.plan, this.control, this.shared, u, item, c);
      } catch (error) {
        scheduler.ended(u, item);
        this.crashed(error);
      }
      if (handedOn) this.handOn(u, item, handedOn);
      else {
        scheduler.ended(u, item);
        this.closeIfDone(u);
      }
    }
  }

  /** The case only waits now: its lane goes on; it is recorded (and its unit told) when it settles. */
  private handOn(u: Unit<GroupSession>, item: WorkItem, handedOn: Settling): void {
    this.scheduler.handedOn(u, item, handedOn.sessionFree ? "session" : "lane");
    const split = handedOn.sessionFree ? undefined : this.whileHolding(u, item, handedOn);
    this.settling.push(
      handedOn.settling.then(
        () => {
          clearTimeout(split);
          this.scheduler.settled(u, item);
          this.closeIfDone(u);
        },
        (error) => this.crashed(error),
      ),
    );
  }

  /**
   * The case handed on its lane but holds its session: the same case starts first in the eras still to run; should it
   * let its session go before it settles, the unit goes on; else its remaining cases move to a session of their own
   * (at once when one of them is expected to take longer than waiting for the split would). Returns the split timer.
   */
  private whileHolding(u: Unit<GroupSession>, item: WorkItem, handedOn: Settling): NodeJS.Timeout {
    const { scheduler } = this;
    scheduler.noteHolding(item);
    const urgent = u.items.slice(u.next + 1).some((e) => scheduler.expected(e.item) >= SPLIT_AFTER_MS);
    const busy = this.plan.busySince?.();
    const split = setTimeout(
      () => {
        if (!scheduler.holds(u, item)) return;
        // Every core busy during the hold: other lanes had work, and a relay start would only add CPU.
        if (busy && busy() >= NO_SPARE_CORE_SHARE)
          debug(`${caseKey(item.kase, item.era)} holds its session; no core to spare for a split`);
        else this.splitOff(u);
      },
      urgent ? 0 : SPLIT_AFTER_MS - LANE_HOLD_MS,
    );
    void handedOn.sessionFreed.then(() => {
      if (scheduler.sessionFree(u, item)) clearTimeout(split);
    });
    return split;
  }

  /** The running case of `u` holds its session while it waits: the cases after it get a relay session of their own. */
  private splitOff(u: Unit<GroupSession>): void {
    if (this.splits >= MAX_SPLITS || !u.group || this.plan.signal?.aborted) return;
    const holding = u.items[u.next]?.item;
    // With a cost model, the cases moved must be worth a relay start (about SPLIT_AFTER_MS).
    const worth = this.plan.cost ? SPLIT_AFTER_MS : 0;
    const rest = this.scheduler.split(u, new GroupSession(this.plan, this.control), worth);
    if (!rest) return;
    this.splits++;
    if (holding)
      debug(
        `${caseKey(holding.kase, holding.era)} holds its session: ${rest.items.length} case(s) move to another`,
      );
    this.startAhead();
  }

  /** A unit's relay session closes once its last case has ended and every case of it has settled. */
  private closeIfDone(u: Unit<GroupSession>): void {
    if (this.scheduler.isDone(u) && u.group) this.closing.push(u.group.close());
  }

  /** A lane that throws (a harness bug) stops the others from starting further cases; the error is rethrown. */
  private crashed(error: unknown): never {
    this.scheduler.stop();
    throw error;
  }
}

/** One work item: not run (interrupted, skipped, an earlier silent start failure), a two-session case, or a case through its group's session. */
async function runItem(
  plan: HarnessPlan,
  control: ControlServer,
  shared: Shared,
  unit: Unit<GroupSession>,
  item: WorkItem,
  c: CaseInstance,
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
      caseKey: caseKey(kase, era),
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
