import { z } from "zod";

/**
 * Observations: what a relay did that the revision's text neither demands nor forbids of it, measured on a case's
 * exchange and shown in the reports beside the verdicts, never as one (issue #32). Each id has one entry here: what
 * the behaviour is, and what the text says, quoted with revision and section, so a reader sees why it is no verdict.
 * The judge records them (src/judge/observations.ts); the reports list them per era (src/matrix/).
 */
export const OBSERVATION_CATALOGUE = {
  "request-state-substituted": {
    title: "requestState replaced by the relay's own for its client",
    text:
      '2026-07-28 basic/patterns/mrtr.mdx, Client Requirements 2: the client "MUST echo back the exact value" of ' +
      "requestState when retrying — judged at the upstream by sampling-mrtr-request-state-echoed. The state the " +
      "relay hands its own client is its state as that client's server: the text asks a server to treat a presented " +
      'requestState as attacker-controlled and to protect its integrity "If requestState influences authorization, ' +
      'resource access, or business logic" (Server Requirements 4), and SHOULD bind it to the principal, a short ' +
      'expiry and the originating request "To prevent replay" (Server Requirements 5); single use is required only ' +
      'of "Servers for which a given requestState must be consumed at most once". None of that is visible from the ' +
      "relay's wire without an authenticated principal, so the relay's handle is shown, not judged.",
  },
  "request-state-minted": {
    title: "requestState given to the client though the upstream sent none",
    text:
      '2026-07-28 basic/patterns/mrtr.mdx, Client Requirements 2: "If the InputRequiredResult does not contain a ' +
      'requestState field, the client MUST NOT include one in the retry" — judged at the upstream by ' +
      'sampling-mrtr-request-state-echoed. Toward its own client the relay is a server, which "MAY include a ' +
      'requestState field" (Server Requirements 3), so a state of its own there is allowed; shown, not judged.',
  },
} as const satisfies Record<string, { title: string; text: string }>;

export type ObservationId = keyof typeof OBSERVATION_CATALOGUE;

export const ObservationIdSchema = z.enum(
  Object.keys(OBSERVATION_CATALOGUE) as [ObservationId, ...ObservationId[]],
);

/** One observation on one exchange: which behaviour, and what this exchange showed of it. */
export const CaseObservationSchema = z.object({
  id: ObservationIdSchema,
  /** What the relay did on this exchange, in one sentence (values clipped). */
  seen: z.string(),
});
export type CaseObservation = z.infer<typeof CaseObservationSchema>;

/** An observation as the reports list it: per era, with the cases it was seen in. */
export interface ObservationSummary {
  id: ObservationId;
  era: string;
  title: string;
  text: string;
  /** The first exchange's `seen`, and the cases (`row/id`) it was seen in. */
  seen: string;
  cases: string[];
}

/**
 * The observations of a run, one per id × era, from its case results (each case result is in its own cell once; an
 * attributed copy carries none). Pure.
 */
export function summarizeObservations(
  cells: ReadonlyArray<{
    row: string;
    era: string;
    cases: ReadonlyArray<{ id: string; observations?: CaseObservation[] }>;
  }>,
): ObservationSummary[] {
  const byKey = new Map<string, ObservationSummary>();
  for (const cell of cells)
    for (const kase of cell.cases)
      for (const o of kase.observations ?? []) {
        const key = `${o.id}@${cell.era}`;
        const where = `${cell.row}/${kase.id}`;
        const known = byKey.get(key);
        if (known) {
          if (!known.cases.includes(where)) known.cases.push(where);
          continue;
        }
        const { title, text } = OBSERVATION_CATALOGUE[o.id];
        byKey.set(key, { id: o.id, era: cell.era, title, text, seen: o.seen, cases: [where] });
      }
  return [...byKey.values()];
}
