import { caseKey } from "../model/case-key.ts";
import type { LoadedCase } from "../model/load.ts";
import type { Era } from "../protocol/eras.ts";

/**
 * The run's scheduler: which case a lane runs next. Pure (no process, no socket, no clock): the controller calls it
 * as cases start, hand on and end, and wires what it decides to relay sessions. test/harness/scheduler.test.ts drives
 * it with plain items.
 */

/** One case × era of the plan. */
export type WorkItem = { kase: LoadedCase; era: Era };

/** What the scheduler reads of a unit's relay session: whether nothing has started it yet (for starts ahead). */
export interface UnitSession {
  readonly idle: boolean;
}

/**
 * Where a unit's current case stands. A unit runs one case at a time on its session:
 * - `idle`: no lane is on it; its next case may be handed out once ready;
 * - `running`: a lane runs its next case;
 * - `holding`: that case handed its lane on but still holds the session (it only waits now); the unit's next case
 *   waits until it lets the session go (`sessionFree`) or settles.
 * The unit is done once every case has been handed out, it is idle and none of its cases is still settling.
 */
export type UnitState = "idle" | "running" | "holding";

/**
 * A lane's unit of work: the cases of one session group (one relay session, run one after another), or one
 * two-session case (a relay of its own). Items keep their index in the plan: it names their canary and their place
 * in the returned runs, so a concurrent run gives the same content as a sequential one.
 */
export interface Unit<S extends UnitSession = UnitSession> {
  items: Array<{ item: WorkItem; index: number }>;
  /** Index of the next item to run (the current one while running or holding). */
  next: number;
  state: UnitState;
  /** Cases of the unit handed on (lane or session) and not yet settled. */
  settling: number;
  group?: S;
  /** A chain of cases that wait on purpose, apart from their group (`UnitPlan.apart`): its waits are meant to run in turn. */
  apart?: true;
}

export const newUnit = <S extends UnitSession>(group?: S): Unit<S> => ({
  items: [],
  next: 0,
  state: "idle",
  settling: 0,
  ...(group ? { group } : {}),
});

/** How the plan is cut into units. */
export interface UnitPlan<S extends UnitSession> {
  work: WorkItem[];
  /** The session group of a case (cases of one group share a relay session). */
  groupOf: (item: WorkItem) => string;
  /**
   * Cases that run on a relay session apart from their group's: those of one group with the same key share one (the
   * chains of waiting cases, src/run/shard.ts waitChains).
   */
  apart?: (item: WorkItem) => string | undefined;
  /** Cases that need a relay of their own with two downstream sessions: a unit without a group session. */
  isolated?: (item: WorkItem) => boolean;
  /** The era's prerequisite cases (its round trip): first in their unit. */
  prerequisite?: (item: WorkItem) => boolean;
  /** Expected ms of a case: orders units and the cases within one. */
  cost?: (item: WorkItem) => number;
  /** A unit's relay session. */
  session: () => S;
}

/** The relay session a case runs on: its group's, or one apart from it (`UnitPlan.apart`). */
export const sessionKey = (group: string, apart: string | undefined): string =>
  apart === undefined ? group : `${group} apart: ${apart}`;

/**
 * Session groups (each split by `apart`) and two-session cases. With costs: within a unit its prerequisite
 * first, then the longest waits (a 2026-07-28 case settles while the next runs, so a long settle started early
 * overlaps the session's other cases); the units whose longest case is expected to take longest come first (ties:
 * by size, then plan order), so the run's longest waits start early.
 */
