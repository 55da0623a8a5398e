import { z } from "zod";
import { CaseObservationSchema } from "./observations.ts";
import { CellSideSchema, EraSchema } from "./register.ts";
import { PackageSchema } from "./target.ts";

/**
 * results.json: the public contract users script against (see docs/results.md).
 * Extend compatibly only.
 */

export const CaseStatusSchema = z.enum(["pass", "fail", "warn", "error", "skip"]);
export type CaseStatus = z.infer<typeof CaseStatusSchema>;

export const CellStatusSchema = z.enum(["pass", "fail", "warn", "partial", "n/a", "gap", "error", "not-run"]);
export type CellStatus = z.infer<typeof CellStatusSchema>;

export const CaseResultSchema = z.object({
  id: z.string(),
  status: CaseStatusSchema,
  /** One sentence: what the relay did, and what was expected when it differs. */
  reason: z.string(),
  /** Path of the transcript, relative to results.json. */
  evidence: z.string().optional(),
  /** sha256 (hex) of the evidence file's bytes. */
  evidenceSha256: z.string().optional(),
  durationMs: z.number().optional(),
  /**
   * The #256 validation row's cases: where their violations sit (message positions, content types), so that cells
   * can be rebuilt from results alone (`merge`).
   */
  covers: z.object({ indexes: z.array(z.string()), contentTypes: z.array(z.string()) }).optional(),
  /**
   * The row whose failure this case's verdict follows from (the era's round trip, `sampling-relay-roundtrip`): the
   * case did not run, or proves nothing, because that row failed. Reports count such cells as one root cause.
   */
  rootCause: z.string().optional(),
  /**
   * With status `skip`: the case does not apply to this target at all (e.g. a Streamable HTTP stream case against a
   * stdio upstream), so a cell of such cases alone is `n/a` with the reason, not `not-run`.
   */
  na: z.boolean().optional(),
  /**
   * The checks of this result that count toward its cell from whichever case they were judged in and that a tracking
   * bullet may rest on (what a review question showed: `review-request`, `review-response`), each with whether it
   * held. On a case of the cell's own row, or on a case of another row recorded here (`<row>/<case>`).
   */
  checks: z.record(z.string(), z.boolean()).optional(),
  /**
   * What the relay did on this exchange that the text neither demands nor forbids (src/model/observations.ts): shown
   * in the reports beside the verdicts, never counted in them. Only on the case's own result, never on an attributed
   * copy.
   */
  observations: z.array(CaseObservationSchema).optional(),
  /**
   * How many times this case ran again because the harness itself was late for it (its answer may have left after
   * the relay's deadline while the script meant it to leave before); the transcript keeps those attempts.
   */
  lateReruns: z.number().int().positive().optional(),
});
export type CaseResult = z.infer<typeof CaseResultSchema>;

export const CellSchema = z.object({
  row: z.string(),
  era: EraSchema,
  side: CellSideSchema,
  status: CellStatusSchema,
  /** Why a cell without cases has its status (n/a reason, not-run reason). */
  note: z.string().optional(),
  cases: z.array(CaseResultSchema),
});
export type Cell = z.infer<typeof CellSchema>;

export const SummarySchema = z.record(z.string(), z.number());

export const ResultsSchema = z
  .object({
    tool: z.object({ name: z.literal("mcpx-conform"), version: z.string() }),
    target: z
      .object({ name: z.string(), profile: z.string().optional(), package: PackageSchema.optional() })
      .loose(),
    seed: z.number().int(),
    /**
     * Written by `run --stable` (src/model/stable.ts): no wall-clock or measured time is recorded (no `startedAt`,
     * `finishedAt`, case and fuzz `durationMs`), so two runs write the same bytes. Its evidence is stable too.
     */
    stable: z.literal(true).optional(),
    /** When the run started (ISO 8601); absent only in stable output. */
    startedAt: z.string().optional(),
    finishedAt: z.string().optional(),
    eras: z.array(EraSchema).optional(),
    /** Set by `run --shard i/n`: these results hold only that slice of the work (`merge` combines the slices). */
    shard: z.object({ index: z.number().int().min(1), count: z.number().int().min(1) }).optional(),
    cells: z.array(CellSchema),
    summary: SummarySchema,
    /**
     * Cases that ran again because the harness itself was late for them (a loaded machine), and how many re-runs that
     * took; `stillLate`: those that were late every time (their cells are `error` naming the harness). Absent: none.
     */
    lateReruns: z
      .object({
        cases: z.number().int().positive(),
        reruns: z.number().int().positive(),
        stillLate: z.number().int().nonnegative(),
      })
      .optional(),
    /** Differential fuzzing per era, when `run --fuzz` was given. */
    fuzz: z
      .array(
        z.object({
          era: EraSchema,
          seed: z.number(),
          runs: z.number(),
          branches: z.record(z.string(), z.number()),
          /** Absent only in stable output. */
          durationMs: z.number().optional(),
          /** warn: the disagreement is on a SHOULD row (its severity a warning), which it warns, not fails. */
          status: z.enum(["pass", "fail", "warn", "error"]),
          reason: z.string(),
          evidence: z.string().optional(),
          caseFile: z.string().optional(),
        }),
      )
      .optional(),
  })
  .superRefine((r, ctx) => {
    if (!r.stable && r.startedAt === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["startedAt"],
        message: "startedAt is required unless the results are stable",
      });
  });
export type Results = z.infer<typeof ResultsSchema>;
