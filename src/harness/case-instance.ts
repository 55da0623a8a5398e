import type { Answer } from "../model/case.ts";
import type { CaseRun } from "../model/case-run.ts";
import type { LoadedCase } from "../model/load.ts";
import type { TargetProfile } from "../model/target.ts";
import type { Era } from "../protocol/eras.ts";
import type { HarnessPlan } from "./harness-plan.ts";
import { canaryFor, withCanary } from "./instantiate.ts";
import type { WorkItem } from "./scheduler.ts";
import { sequenceFor } from "./sequence.ts";

/** A case × era made concrete for one run: its canary, its parameters and answer, and how its run is recorded. */

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
  const deaf = item.kase.answererListens === false ? " no-get-stream" : "";
  return `${item.era} ${item.kase.downstreamEra ?? item.era} ${caps}${held}${deaf}`;
}

/** Why a case could not be driven (a session that could not start, a refusal), kept for the cases after it. */
export interface Failure {
  reason: string;
  frames: CaseRun["frames"];
  relayLog?: string;
}

/** What a case's run adds to the case as planned. */
export type Outcome = Omit<
  CaseRun,
  "kase" | "era" | "canary" | "expect" | "capabilities" | "answerTimeoutMs" | "startedAt" | "durationMs"
>;

/** One case × era made concrete (canary named by its index in the plan), with the ways its run is recorded (at that index). */
export function instantiate(
  plan: HarnessPlan,
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

/** A case made concrete, with the ways its run is recorded. */
export type CaseInstance = ReturnType<typeof instantiate>;
