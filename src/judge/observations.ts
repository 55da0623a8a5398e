import type { Frame } from "../model/evidence.ts";
import type { CaseObservation, ObservationId } from "../model/observations.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";
import { isObject } from "../protocol/wire.ts";

/**
 * Observations of one 2026-07-28 exchange (src/model/observations.ts), from both ends' frames (pure): the requestState
 * the upstream put in its input_required results against the one the relay's client was shown. What the text demands
 * of the state, its echo to the upstream, is judged by sampling-mrtr-request-state-echoed, not here.
 */

const clip = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The input_required results one end received (upstream end: the upstream's own; downstream: what the relay gave). */
function inputRequired(frames: Frame[], end: "upstream" | "downstream"): Array<Record<string, unknown>> {
  return frames
    .filter((f) => (end === "upstream" ? f.end === "upstream" : f.end !== "upstream"))
    .filter((f) => f.dir === (end === "upstream" ? "to-relay" : "from-relay"))
    .map((f) => (isObject(f.message) && isObject(f.message.result) ? f.message.result : undefined))
    .filter((r): r is Record<string, unknown> => r?.resultType === "input_required");
}

/**
 * A relay's own state by its shape, not its bytes: relays mint random handles (a uuid, a sealed blob), which would make
 * the report differ from one run to the next; its length and a leading tag such as "sgw:" say what it is.
 */
function shapeOf(state: unknown): string {
  if (typeof state !== "string") return `a ${state === null ? "null" : typeof state}, not a string`;
  const tag = /^[A-Za-z][A-Za-z0-9]{0,15}[:_.-]/.exec(state)?.[0];
  return `a ${[...state].length}-character string${tag ? ` beginning ${JSON.stringify(tag)}` : ""}`;
}

const observed = (id: ObservationId, seen: string): CaseObservation => ({ id, seen });

const stateOf = (r: Record<string, unknown>) =>
  Object.hasOwn(r, "requestState") ? r.requestState : undefined;

export function observationsOf(frames: Frame[] | undefined, era: Era): CaseObservation[] {
  if (!frames || !isModernEra(era)) return [];
  const given = inputRequired(frames, "upstream");
  const shown = inputRequired(frames, "downstream");
  if (given.length === 0 || shown.length === 0) return [];
  const upstreamStates = given.map(stateOf).filter((s) => s !== undefined);
  const clientStates = shown.map(stateOf).filter((s) => s !== undefined);
  const foreign = clientStates.filter((s) => !upstreamStates.some((u) => u === s));
  if (foreign.length === 0) return [];
  const example = shapeOf(foreign[0]);
  if (upstreamStates.length === 0)
    return [
      observed(
        "request-state-minted",
        `the upstream's input_required carried no requestState; the relay's client was given ${example}`,
      ),
    ];
  return [
    observed(
      "request-state-substituted",
      `the relay's client was given requestState ${example}, not the upstream's ${clip(JSON.stringify(upstreamStates[0]))}; what reached the upstream on the retry is sampling-mrtr-request-state-echoed's to judge`,
    ),
  ];
}
