import type { Frame, Observation, UpstreamOutcome } from "../../model/evidence.ts";
import { isObject, METHOD } from "../../protocol/wire.ts";
import { firstDifference } from "../json-diff.ts";
import { check, family, type Outcome } from "./check.ts";
import { requestsSent } from "./sequence.ts";

/**
 * Who was asked what, and whose answer went where. Every case: the answerer saw only this case's requests, and one
 * request opened at most one question on each side. Session isolation (cases with `sessions: 2`), judged from what each end saw. Legacy eras: session B is a bystander
 * and must never be asked. 2026-07-28: B is a second asker calling the probe tool while A's call is open, each
 * session's request and answer under a canary token of its own (neither contains the other): each session must be
 * asked its own request only, and each upstream call's retry must carry only its own session's answer, under the
 * requestState the upstream issued for that call ("MUST NOT be used for any other request that the client may be
 * sending in parallel", basic/patterns/mrtr.mdx). Pure: observation and frames in, checks out.
 */

/** A session with a request of its own: the answerer (A, the case's canary) and every second asker. */
interface Asker {
  session: string;
  token: string;
  outcome: UpstreamOutcome;
}

const ASKER = "A";

const clip = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function askersOf(o: Observation, canary: string): Asker[] {
  const second = (o.bystanders ?? []).flatMap((b) =>
    b.token !== undefined && b.upstream ? [{ session: b.session, token: b.token, outcome: b.upstream }] : [],
  );
  return second.length > 0 ? [{ session: ASKER, token: canary, outcome: o.upstream }, ...second] : [];
}

/** The sessions whose token appears in a value. */
const tokensIn = (value: unknown, askers: Asker[]) => {
  const text = JSON.stringify(value) ?? "";
  return askers.filter((a) => text.includes(a.token));
};

const names = (askers: Asker[]) => askers.map((a) => `session ${a.session}`).join(" and ");

/** Who was asked what: bystanders nothing; with several askers, each its own request only. */
function onlyTheAsker(o: Observation, canary: string): Outcome[] {
  if (!o.bystanders) return [];
  const askers = askersOf(o, canary);
  if (askers.length > 0) return askerChecks(o, askers);
  const asked = o.bystanders.filter((b) => b.asked.length > 0);
  const sessions = o.bystanders.map((b) => b.session).join(", ");
  return [
    {
      ok: asked.length === 0,
      detail:
        asked.length === 0
          ? `no other downstream session (${sessions}) was asked`
          : `the sampling request also reached session ${asked.map((b) => `${b.session} (${b.asked.length}×)`).join(", ")}, whose requests did not cause it`,
    },
  ];
}

function askerChecks(o: Observation, askers: Asker[]): Outcome[] {
  const askedOf = (session: string) =>
    session === ASKER ? o.asked : (o.bystanders?.find((b) => b.session === session)?.asked ?? []);
  const wrong: string[] = [];
  for (const a of askers) {
    const others = askers.filter((b) => b !== a);
    const foreign = askedOf(a.session).flatMap((q) => tokensIn(q, others));
    if (foreign.length > 0)
      wrong.push(`session ${a.session} was asked the request of ${names([...new Set(foreign)])}`);
  }
  return [
    {
      ok: wrong.length === 0,
      detail:
        wrong.length === 0
          ? `each of ${names(askers)} was asked its own request only`
          : `${wrong.join("; ")}, whose call did not cause it`,
    },
  ];
}

/** 2026-07-28 with several askers: each upstream call got its own session's answer, under its own requestState. */
function ownCall(o: Observation, canary: string, frames: Frame[] | undefined): Outcome[] {
  const askers = askersOf(o, canary);
  if (askers.length === 0) return [];
  const wrong: string[] = [];
  // What each call's retry reached the upstream with (the upstream routed it by the call's arguments or state).
  for (const a of askers) {
    const others = askers.filter((b) => b !== a);
    const foreign = a.outcome.kind === "result" ? tokensIn(a.outcome.result, others) : [];
    if (foreign.length > 0)
      wrong.push(`the upstream call of session ${a.session} received the answer of ${names(foreign)}`);
    else if (
      a.session !== ASKER &&
      !(a.outcome.kind === "result" && tokensIn(a.outcome.result, [a]).length > 0)
    )
      wrong.push(
        `the upstream call of session ${a.session} got ${describe(a.outcome)}, not its session's answer`,
      );
  }
  wrong.push(...retryStates(frames ?? [], askers));
  return [
    {
      ok: wrong.length === 0,
      detail:
        wrong.length === 0
          ? `each upstream call's retry carried only its own session's answer (${names(askers)}), under the requestState issued for that call`
          : wrong.join("; "),
    },
  ];
}

function describe(outcome: UpstreamOutcome): string {
  switch (outcome.kind) {
    case "result":
      return "a result carrying no session's answer";
    case "error":
      return `an error (${clip(JSON.stringify(outcome.error))})`;
    case "withheld":
      return `no answer (${outcome.detail})`;
    case "timeout":
      return outcome.deadlineMs !== undefined ? `nothing within ${outcome.deadlineMs} ms` : "nothing in time";
    case "broken":
      return `a broken exchange (${outcome.detail})`;
  }
}

