import type { Frame } from "../../model/evidence.ts";
import { isObject } from "../../protocol/wire.ts";
import { check, family, type Outcome } from "./check.ts";

/**
 * Whether the upstream's sampling request, sent under the id a case chose (a large integer, a string shaped like a
 * relay's own ids, unicode), got its response under that very id, judged from the upstream's wire log (pure).
 *
 * JSON-RPC 2.0 §4: the id is "An identifier established by the Client that MUST contain a String, Number, or NULL
 * value if included" — the requester's to choose, with no prefix reserved for anyone in between; §5: the response's
 * id "MUST be the same as the value of the id member in the Request Object". MCP, every revision: "Requests MUST
 * include a string or integer ID"; "Responses MUST include the same ID as the request they correspond to". Equality
 * is of value and type: 5 is not "5".
 */
const clip = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const show = (id: unknown) => clip(JSON.stringify(id) ?? String(id));
const kind = (id: unknown) => (id === null ? "null" : typeof id);

interface Message {
  id?: unknown;
  method?: unknown;
  result?: unknown;
  error?: unknown;
}

const isResponse = (m: Message) => m.method === undefined && ("result" in m || "error" in m);

/**
 * The check, when the case chose an id and the upstream's request went out under it; nothing otherwise (a case that
 * rests on the check then says it never ran: the harness could not use the id, which proves nothing about the relay).
 */
export function responseIdOutcomes(
  frames: Frame[] | undefined,
  requestId: string | number | undefined,
): Outcome[] {
  if (requestId === undefined || !frames) return [];
  const upstream = frames.filter((f) => f.end === "upstream" && isObject(f.message));
  const at = upstream.findIndex(
    (f) =>
      f.dir === "to-relay" &&
      (f.message as Message).method === "sampling/createMessage" &&
      (f.message as Message).id === requestId,
  );
  if (at === -1) return [];
  const connection = upstream[at]!.session;
  // Ids are the upstream's on its own connection: responses on another connection answer other requests.
  const mine = upstream.filter((f) => f.session === connection);
  const requestIds = mine
    .filter((f) => f.dir === "to-relay" && (f.message as Message).method !== undefined)
    .map((f) => (f.message as Message).id);
  const responses = upstream
    .slice(at + 1)
    .filter((f) => f.session === connection && f.dir === "from-relay" && isResponse(f.message as Message))
    .map((f) => f.message as Message);
  const outcome = (ok: boolean, detail: string): Outcome[] => [{ ok, detail }];
  if (responses.some((r) => r.id === requestId))
    return outcome(
      true,
      `the response came back under the request's id ${show(requestId)} (${kind(requestId)})`,
    );
  const retyped = responses.find((r) => String(r.id) === String(requestId));
  if (retyped)
    return outcome(
      false,
      `the response to request id ${show(requestId)} came back under id ${show(retyped.id)} (${kind(requestId)} → ${kind(retyped.id)})`,
    );
  const stray = responses.find((r) => !requestIds.some((id) => id === r.id));
  if (stray)
    return outcome(
      false,
      `the response to request id ${show(requestId)} came back under id ${show(stray.id)}, which no request of the upstream had`,
    );
  return outcome(false, `no response came back under the request's id ${show(requestId)}`);
}

export const RESPONSE_ID = family({
  checks: [
    check({
      id: "upstream-response-id-paired",
      proves:
        "the response to the upstream's sampling request came back under that request's JSON-RPC id, value and type unchanged (a large integer, a string shaped like a relay's own ids, unicode)",
      rule: "sampling-relay-answers-only-the-asker (JSON-RPC 2.0 §5: the response's id MUST be the same as the request's)",
      judge: (ctx) => responseIdOutcomes(ctx.frames, ctx.requestId),
    }),
  ],
});
