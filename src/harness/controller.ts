import type { Answer } from "../model/case.ts";
import type { CaseRun } from "../model/case-run.ts";
import type { LoadedCase } from "../model/load.ts";
import type { TargetProfile } from "../model/target.ts";
import type { Era } from "../validator/eras.ts";
import { ControlServer } from "./channels.ts";
import { canaryFor, withCanary } from "./instantiate.ts";
import { bystanderAnswer, runIsolationCase } from "./isolation.ts";
import { RelaySession, SessionStartError } from "./session.ts";

export type { CaseRun } from "../model/case-run.ts";

export interface RunPlan {
  profile: TargetProfile;
  profileFile?: string;
  /** Cases with the eras each runs in, in order; cases sharing an era and capabilities share a relay session. */
  work: Array<{ kase: LoadedCase; era: Era }>;
  seed: number;
  onCase?: (run: CaseRun) => void;
}

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
 * Runs every planned case against the target: groups them into relay sessions by era and declared
 * capabilities, reopens a session when the relay dies, and always reaps what it started.
 */
export async function runCases(plan: RunPlan): Promise<CaseRun[]> {
  const control = new ControlServer();
  await control.start();
  const runs: CaseRun[] = [];
  const groups = new Map<string, Array<{ kase: LoadedCase; era: Era }>>();
  for (const item of plan.work) {
    const key = `${item.era} ${item.kase.downstreamEra ?? item.era} ${JSON.stringify(answererCapabilities(item.kase))}`;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  let n = 0;
  try {
    for (const items of groups.values()) {
      let session: RelaySession | undefined;
      let startError: string | undefined;
      let startFrames: CaseRun["frames"] = [];
      let startLog: string | undefined;
      for (const { kase, era } of items) {
        const canary = canaryFor(kase.id, era, plan.seed, n++);
        const params = withCanary(kase.request, canary);
        const answer = withProfileDelay(withCanary(kase.answer, canary), plan.profile);
        const expect = withCanary(kase.expect, canary);
        const review = kase.review ? withCanary(kase.review, canary) : undefined;
        const startedAt = new Date().toISOString();
        const t0 = performance.now();
        const record = (
          out: Pick<CaseRun, "observation" | "frames" | "negotiated" | "relayLog" | "harnessError">,
        ) => {
          const run: CaseRun = {
            kase,
            era,
            canary,
            expect,
            capabilities: answererCapabilities(kase),
            answerTimeoutMs: plan.profile.answerTimeoutMs,
            startedAt,
            durationMs: Math.round(performance.now() - t0),
            ...out,
          };
          runs.push(run);
          plan.onCase?.(run);
        };
        if (kase.sessions === 2) {
          // Session isolation needs a relay of its own with two downstream sessions (see isolation.ts).
          const out = await runIsolationCase({
            profile: plan.profile,
            profileFile: plan.profileFile,
            era,
            capabilities: answererCapabilities(kase),
            control,
            caseKey: `${kase.row}/${kase.id}@${era}`,
            params,
            answer,
            bystander: bystanderAnswer(kase.answer, canary),
          });
          record(out);
          continue;
        }
        if (!session || session.broken) {
          await session?.close();
          session = undefined;
          try {
            session = await RelaySession.open({
              profile: plan.profile,
              profileFile: plan.profileFile,
              era,
              capabilities: answererCapabilities(kase),
              ...(kase.downstreamEra ? { downstreamEra: kase.downstreamEra } : {}),
              control,
            });
            startError = undefined;
          } catch (error) {
            startError = error instanceof Error ? error.message : String(error);
            startFrames = error instanceof SessionStartError ? error.frames : [];
            startLog = error instanceof SessionStartError ? error.relayLog : undefined;
          }
        }
        if (!session) {
          // The harness could not drive this case: an error with the real cause, never a verdict on the relay.
          record({
            observation: {
              sent: params,
              asked: [],
              upstream: { kind: "broken", detail: `the relay session could not start: ${startError}` },
            },
            frames: startFrames,
            negotiated: { upstream: null, downstream: null },
            harnessError: `the relay session could not start: ${startError}`,
            ...(startLog ? { relayLog: startLog } : {}),
          });
        } else {
          const out = await session.runCase({
            caseKey: `${kase.row}/${kase.id}@${era}`,
            params,
            answer,
            ...(review ? { review } : {}),
            ...(kase.mrtr ? { mrtr: withCanary(kase.mrtr, canary) } : {}),
          });
          record(out);
        }
      }
      await session?.close();
    }
  } finally {
    await control.close();
  }
  return runs;
}
