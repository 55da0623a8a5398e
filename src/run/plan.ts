import { multiSessionNotApplicable } from "../harness/harness-plan.ts";
import type { WorkItem } from "../harness/scheduler.ts";
import { caseSide, type JudgedCase } from "../judge/cells.ts";
import { brokerWithoutModel } from "../model/broker.ts";
import { ROUNDTRIP_ROW } from "../model/case-key.ts";
import type { LoadedCase } from "../model/load.ts";
import type { Register } from "../model/register.ts";
import type { TargetProfile } from "../model/target.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";

/** Review cases against a target whose answerer is a plain client: the review itself is the downstream's. */
export const REVIEW_DELEGATED =
  "delegated to the downstream client; no review surface exercised (the case needs a person at the relay's review surface: a target with answerer.kind: review)";

export type { WorkItem };

export interface RunPlan {
  /** What the harness runs, round-trip cases first in every era (every other verdict of the era depends on them). */
  work: WorkItem[];
  /** Cases this target cannot run, already recorded: a cell that had them is partial or not-run, never pass. */
  unrun: JudgedCase[];
}

/**
 * Why a case cannot exist over this target's transports, if it cannot: 2026-07-28 has no legacy SSE transport (its
 * server-to-client requests travel inside results, and the HTTP+SSE pair was retired before it), so an end of that
 * era over legacy SSE is a session shape this relay cannot have. The case is n/a with this reason (the harness
 * speaks 2026-07-28 over stdio and Streamable HTTP at both ends). `downstreamEra`: the era the downstream end speaks
 * when a case bridges eras (by default the upstream's).
 */
export function harnessCannotDrive(
  profile: TargetProfile,
  era: Era,
  downstreamEra: Era = era,
): string | undefined {
  const sse = [
    isModernEra(era) && profile.upstream.transport === "sse" ? "upstream sse" : "",
    isModernEra(downstreamEra) && profile.downstream.transport === "sse" ? "downstream sse" : "",
  ].filter(Boolean);
  return sse.length
    ? `2026-07-28 has no legacy SSE transport, and this target uses ${sse.join(" and ")} for that era's end: no client or server of that era can reach it there`
    : undefined;
}

/**
 * Review cases that pass a question on to a model, against a broker with nobody behind it to pass it to: the part of
 * the review rows such a relay cannot have (their cells are partial, never pass, with this reason).
 */
export const BROKER_NO_MODEL =
  "the broker has no model behind it (no approve call: the agent answering at the broker is the model), so a review that approves a request on to a model or reviews a model's response before delivery cannot be driven; the questions it puts are judged by the cases that ran";

/**
 * Why a case about the downstream MCP client does not apply to a relay that never asks it (a broker with no model
 * behind it), if it does not: its era, its initialized notification, an error of its own as the answer, the fields
 * a relay must not pass on to it. (What it declared is judged against the relay's own declaration at run time:
 * src/judge/broker-premise.ts.)
 */
function downstreamNeverAsked(kase: LoadedCase, era: Era | undefined): string | undefined {
  const never =
    "the relay answers sampling at its broker, which has no model behind it, and never asks its downstream client";
  if (era && kase.downstreamEra && kase.downstreamEra !== era)
    return `n/a: ${never} (a ${kase.downstreamEra} client here), so there is no second era to bridge: the broker is asked in the upstream's era (${era})`;
  if (kase.holdInitialized || kase.expect.some((e) => e.afterInitialized))
    return `n/a: ${never}, so no sampling request can reach it before its initialized notification`;
  if (kase.answer.action === "error")
    return `n/a: ${never}, so no answerer gives a JSON-RPC error of its own to relay (the broker can only accept or decline)`;
  if (kase.expect.some((e) => e.outcome === "delivered" && e.dropped))
    return `n/a: ${never}, so what a relay must not pass on to a client that did not declare the capability for it does not arise (the broker's question is judged by the review rows)`;
  return undefined;
}

