import type { Frame } from "../../model/evidence.ts";
import { expirySlackMs } from "../../model/target.ts";
import { check, family } from "./check.ts";

/**
 * Order and time on the wire: expiry reported within the target's declared deadline (`means: expiry`), and no
 * sampling request to the answerer before its initialized notification (`afterInitialized:`).
 */

/** The id of the sampling request frame the upstream sent, and when; and when its response came back. */
function upstreamRoundTime(frames: Frame[]): number | undefined {
  const sentFrame = frames.find(
    (f) =>
      f.end === "upstream" &&
      f.dir === "to-relay" &&
      (f.message as { method?: unknown } | undefined)?.method === "sampling/createMessage",
  );
  if (!sentFrame) return undefined;
  const id = (sentFrame.message as { id?: unknown }).id;
  const reply = frames.find(
    (f) =>
      f.end === "upstream" &&
      f.dir === "from-relay" &&
      f.t >= sentFrame.t &&
      (f.message as { id?: unknown; method?: unknown } | undefined)?.id === id &&
      (f.message as { method?: unknown }).method === undefined,
  );
  return reply ? reply.t - sentFrame.t : undefined;
}

const frameCount = (n: number) => `${n} frame${n === 1 ? "" : "s"}`;

const methodOf = (f: Frame) => (f.message as { method?: unknown } | undefined)?.method;

export const TIMING = family({
  checks: [
    check({
      id: "expiry-in-time",
      proves: "expiry was reported within the declared answerTimeoutMs plus slack",
      rule: "sampling-relay-expiry-reported",
      // Expiry is a verdict about time too: reported later than the declared deadline plus slack is a failure.
      judge: ({ e, o, answerTimeoutMs, frames }) => {
        if (e.outcome !== "error" || e.means !== "expiry" || o.upstream.kind !== "error") return [];
        if (answerTimeoutMs === undefined || !frames) return [];
        const elapsed = upstreamRoundTime(frames);
        if (elapsed === undefined) return [];
        const slack = expirySlackMs(answerTimeoutMs);
        const bound = answerTimeoutMs + slack;
        // The detail names the declared figures only (the same from one run to the next); what was measured is measuredMs.
        return [
          {
            ok: elapsed <= bound,
            detail:
              elapsed <= bound
                ? `expiry was reported within the declared deadline of ${answerTimeoutMs} ms plus ${slack} ms slack`
                : `expiry was reported later than the declared deadline of ${answerTimeoutMs} ms plus ${slack} ms slack`,
            measuredMs: Math.round(elapsed),
          },
        ];
      },
    }),
    check({
      id: "asked-after-initialized",
      proves:
        "the relay sent no sampling request to the answerer before the answerer's notifications/initialized (it held it back)",
      rule: "sampling-server-not-before-initialized",
      /**
       * "The server SHOULD NOT send requests other than pings and logging before receiving the initialized
       * notification": from the answerer's wire, no sampling/createMessage reached it before its notifications/initialized.
       */
      judge: ({ e, frames }) => {
        if (!e.afterInitialized) return [];
        const down = (frames ?? []).filter((f) => f.end === "downstream");
        const init = down.findIndex(
          (f) => f.dir === "to-relay" && methodOf(f) === "notifications/initialized",
        );
        const early = down.filter(
          (f, i) =>
            f.dir === "from-relay" && methodOf(f) === "sampling/createMessage" && (init === -1 || i < init),
        );
        // The order of events on the answerer's wire, not their times: the detail is the same from one run to the next.
        const sent =
          init === -1
            ? "(not sent before the case ended)"
            : early.length > 0
              ? `(which came ${frameCount(init - down.indexOf(early[0]!))} later on the answerer's wire)`
              : "";
        return [
          {
            ok: early.length === 0 && init !== -1,
            detail:
              early.length > 0
                ? `the relay sent sampling/createMessage before the answerer's initialized notification ${sent}`
                : init === -1
                  ? "the answerer sent no notifications/initialized during the case, so the rule was not exercised"
                  : "no sampling request reached the answerer before its initialized notification",
          },
        ];
      },
    }),
  ],
});
