/** The row every other case of an era depends on: the sampling round trip (its failure gates the era). */
export const ROUNDTRIP_ROW = "sampling-relay-roundtrip";

/**
 * The key of one case run, `row/id@era`: it names the run in results and evidence, in live judging and shards, and in
 * the probe call's arguments, by which the harness upstream tells each case's calls apart.
 */
export function caseKey(kase: { row: string; id: string }, era: string): string {
  return `${kase.row}/${kase.id}@${era}`;
}
