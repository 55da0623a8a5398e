import type { Observation, SequenceEntry, UpstreamOutcome } from "../../model/evidence.ts";
import { type Era, isModernEra } from "../../protocol/eras.ts";
import { type CheckContext, check, family, type Outcome } from "./check.ts";

/**
 * Cases that send several sampling requests (`sequence:`, `mrtr.keys:`): what the requests, compared with each other,
 * show. Each request carries a token of its own (src/harness/sequence.ts) and the answer to it the same token, so
 * each check rests on which tokens reached which end, never on wording.
 */

export type SequenceKind = "after" | "burst" | "loop" | "keys";
export interface SequenceInput {
  kind: SequenceKind;
  /** after: requests in all; burst: its size; loop: the most rounds the case allows; keys: how many. */
  n: number;
}

const carries = (value: unknown, token: string) => JSON.stringify(value ?? null).includes(token);

/** A refusal the era allows for a request the relay will not ask about: an error (legacy) or silence (2026-07-28). */
const refused = (o: UpstreamOutcome, era: Era) =>
  isModernEra(era) ? o.kind === "withheld" : o.kind === "error";

/** How many requests a sequence may show the answerer (one question per request). */
export function requestsSent(o: Observation): number {
  return o.sequence?.length ?? 1;
}

/** after: each later request reached the answerer with none of an earlier request's token in it. */
function notRetained(entries: SequenceEntry[], o: Observation): Outcome {
  const later = entries.slice(1);
  const shown = later.map((e) => ({ e, asked: o.asked.filter((a) => carries(a, e.token)) }));
  const missing = shown.filter((s) => s.asked.length === 0);
  if (later.length === 0 || missing.length > 0)
    return {
      ok: false,
      detail: `only ${entries.length - missing.length} of ${entries.length} requests reached the answerer, so nothing could be compared`,
    };
  const leaks = shown.flatMap(({ e, asked }) =>
    entries
      .filter((earlier) => earlier.round < e.round && asked.some((a) => carries(a, earlier.token)))
      .map((earlier) => `request ${e.round + 1} carried request ${earlier.round + 1}'s messages`),
  );
  return {
    ok: leaks.length === 0,
    detail:
      leaks.length === 0
        ? `each of the ${entries.length} requests reached the answerer with only its own messages`
        : `${leaks.join("; ")} (retained between separate requests)`,
  };
}

/** burst: fewer questions than requests, at least one served, and the rest refused as the era allows. */
function burstLimited(entries: SequenceEntry[], o: Observation, era: Era, n: number): Outcome {
  const served = entries.filter((e) => e.outcome.kind === "result").length;
  const declined = entries.filter((e) => refused(e.outcome, era)).length;
  const other = entries.length - served - declined;
  const asked = o.asked.length;
  const ok = entries.length === n && asked < n && served > 0 && other === 0;
  const how = isModernEra(era) ? "withheld" : "refused with an error";
  return {
    ok,
    detail: `a burst of ${n} requests at once: the answerer was asked ${asked}×, ${served} answered, ${declined} ${how}${other ? `, ${other} otherwise (${entries.find((e) => e.outcome.kind !== "result" && !refused(e.outcome, era))?.outcome.kind})` : ""}${ok ? "" : asked >= n ? " — no rate limit: every request of the burst reached the answerer" : ""}`,
  };
}

/** loop: the relay cut the tool loop within the case's bound, refusing as the era allows and asking nobody for it. */
function loopChecks(entries: SequenceEntry[], o: Observation, era: Era): Outcome[] {
  const cut = entries.findIndex((e) => e.outcome.kind !== "result");
  if (cut < 0) {
    const detail = `the tool loop ran ${entries.length} rounds (the case's bound) and every round was answered: no iteration limit`;
    return [
      { ok: false, detail },
      { ok: false, detail },
    ];
  }
  const at = entries[cut]!;
  const ok = refused(at.outcome, era);
  // Rounds 1…cut were answered, one question each: a question more was about the round the relay cut.
  const extra = o.asked.length - cut;
  return [
    {
      ok: ok && cut > 0,
      detail:
        cut === 0
          ? "the loop's first request was not answered (nothing to limit yet)"
          : `round ${cut + 1} of the tool loop was ${ok ? (isModernEra(era) ? "withheld" : "refused with an error") : `answered with ${at.outcome.kind}`} after ${cut} answered rounds`,
    },
    {
      ok: extra <= 0 && cut > 0,
      detail:
        extra <= 0
          ? `the answerer was asked ${o.asked.length}× and not about the round the relay cut (round ${cut + 1})`
          : `the answerer was still asked about round ${cut + 1}, which the relay did not answer`,
    },
  ];
}

