import type { Frame } from "../../model/evidence.ts";
import { isModernEra } from "../../protocol/eras.ts";
import { isObject, METHOD } from "../../protocol/wire.ts";
import { describeDifferences, differences, firstDifference } from "../json-diff.ts";
import { type CheckContext, type CheckCounts, check, countedFrom, family, type Outcome } from "./check.ts";

/**
 * 2026-07-28's retry rules, judged from the upstream's wire log (the relay's requests to the upstream and the
 * upstream's input_required answer), so that a case can name the check its rule rests on instead of relying on the
 * harness upstream breaking the exchange: the retry has a new JSON-RPC id, echoes requestState exactly (or sends
 * none when none was given), and keeps the call's arguments.
 */
const clip = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** One tools/call of the relay to the upstream: where it is in the log, on which connection, with which id. */
interface Call {
  at: number;
  connection: string | undefined;
  id: unknown;
  params: Record<string, unknown>;
}

/** The relay's tools/call requests to the upstream, in order. */
function callsToUpstream(frames: Frame[]): Call[] {
  const calls: Call[] = [];
  frames.forEach((f, at) => {
    if (f.end !== "upstream" || f.dir !== "from-relay" || !isObject(f.message)) return;
    const m = f.message;
    if (m.method === METHOD.toolsCall && isObject(m.params))
      calls.push({ at, connection: f.session, id: m.id, params: m.params });
  });
  return calls;
}

/**
 * The upstream's answer to a call: the first response after it with its id on its connection. Ids are matched per
 * connection, never across: a gateway that opens an upstream connection per request numbers each from 1.
 */
function replyTo(frames: Frame[], call: Call): Record<string, unknown> | undefined {
  const reply = frames.find(
    (f, at) =>
      at > call.at &&
      f.end === "upstream" &&
      f.dir === "to-relay" &&
      f.session === call.connection &&
      isObject(f.message) &&
      f.message.id === call.id &&
      !("method" in f.message),
  );
  return reply && isObject(reply.message) && isObject(reply.message.result)
    ? reply.message.result
    : undefined;
}

/**
 * The retry's id against its call's. 2026-07-28 basic/patterns/mrtr.mdx: "The JSON-RPC `id` **MUST** be different
 * between the initial request and the retry, as they are independent requests", with no scope of connection, process
 * or session: that revision is stateless (basic/index.mdx "Statelessness": "Servers **SHOULD NOT** require that a
 * client reuse the same connection or process to perform related operations"), so a retry sent on another upstream
 * connection, or by another client object of the same relay, is still the retry of that request.
 */
function newId({ first, retry }: Retry): Outcome {
  const ok = retry.id !== first.id;
  const elsewhere = retry.connection !== first.connection;
  return {
    ok,
    detail: ok
      ? "the retry used a new JSON-RPC id"
      : `the retry reused the original request's JSON-RPC id ${JSON.stringify(first.id)}${
          // Connection labels (upstream-N) vary from run to run: the reason names none.
          elsewhere
            ? " (on another upstream connection: the rule holds whatever connection carries the retry)"
            : ""
        }`,
  };
}

/** The call, its retry and the upstream's input_required answer to the call, when the exchange has them. */
interface Retry {
  first: Call;
  retry: Call;
  asked: Record<string, unknown>;
}

/**
 * The retry of a 2026-07-28 case, from the upstream's frames. None when the case's calls interleave on the upstream's
 * wire (two sessions': their retries are judged per call, isolation.ts).
 */
function retryOf(ctx: CheckContext): Retry | undefined {
  if (!isModernEra(ctx.era) || !ctx.frames || ctx.o.bystanders) return undefined;
  const calls = callsToUpstream(ctx.frames);
  const first = calls[0];
  const retry = calls[1];
  if (!first || !retry) return undefined;
  const asked = replyTo(ctx.frames, first);
  if (asked?.resultType !== "input_required") return undefined;
  return { first, retry, asked };
}

function stateEchoed({ retry, asked }: Retry): Outcome {
  const hadState = Object.hasOwn(asked, "requestState");
  const echoed = Object.hasOwn(retry.params, "requestState");
  const stateOk = hadState
    ? echoed && firstDifference(asked.requestState, retry.params.requestState) === null
    : !echoed;
  return {
    ok: stateOk,
    detail: stateOk
      ? hadState
        ? "the retry echoed requestState exactly"
        : "no requestState was given and the retry invented none"
      : !hadState
        ? `the retry carries requestState ${clip(JSON.stringify(retry.params.requestState))} though none was given`
        : !echoed
          ? "the retry does not echo requestState"
          : `the retry's requestState ${clip(JSON.stringify(retry.params.requestState))} is not the one given (${clip(JSON.stringify(asked.requestState))})`,
  };
}

function argumentsKept({ first, retry }: Retry): Outcome {
  const argsDiff = differences(first.params.arguments, retry.params.arguments);
  return {
    ok: argsDiff.length === 0,
    detail:
      argsDiff.length === 0
        ? "the retry kept the call's arguments"
        : `the retry changed the call's arguments: ${describeDifferences(argsDiff, { sent: "called with", received: "retried with" })}`,
  };
}

/**
 * A retry rule's outcome, counted toward its own row (`counts`): from a case of another row a failure is recorded
 * there as info; not the round trip's business either, which is judged on delivery and validity only.
 */
function ownRow(counts: CheckCounts, judge: (r: Retry) => Outcome) {
  return (ctx: CheckContext): Outcome[] => {
    const r = retryOf(ctx);
    if (!r) return [];
    const c = judge(r);
    const elsewhere = countedFrom(counts, ctx.cell);
    return [{ ...c, ...(!elsewhere || c.ok ? {} : { level: "info" as const, countsFor: elsewhere }) }];
  };
}

const NEW_ID = { rows: ["sampling-mrtr-retry-new-id"], side: "client" } as const satisfies CheckCounts;
const STATE_ECHOED = {
  rows: ["sampling-mrtr-request-state-echoed"],
  side: "client",
} as const satisfies CheckCounts;

export const RETRY = family({
  checks: [
    check({
      id: "mrtr-retry-new-id",
      proves: "2026-07-28: the retry reached the upstream with a new JSON-RPC id",
      rule: "sampling-mrtr-retry-new-id",
      counts: NEW_ID,
      judge: ownRow(NEW_ID, newId),
    }),
    check({
      id: "mrtr-request-state-echoed",
      proves: "2026-07-28: the retry echoed requestState exactly (and invented none when none was given)",
      rule: "sampling-mrtr-request-state-echoed",
      counts: STATE_ECHOED,
      judge: ownRow(STATE_ECHOED, stateEchoed),
    }),
    check({
      id: "mrtr-retry-arguments-unchanged",
      proves: "2026-07-28: the retry kept the original call's arguments",
      rule: "sampling-mrtr-carried-in-input-requests",
      counts: NEW_ID,
      judge: ownRow(NEW_ID, argumentsKept),
    }),
  ],
});
