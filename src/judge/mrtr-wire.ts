import type { Frame } from "../model/evidence.ts";
import { isObject, METHOD } from "../protocol/wire.ts";
import { describeDifferences, differences, firstDifference } from "./json-diff.ts";

/**
 * 2026-07-28's retry rules, judged from the upstream's wire log (the relay's requests to the upstream and the
 * upstream's input_required answer), so that a case can name the check its rule rests on instead of relying on the
 * harness upstream breaking the exchange: the retry has a new JSON-RPC id, echoes requestState exactly (or sends
 * none when none was given), and keeps the call's arguments.
 */
export interface MrtrWireCheck {
  id: "mrtr-retry-new-id" | "mrtr-request-state-echoed" | "mrtr-retry-arguments-unchanged";
  ok: boolean;
  detail: string;
}

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
 * The retry's id against its call's. 2026-07-28 basic/patterns/mrtr.mdx:256: "The JSON-RPC `id` **MUST** be different
 * between the initial request and the retry, as they are independent requests", with no scope of connection, process
 * or session: that revision is stateless (basic/index.mdx "Statelessness": "Servers **SHOULD NOT** require that a
 * client reuse the same connection or process to perform related operations"), so a retry sent on another upstream
 * connection, or by another client object of the same relay, is still the retry of that request.
 */
function newIdCheck(first: Call, retry: Call): MrtrWireCheck {
  const ok = retry.id !== first.id;
  const elsewhere = retry.connection !== first.connection;
  return {
    id: "mrtr-retry-new-id",
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

export function mrtrRetryChecks(frames: Frame[]): MrtrWireCheck[] {
  const calls = callsToUpstream(frames);
  const first = calls[0];
  const retry = calls[1];
  if (!first || !retry) return [];
  const asked = replyTo(frames, first);
  if (asked?.resultType !== "input_required") return [];
  const hadState = Object.hasOwn(asked, "requestState");
  const echoed = Object.hasOwn(retry.params, "requestState");
  const stateOk = hadState
    ? echoed && firstDifference(asked.requestState, retry.params.requestState) === null
    : !echoed;
  const argsDiff = differences(first.params.arguments, retry.params.arguments);
  return [
    newIdCheck(first, retry),
    {
      id: "mrtr-request-state-echoed",
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
    },
    {
      id: "mrtr-retry-arguments-unchanged",
      ok: argsDiff.length === 0,
      detail:
        argsDiff.length === 0
          ? "the retry kept the call's arguments"
          : `the retry changed the call's arguments: ${describeDifferences(argsDiff, { sent: "called with", received: "retried with" })}`,
    },
  ];
}