/** keys: each key's answer came back under that key, the one carrying its own token and no other's. */
function keysOwnAnswer(entries: SequenceEntry[]): Outcome {
  const wrong = entries.flatMap((e) => {
    if (e.outcome.kind !== "result") return [`${JSON.stringify(e.key)}: ${e.outcome.kind}`];
    const result = e.outcome.result;
    const others = entries
      .filter((x) => x !== e && carries(result, x.token))
      .map((x) => JSON.stringify(x.key));
    if (others.length) return [`${JSON.stringify(e.key)} got the answer to ${others.join(", ")}`];
    return carries(result, e.token)
      ? []
      : [`${JSON.stringify(e.key)} got an answer to no question of this case`];
  });
  return {
    ok: wrong.length === 0 && entries.length > 1,
    detail:
      wrong.length === 0
        ? `each of the ${entries.length} inputRequests keys got the answer to its own question`
        : wrong.join("; "),
  };
}

/** The case's sequence entries, when it is a sequence case of `kind`. */
function entriesOf(ctx: CheckContext, kind: SequenceKind): SequenceEntry[] | undefined {
  return ctx.sequence?.kind === kind ? (ctx.o.sequence ?? []) : undefined;
}

/** loop: one half per side: client (the upstream was refused) or server (the answerer was not asked about the round cut). */
function loopHalf(ctx: CheckContext, side: "client" | "server"): Outcome[] {
  const entries = entriesOf(ctx, "loop");
  if (!entries || (ctx.cell?.side === "server") !== (side === "server")) return [];
  const [refusedCheck, notAsked] = loopChecks(entries, ctx.o, ctx.era);
  return [side === "server" ? notAsked! : refusedCheck!];
}

export const SEQUENCE = family({
  checks: [
    check({
      id: "not-retained",
      proves:
        "two separate sampling requests in a row: the later one reached the answerer without the earlier one's messages",
      rule: "sampling-messages-not-retained-between-requests",
      judge: (ctx) => {
        const entries = entriesOf(ctx, "after");
        return entries ? [notRetained(entries, ctx.o)] : [];
      },
    }),
    check({
      id: "burst-limited",
      proves:
        "a burst of sampling requests at once: some reached the answerer, the excess was refused (legacy: an error; 2026-07-28: withheld) without asking it",
      rule: "sampling-client-rate-limit",
      judge: (ctx) => {
        const entries = entriesOf(ctx, "burst");
        return entries ? [burstLimited(entries, ctx.o, ctx.era, ctx.sequence!.n)] : [];
      },
    }),
    check({
      id: "loop-refused",
      proves:
        "an endless tool loop was cut within the case's bound: the upstream got an error (2026-07-28: no response for the input)",
      rule: "sampling-both-iteration-limits-tool-loops",
      judge: (ctx) => loopHalf(ctx, "client"),
    }),
    check({
      id: "loop-not-asked",
      proves:
        "an endless tool loop was cut within the case's bound: the answerer was not asked about the round cut",
      rule: "sampling-both-iteration-limits-tool-loops",
      judge: (ctx) => loopHalf(ctx, "server"),
    }),
    check({
      id: "input-keys-own-answer",
      proves:
        "2026-07-28: several sampling inputRequests at once; each key's answer reached the upstream under that key (no swap, no overwrite)",
      rule: "sampling-mrtr-input-request-keys-unique",
      judge: (ctx) => {
        const entries = entriesOf(ctx, "keys");
        return entries ? [keysOwnAnswer(entries)] : [];
      },
    }),
  ],
});
