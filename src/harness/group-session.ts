import type { LoadedCase } from "../model/load.ts";
import type { TargetProfile } from "../model/target.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";
import { MAX_STARTS_PER_GROUP } from "./budget.ts";
import { answererCapabilities, type Failure } from "./case-instance.ts";
import type { ControlServer } from "./channels.ts";
import type { HarnessPlan } from "./harness-plan.ts";
import type { Scheduler, WorkItem } from "./scheduler.ts";
import { RelaySession, SessionStartError } from "./session.ts";

/**
 * Relay sessions of a run: one per session group, started once and reopened at most once, a gate that starts them one
 * at a time until the run has proven it can start one, and what failed per session shape.
 */

/**
 * The relay session of one group (era, downstream era, capabilities): started at most MAX_STARTS_PER_GROUP times,
 * never again once a start failed; remembers why, so the group's later cases get that reason at once.
 */
export class GroupSession {
  private session: RelaySession | undefined;
  /** A start made ahead of the group's turn, not yet taken by a case. */
  private ahead: Promise<RelaySession | NoSession> | undefined;
  private starts = 0;
  private failure: Failure | undefined;
  /** Why the last session was given up (the reason a reopen is needed). */
  private lastBreak: string | undefined;

  constructor(
    private readonly plan: HarnessPlan,
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
      () =>
        this.start(
          era,
          capabilities,
          kase.downstreamEra,
          shared,
          kase.holdInitialized === true,
          kase.answererListens === false,
        ),
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
    noStandaloneStream: boolean,
  ): Promise<RelaySession | NoSession> {
    const shape = clientShape({ era, downstreamEra, holdInitialized });
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
        ...(noStandaloneStream ? { noStandaloneStream } : {}),
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

  /**
   * A relay session of this group's shape that is not the group's: a case the harness was late for runs again on it
   * (its caller closes it). `profile` may give the harness more patience (its start-up and case bounds scaled).
   */
  openFresh({ kase, era }: WorkItem, profile: TargetProfile): Promise<RelaySession> {
    return RelaySession.open({
      profile,
      profileFile: this.plan.profileFile,
      era,
      capabilities: answererCapabilities(kase),
      ...(kase.downstreamEra ? { downstreamEra: kase.downstreamEra } : {}),
      ...(kase.holdInitialized ? { holdInitialized: true } : {}),
      ...(kase.answererListens === false ? { noStandaloneStream: true } : {}),
      ...(this.plan.maxFrameBytes ? { maxFrameBytes: this.plan.maxFrameBytes } : {}),
      control: this.control,
    });
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
 * Where a relay start may begin. Until one session of the run has started, starts go one at a time in plan order:
 * a relay that fails silently then fails the first session only, and every later case gets that reason at once
 * (`everySession`), exactly as in a sequential run. Once one start succeeded, starts run freely.
 */
export class StartGate {
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
 * What the lanes share: the start gate, and, per session shape (the kind of client the harness connects:
 * `clientShape`), a start failure that does not depend on the session's era or capabilities, and a refusal to serve
 * that kind of client at all. Neither touches sessions of another shape.
 */
export interface Shared {
  gate: StartGate;
  everySession: Map<string, Failure>;
  refused: Map<string, Failure>;
  /** The re-runs of cases the harness was late for go one at a time (each adds no load to the next). */
  reruns?: Promise<unknown>;
}

/** Why a case of this shape needs no start: its kind of client was refused, or failed silently, earlier in the run. */
export function shapeFailure(shared: Shared, item: WorkItem): NoSession | undefined {
  const shape = clientShape(item);
  const refused = shared.refused.get(shape);
  if (refused) return { failure: refused, refused: true };
  const every = shared.everySession.get(shape);
  return every ? { failure: every, every: true } : undefined;
}

/** A group that has no session for a case, and why. */
export interface NoSession {
  failure: Failure;
  /** The relay said nothing readable. */
  silent?: boolean;
  /** An earlier session of the same shape failed that way while this one waited at the start gate. */
  every?: boolean;
  /** The relay does not serve this kind of client: the case is n/a. */
  refused?: boolean;
}

export const NOT_RETRIED =
  "not retried, as in an earlier session of this run of the same shape (kind of client and upstream): ";

/**
 * The session shape of a case: the kind of client the harness connects to the relay and the kind of upstream it
 * serves (each an era family: 2026-07-28 or a legacy era; the transports and the answerer kind are the profile's, the
 * same for the whole run). A relay that cannot serve one shape (a 2026-07-28 client; a legacy client in front of a
 * 2026-07-28 upstream) may serve the others, so failures are remembered per shape.
 */
export function clientShape(item: {
  era: Era;
  downstreamEra?: Era | undefined;
  kase?: LoadedCase;
  holdInitialized?: boolean;
}): string {
  const downstream = item.kase?.downstreamEra ?? item.downstreamEra ?? item.era;
  const family = (era: Era) => (isModernEra(era) ? era : "legacy");
  // A client that holds back notifications/initialized is a shape of its own: a relay that answers nothing before
  // it (InitializedRequired) refuses only the cases that hold it back.
  const held = (item.kase?.holdInitialized ?? item.holdInitialized) ? ", initialized held back" : "";
  return `${family(downstream)} client${held}, ${family(item.era)} upstream`;
}

/**
 * Relay sessions start ahead of their turn (as many at a time as there are lanes), while the lanes run cases of other
 * sessions: a relay's start-up (process, module load, initialize) is mostly waiting, and the ~40 of a default run
 * would otherwise hold the lanes for seconds. The returned function starts what it may now; each start that ends
 * calls it again.
 */
export function aheadStarter(
  plan: HarnessPlan,
  scheduler: Scheduler<GroupSession>,
  shared: Shared,
  lanes: number,
): () => void {
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
