import { availableParallelism } from "node:os";
import type { CaseRun } from "../model/case-run.ts";
import type { LoadedCase } from "../model/load.ts";
import type { TargetProfile } from "../model/target.ts";
import type { Era } from "../protocol/eras.ts";
import type { BusySince } from "./core-load.ts";

/** What runCases (controller.ts) is given: the target, the cases in their eras, and the hooks of the run. */
export interface HarnessPlan {
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
  /**
   * Cases that run on a relay session apart from their group's: those of a group with the same key share one (long
   * deliberate waits: src/run/shard.ts waitChains).
   */
  apart?: (item: { kase: LoadedCase; era: Era }) => string | undefined;
  /**
   * How busy the machine's cores have been since a case began to hold its session (src/harness/core-load.ts): a split
   * is made only while a core was to spare. Without it, every hold past SPLIT_AFTER_MS splits (tests that assert one).
   */
  busySince?: BusySince;
  /** The most bytes of one frame the evidence keeps (default DEFAULT_MAX_FRAME_BYTES, src/harness/frames.ts). */
  maxFrameBytes?: number;
}

/** A run's lanes: `--concurrency` when given, else the machine's parallelism, at least 2. */
export function defaultConcurrency(): number {
  return Math.max(2, availableParallelism());
}

/** Why the isolation rule does not apply to this target (a relay that has one client session), or undefined. */
export function multiSessionNotApplicable(profile: TargetProfile): string | undefined {
  return profile.downstream.transport === "stdio"
    ? 'n/a on a stdio downstream: "the client launches the MCP server as a subprocess" (basic/transports#stdio), so one relay process serves one client session and there is no other session an answer could reach'
    : undefined;
}