export function unitsOf<S extends UnitSession>(plan: UnitPlan<S>): Array<Unit<S>> {
  const units: Array<Unit<S>> = [];
  const byGroup = new Map<string, Unit<S>>();
  plan.work.forEach((item, index) => {
    if (plan.isolated?.(item)) {
      const own = newUnit<S>();
      own.items.push({ item, index });
      units.push(own);
      return;
    }
    const apart = plan.apart?.(item);
    const key = sessionKey(plan.groupOf(item), apart);
    let shared = byGroup.get(key);
    if (!shared) {
      shared = newUnit(plan.session());
      if (apart !== undefined) shared.apart = true;
      byGroup.set(key, shared);
      units.push(shared);
    }
    shared.items.push({ item, index });
  });
  const cost = plan.cost;
  if (!cost) return units;
  const first = plan.prerequisite ?? (() => false);
  for (const u of units)
    u.items.sort(
      (a, b) =>
        Number(first(b.item)) - Number(first(a.item)) || cost(b.item) - cost(a.item) || a.index - b.index,
    );
  const longest = (u: Unit<S>) => Math.max(...u.items.map((e) => cost(e.item)));
  const keyed = units.map((u) => ({ u, longest: longest(u) }));
  keyed.sort((a, b) => b.longest - a.longest || b.u.items.length - a.u.items.length);
  return keyed.map((k) => k.u);
}

/**
 * Hands units to lanes. An era's prerequisite cases (its round trip) are always ready and go first; its other cases
 * are ready once every prerequisite of the era has ended (the skip hook then knows whether it failed). A lane takes
 * the ready unit whose next case is expected to wait longest (its own unit on a tie: its session is warm; sessions
 * stay open, so a unit left is resumed later on the same session), else waits for a case to end. Should nothing be
 * ready and nothing running (a plan that puts a prerequisite after its era's other cases), the first unit with work
 * left runs, as in a sequential run.
 *
 * The order is learned as the run goes: a case seen holding its session in one era (`noteHolding`) is expected to
 * wait in the others too, and starts first in its unit there.
 */
export class Scheduler<S extends UnitSession = UnitSession> {
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
    private readonly units: Array<Unit<S>>,
    work: WorkItem[],
    private readonly isPrerequisite: (item: WorkItem) => boolean = () => false,
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

