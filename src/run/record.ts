import { join } from "node:path";
import { DEFAULT_MAX_FRAME_BYTES } from "../harness/frames.ts";
import { MAX_LATE_RERUNS } from "../harness/late-rerun.ts";
import { caseSide, type JudgedCase } from "../judge/cells.ts";
import { prerequisiteUnmet } from "../judge/checks/prerequisite.ts";
import { evidenceFor, type JudgedRun } from "../judge/judge-runs.ts";
import { observationsOf } from "../judge/observations.ts";
import { ROUNDTRIP_ROW } from "../model/case-key.ts";
import type { Evidence } from "../model/evidence.ts";
import { EVIDENCE_FILE_MAX_BYTES, fitEvidence } from "../model/evidence-budget.ts";
import { writeTextFile } from "../model/output-files.ts";
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
  // The attempts the harness was late for, beside the judged one (their times are measured: not in stable output).
  const late = meta.stable
    ? {}
    : {
        ...(j.run.actions?.length ? { harnessActions: j.run.actions } : {}),
        ...(j.run.lateAttempts ? { lateAttempts: j.run.lateAttempts } : {}),
      };
  return officialSchema ? { ...written, officialSchema, ...late } : { ...written, ...late };
}

/** Where a case × era transcript lives, relative to results.json. */
export const evidencePath = (row: string, id: string, era: string) =>
  join("evidence", row, `${id}@${era}.json`);

/** How an evidence file is written: the file's size budget and the run's frame cap (src/model/evidence-budget.ts). */
export interface EvidenceLimits {
  budget: number;
  maxFrameBytes: number;
}

/** Within the file bound and the default frame cap: what a caller that gives no limits gets. */
export const DEFAULT_EVIDENCE_LIMITS: EvidenceLimits = {
  budget: EVIDENCE_FILE_MAX_BYTES,
  maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
};

/**
 * Writes a judged run's evidence (within its budget) and returns its path, sha256 and size in bytes. Once written, the
 * run's observation and frames are needed no more: the caller keeps its case results only.
 */
export function writeEvidence(
  j: JudgedRun,
  outDir: string,
  meta: EvidenceMeta,
  limits: EvidenceLimits = DEFAULT_EVIDENCE_LIMITS,
): { rel: string; sha: string; bytes: number } {
  const rel = evidencePath(j.run.kase.row, j.run.kase.id, j.run.era);
  const fitted = fitEvidence(evidenceToWrite(j, meta), limits.budget, limits.maxFrameBytes);
  return { rel, sha: writeTextFile(outDir, rel, fitted.text), bytes: fitted.bytes };
}

/** A failing verdict that is its era's failed round trip, not the case's own finding (applyPrerequisite, notRunVerdict). */
function restsOnPrerequisite(verdict: {
  status: string;
  checks: Array<{ id: string; ok: boolean }>;
}): boolean {
  return (verdict.status === "fail" || verdict.status === "warn") && prerequisiteUnmet(verdict.checks);
}

/**
 * A judged run as case results: one in its own cell, plus one in every other cell a finding of it counts toward (a
 * validator finding on a delivered message), pointing at the same evidence.
 */
export function caseResultsOf(
  j: JudgedRun,
  evidence: { rel: string; sha: string },
  selectedRows: Set<string> | undefined,
): JudgedCase[] {
  const { kase, era } = j.run;
  const { rel, sha } = evidence;
  const { status, reason } = j.verdict;
  const observations = observationsOf(j.run.frames, era);
  const out: JudgedCase[] = [
    {
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
        ...(restsOnPrerequisite(j.verdict) ? { rootCause: ROUNDTRIP_ROW } : {}),
        ...(j.credited ? { checks: j.credited } : {}),
        ...(observations.length > 0 ? { observations } : {}),
        ...(j.run.lateAttempts?.length ? { lateReruns: lateRerunsOf(j) } : {}),
      },
      ...(j.covers ? { covers: j.covers } : {}),
    },
  ];
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
    out.push({ row: a.row, era, side: a.side, result });
  }
  return out;
}

/** Writes each judged run's evidence and turns it into case results (caseResultsOf), in the order given. */
export function recordJudged(
  judged: JudgedRun[],
  outDir: string,
  meta: EvidenceMeta,
  selectedRows: Set<string> | undefined,
  limits: EvidenceLimits = DEFAULT_EVIDENCE_LIMITS,
): { judgedCases: JudgedCase[] } {
  return {
    judgedCases: judged.flatMap((j) =>
      caseResultsOf(j, writeEvidence(j, outDir, meta, limits), selectedRows),
    ),
  };
}

/** How many times a case ran again because the harness was late (every late attempt but one beyond the bound did). */
const lateRerunsOf = (j: JudgedRun): number => Math.min(j.run.lateAttempts?.length ?? 0, MAX_LATE_RERUNS);