/** Why a case does not apply to this target at all (its cell is n/a), if it does not. */
export function notApplicableHere(kase: LoadedCase, profile: TargetProfile, era?: Era): string | undefined {
  if (kase.sessions) {
    const single = multiSessionNotApplicable(profile);
    if (single) return single;
  }
  if (kase.stream && profile.upstream.transport !== "streamable-http")
    return `n/a on a ${profile.upstream.transport} upstream: only Streamable HTTP has a standalone GET stream beside each request's own response stream, so a request is related or unrelated to a call only there`;
  if (kase.answererListens !== undefined && profile.downstream.transport !== "streamable-http")
    return `n/a on a ${profile.downstream.transport} downstream: only a Streamable HTTP client chooses whether to open a standalone GET stream, the one way a request tied to none of its own can reach it`;
  // 2026-07-28: what a client without sampling may be sent is the rule; a relay with a person (or broker) at its
  // review surface answers sampling itself, so the downstream's declaration does not bound what it can answer.
  if (
    era &&
    isModernEra(era) &&
    profile.answerer.kind !== "client" &&
    kase.capabilities &&
    !kase.capabilities.sampling
  )
    return `n/a for a target that answers through its own ${profile.answerer.kind} surface: the downstream's missing sampling capability does not bound what the relay can answer (judged by sampling-relay-roundtrip instead)`;
  // Legacy eras likewise for what the relay may send or declare for a client that declared no sampling; a case with a
  // `review` is about that surface answering, so it still applies.
  if (
    era &&
    !isModernEra(era) &&
    profile.answerer.kind !== "client" &&
    !kase.review &&
    kase.capabilities &&
    !kase.capabilities.sampling
  )
    return `n/a for a target that answers through its own ${profile.answerer.kind} surface: with a person (or broker) there, the relay supports sampling whatever its downstream declared`;
  if (brokerWithoutModel(profile.answerer)) return downstreamNeverAsked(kase, era);
  return undefined;
}

/** Why this target cannot run a case at all, if it cannot. */
function cannotRunHere(kase: LoadedCase, profile: TargetProfile): string | undefined {
  const { answerer } = profile;
  if (kase.review && answerer.kind === "client") return REVIEW_DELEGATED;
  if (kase.review && answerer.kind === "broker" && !answerer.approve) {
    const { request, response } = kase.review;
    if (request?.action === "approve" || response) return BROKER_NO_MODEL;
  }
  return undefined;
}

/**
 * Plans a run: every case of the selected rows in every selected era it applies to (plus the round trip, which
 * every era needs), in the order the judge needs, and what this target cannot run with the reason why.
 */
export function planRun(input: {
  register: Register;
  cases: LoadedCase[];
  profile: TargetProfile;
  eras: Era[];
  selectedRows?: Set<string> | undefined;
  /** --case: only these cases run; the other cases of their rows are `skip` (their cells cannot pass on a part). */
  selectedCases?: ((kase: LoadedCase) => boolean) | undefined;
}): RunPlan {
  const rows = new Map(input.register.rows.map((r) => [r.id, r]));
  const work: WorkItem[] = [];
  const unrun: JudgedCase[] = [];
  const ordered = [...input.cases].sort(
    (a, b) => Number(b.row === ROUNDTRIP_ROW) - Number(a.row === ROUNDTRIP_ROW),
  );
  for (const era of input.eras) {
    for (const kase of ordered) {
      const undrivable = harnessCannotDrive(input.profile, era, kase.downstreamEra);
      const row = rows.get(kase.row)!;
      if (!(kase.eras ?? row.eras).includes(era)) continue;
      if (input.selectedRows && !input.selectedRows.has(kase.row) && kase.row !== ROUNDTRIP_ROW) continue;
      const na = notApplicableHere(kase, input.profile, era);
      const skipped =
        na ??
        (input.selectedCases && kase.row !== ROUNDTRIP_ROW && !input.selectedCases(kase)
          ? "not selected (run --case)"
          : cannotRunHere(kase, input.profile));
      if (undrivable || skipped) {
        const result = {
          id: kase.id,
          status: "skip",
          reason: undrivable ?? skipped!,
          ...(na || undrivable ? { na: true } : {}),
        } as const;
        unrun.push({ row: kase.row, era, side: caseSide(row, kase.side), result });
        continue;
      }
      work.push({ kase, era });
    }
  }
  return { work, unrun };
}
