import { join } from "node:path";
import { caseSide, type JudgedCase } from "../judge/cells.ts";
import { evidenceFor, type JudgedRun } from "../judge/judge-runs.ts";
import type { Evidence } from "../model/evidence.ts";
import { writeJsonFile } from "../model/output-files.ts";
import { stableEvidence } from "../model/stable.ts";
import { officialSchemaOf } from "../model/wire-schema.ts";

export interface EvidenceMeta {
  tool: { name: string; version: string };
  target: { name: string; profile?: string };
  seed: number;
  /** `run --stable`: evidence records no wall-clock or measured time (src/model/stable.ts). */
  stable?: boolean;
}

/**
 * A judged run's evidence as this run writes it (without its times, in stable output), with what the official schema
 * says of the relay's frames (indexed as written, so after stable output's reordering).
 */
export function evidenceToWrite(j: JudgedRun, meta: EvidenceMeta): Evidence {
  const evidence = evidenceFor(j, meta);
  const written = meta.stable ? stableEvidence(evidence) : evidence;
  const eras = { upstream: j.run.era, downstream: j.run.kase.downstreamEra ?? j.run.era };
  const officialSchema = officialSchemaOf(written.frames, eras);
  return officialSchema ? { ...written, officialSchema } : written;
}

/** Where a case × era transcript lives, relative to results.json. */
export const evidencePath = (row: string, id: string, era: string) =>
  join("evidence", row, `${id}@${era}.json`);

/**
 * Writes each judged run's evidence and turns it into the case results of its cell, plus one result in every other
 * cell a finding of it counts toward (a validator finding on a delivered message), pointing at the same evidence.
 */
export function recordJudged(
  judged: JudgedRun[],
  outDir: string,
  meta: EvidenceMeta,
  selectedRows: Set<string> | undefined,
): { judgedCases: JudgedCase[]; evidences: Record<string, Evidence> } {
  const judgedCases: JudgedCase[] = [];
  const evidences: Record<string, Evidence> = {};
  for (const j of judged) {
    const { kase, era } = j.run;
    const rel = evidencePath(kase.row, kase.id, era);
    const evidence = evidenceToWrite(j, meta);
    evidences[rel] = evidence;
    const sha = writeJsonFile(outDir, rel, evidence);
    const { status, reason } = j.verdict;
    judgedCases.push({
      row: kase.row,
      era,
      side: caseSide(j.row, kase.side),
      result: {
        id: kase.id,
        status,
        reason,
        evidence: rel,
        evidenceSha256: sha,
        durationMs: j.run.durationMs,
        ...(j.verdict.na ? { na: true } : {}),
        ...(j.credited ? { checks: j.credited } : {}),
      },
      ...(j.covers ? { covers: j.covers } : {}),
    });
    for (const a of j.attributed) {
      if (selectedRows && !selectedRows.has(a.row)) continue;
      const result = {
        id: `${kase.row}/${kase.id}`,
        status: a.status,
        reason: a.reason,
        evidence: rel,
        evidenceSha256: sha,
        ...(a.checks ? { checks: a.checks } : {}),
      };
      judgedCases.push({ row: a.row, era, side: a.side, result });
    }
  }
  return { judgedCases, evidences };
}