  /** Moves the unit's costliest remaining case to its next place (not past a prerequisite, which stays first). */
  private promote(unit: Unit<S>): void {
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

  private ready(unit: Unit<S>): boolean {
    const entry = unit.items[unit.next];
    if (!entry || unit.state !== "idle") return false;
    return this.isPrerequisite(entry.item) || (this.prerequisitesLeft.get(entry.item.era) ?? 0) === 0;
  }

  /**
   * The unit a lane will want next once the lanes are free: the first, in hand-out order, whose next case is ready
   * and whose relay session has not been started (for a start ahead of its turn); undefined when there is none.
   */
  upcoming(): Unit<S> | undefined {
    if (this.stopped) return undefined;
    return this.units.find((u) => u.group?.idle && u.next < u.items.length && this.ready(u));
  }

  /**
   * The ready unit whose next case is expected to take longest (its wait then overlaps the rest of the run); on a
   * tie the lane's own unit (its session is warm), then hand-out order.
   */
  private longestReady(current: Unit<S> | undefined, left: Array<Unit<S>>): Unit<S> | undefined {
    if (this.holding.size > 0) for (const u of left) if (u.state === "idle") this.promote(u);
    const next = (u: Unit<S>) => this.costOf(u.items[u.next]!.item);
    let best = current && this.ready(current) ? current : undefined;
    for (const u of left) if (this.ready(u) && (best === undefined || next(u) > next(best))) best = u;
    return best;
  }

  /** The next ready unit, or undefined when none is ready now (see take). */
  private pick(current: Unit<S> | undefined): Unit<S> | undefined {
    const left = this.units.filter((u) => u.next < u.items.length);
    // Round trips first, wherever they are: an era's other cases (and their waits) start only after its own.
    const prerequisite = left.find((u) => this.ready(u) && this.isPrerequisite(u.items[u.next]!.item));
    return (
      prerequisite ??
      this.longestReady(current, left) ??
      (left.every((u) => u.state === "idle") && this.units.every((u) => u.settling === 0)
        ? left[0]
        : undefined)
    );
  }

  /** Nothing left to hand out: every unit's cases have been handed out (some may still run or settle). */
  get exhausted(): boolean {
    return this.stopped || this.units.every((u) => u.next >= u.items.length);
  }

  /**
   * The next unit for a lane (its own first, if still ready), now `running` its next case, or undefined when nothing
   * is left to run. Waits while work is left but none is ready.
   */
  async take(current: Unit<S> | undefined): Promise<Unit<S> | undefined> {
    for (;;) {
      if (this.exhausted) return undefined;
      const unit = this.pick(current);
      if (unit) {
        unit.state = "running";
        return unit;
      }
      await this.changed;
    }
  }

  /** The case of a unit now running or holding its session. */
  private current(unit: Unit<S>, item: WorkItem, from: UnitState[]): boolean {
    return from.includes(unit.state) && unit.items[unit.next]?.item === item;
  }

  /** The running case ended in its lane: the unit's next case may start. */
  ended(unit: Unit<S>, item: WorkItem): void {
    if (!this.current(unit, item, ["running"])) throw new Error(this.illegal("ended", unit, item));
    this.advance(unit);
    this.count(item);
    this.notify();
  }

  /**
   * The running case only waits now and hands its lane on (`lane`: it still holds its session, the unit's next case
   * waits; `session`: its session takes the next case already, 2026-07-28). It stays to settle.
   */
  handedOn(unit: Unit<S>, item: WorkItem, how: "lane" | "session"): void {
    if (!this.current(unit, item, ["running"])) throw new Error(this.illegal("handedOn", unit, item));
    unit.settling++;
    if (how === "session") this.advance(unit);
    else unit.state = "holding";
    this.notify();
  }

  /**
   * A case handed on with its lane lets its session go while it settles: the unit's next case may start. Returns
   * false (and changes nothing) when the case no longer holds its session (it settled first).
   */
  sessionFree(unit: Unit<S>, item: WorkItem): boolean {
    if (!this.current(unit, item, ["holding"])) return false;
    this.advance(unit);
    this.notify();
    return true;
  }

  /** Whether this case of the unit was handed on with its lane and still holds the unit's session. */
  holds(unit: Unit<S>, item: WorkItem): boolean {
    return this.current(unit, item, ["holding"]);
  }

  /** A handed-on case has settled and been recorded; if it still held its session, the unit goes on. */
  settled(unit: Unit<S>, item: WorkItem): void {
    if (unit.settling <= 0) throw new Error(this.illegal("settled", unit, item));
    if (this.current(unit, item, ["holding"])) this.advance(unit);
    unit.settling--;
    this.count(item);
    this.notify();
  }

  /** Every case of the unit has been handed out and has ended: its relay session may close. */
  isDone(unit: Unit<S>): boolean {
    return unit.next >= unit.items.length && unit.settling === 0 && unit.state === "idle";
  }

  /**
   * The unit's holding case keeps its session: the cases after it move to a new unit on `session` (a relay session of
   * their own), which joins the hand-out. Returns that unit, or undefined when no case is left to move, or when the
   * cases left are expected to take less than `worthMs` (a relay start for them would cost more than their wait).
   */
  split(unit: Unit<S>, session: S, worthMs = 0): Unit<S> | undefined {
    // A chain apart was cut to sit its waits out in turn: splitting it would start the relay it was made to save.
    if (unit.apart || unit.next + 1 >= unit.items.length) return undefined;
    const left = unit.items.slice(unit.next + 1).reduce((ms, e) => ms + this.expected(e.item), 0);
    if (left < worthMs) return undefined;
    const rest = newUnit(session);
    rest.items = unit.items.splice(unit.next + 1);
    this.units.push(rest);
    this.notify();
    return rest;
  }

  /**
   * A case still runs and holds its session (LANE_HOLD_MS): the same case in the eras still to run starts first in
   * its unit, so its wait overlaps the rest of the run instead of trailing it.
   */
  noteHolding(item: WorkItem): void {
    this.holding.add(`${item.kase.row}/${item.kase.id}`);
  }

  /** No further unit is handed out (a lane crashed). */
  stop(): void {
    this.stopped = true;
    this.wake();
  }

  private advance(unit: Unit<S>): void {
    unit.next++;
    unit.state = "idle";
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

  private illegal(event: string, unit: Unit<S>, item: WorkItem): string {
    return `scheduler: ${event} for ${caseKey(item.kase, item.era)}, but its unit is ${unit.state} at case ${unit.next}`;
  }
}