/**
 * From the upstream's wire: the requestState issued with each session's input_required (told apart by the token in
 * its inputRequests), and each retry's (told apart by the token in its inputResponses). A retry carrying several
 * sessions' answers, or one session's answer under another call's (or no) requestState, is a mix-up.
 */
function retryStates(frames: Frame[], askers: Asker[]): string[] {
  const upstream = frames.filter((f) => f.end === "upstream" && isObject(f.message));
  const issued = new Map<string, { has: boolean; state: unknown }>();
  for (const f of upstream) {
    const m = f.message as Record<string, unknown>;
    if (f.dir !== "to-relay" || !isObject(m.result) || m.result.resultType !== "input_required") continue;
    const owners = tokensIn(m.result.inputRequests, askers);
    if (owners.length !== 1 || issued.has(owners[0]!.session)) continue;
    issued.set(owners[0]!.session, {
      has: Object.hasOwn(m.result, "requestState"),
      state: m.result.requestState,
    });
  }
  const wrong: string[] = [];
  for (const f of upstream) {
    const m = f.message as Record<string, unknown>;
    if (f.dir !== "from-relay" || m.method !== METHOD.toolsCall || !isObject(m.params)) continue;
    const params = m.params;
    if (params.inputResponses === undefined) continue;
    const owners = tokensIn(params.inputResponses, askers);
    if (owners.length > 1) {
      wrong.push(`one retry carried the answers of ${names(owners)} together`);
      continue;
    }
    const owner = owners[0];
    const mine = owner && issued.get(owner.session);
    if (!owner || !mine) continue;
    const echoed = Object.hasOwn(params, "requestState");
    const ok = mine.has ? echoed && firstDifference(mine.state, params.requestState) === null : !echoed;
    if (ok) continue;
    const whose = [...issued.entries()].find(
      ([session, s]) =>
        session !== owner.session &&
        s.has &&
        echoed &&
        firstDifference(s.state, params.requestState) === null,
    );
    wrong.push(
      whose
        ? `session ${owner.session}'s answer went upstream under the requestState of session ${whose[0]}'s call`
        : !echoed
          ? `session ${owner.session}'s answer went upstream without the requestState issued for its call`
          : `session ${owner.session}'s answer went upstream under requestState ${clip(JSON.stringify(params.requestState))}, not the one issued for its call`,
    );
  }
  return wrong;
}

/** Every request the answerer saw carried this case's canary, when the request sent carried it. */
function noCrossTalk(o: Observation, canary: string): Outcome[] {
  if (!JSON.stringify(o.sent).includes(canary) || o.asked.length === 0) return [];
  const foreign = o.asked.filter((a) => !JSON.stringify(a).includes(canary));
  return [
    {
      ok: foreign.length === 0,
      detail:
        foreign.length === 0
          ? "every request the answerer saw came from this case"
          : "the answerer received a request from another case",
    },
  ];
}

/**
 * One request from the upstream opens at most one question on each side: a relay that drops a refusal and asks
 * again (as mcpx did when its downstream host refused a relayed request) would otherwise pass every denial case.
 */
function askedOnce(o: Observation): Outcome[] {
  const model = o.asked.length;
  const reviewer = (o.reviews ?? []).filter((r) => r.stage === "request").length;
  const sent = requestsSent(o);
  if (model <= sent && reviewer <= sent) return [];
  const what = sent === 1 ? "one request" : `${sent} requests`;
  return [
    {
      ok: false,
      detail:
        model > sent
          ? `the answerer was asked ${model}× for ${what}`
          : `the review surface asked about ${what} ${reviewer}×`,
    },
  ];
}

export const ISOLATION = family({
  checks: [
    check({
      id: "no-cross-talk",
      proves: "every request the answerer saw came from this case",
      rule: "sampling-relay-answers-only-the-asker",
      judge: (ctx) => noCrossTalk(ctx.o, ctx.canary),
    }),
    check({
      id: "asked-once",
      proves: "one request opened at most one question on each side",
      rule: "sampling-human-in-loop-can-deny",
      judge: (ctx) => askedOnce(ctx.o),
    }),
    check({
      id: "only-the-asker-asked",
      proves:
        "no other downstream session received the sampling request (2026-07-28, two askers: each session was asked its own request only)",
      rule: "sampling-relay-answers-only-the-asker",
      judge: (ctx) => onlyTheAsker(ctx.o, ctx.canary),
    }),
    check({
      id: "answer-to-its-own-call",
      proves:
        "2026-07-28, two sessions calling at once: each upstream call's retry carried only its own session's answer, under the requestState issued for that call",
      rule: "sampling-relay-answers-only-the-asker",
      judge: (ctx) => ownCall(ctx.o, ctx.canary, ctx.frames),
    }),
  ],
});
