import { z } from "zod";
import { CREDITED_CHECKS } from "../judge/checks/index.ts";
import { CellSideSchema, EraSchema } from "../model/register.ts";
import { CellStatusSchema } from "../model/results.ts";
import { ERAS, type Era, isEra } from "../protocol/eras.ts";

/**
 * Tracking issues as data: one file per issue under matrix/tracking/, mapping each acceptance bullet to the
 * register rows (and optionally cases) whose results decide it. Adding a tracking issue is adding a file.
 */

/** `owner/repo#N`. */
export const IssueRefSchema = z
  .string()
  .regex(/^[A-Za-z0-9][\w.-]*\/[\w.-]+#\d+$/, "an issue reference owner/repo#N");

const RowRefObject = z
  .object({
    row: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "a register row id"),
    /** Eras that must have been run; default the register row's eras. */
    eras: z.array(EraSchema).min(1).optional(),
    /** Sides that must have been run; default the register row's sides. */
    sides: z.array(CellSideSchema).min(1).optional(),
    /** Case id patterns (`*` matches any run of characters); when set, only these cases decide. */
    cases: z.array(z.string().min(1)).min(1).optional(),
  })
  .strict();

/** `row` or `row@era` as a shorthand for `{row, eras: [era]}`. */
const RowRefShorthand = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]*(@\d{4}-\d{2}-\d{2})?$/, "ROW or ROW@ERA")
  .refine((s) => !s.includes("@") || isEra(s.slice(s.indexOf("@") + 1)), `an era of ${ERAS.join(", ")}`)
  .transform((s) => {
    const at = s.indexOf("@");
    return at < 0 ? { row: s } : { row: s.slice(0, at), eras: [s.slice(at + 1) as Era] };
  });

export const RowRefSchema = z.union([RowRefShorthand, RowRefObject]);
export type RowRef = z.infer<typeof RowRefObject>;

export const BulletSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "a kebab-case id"),
    /** The acceptance bullet as the issue words it. */
    text: z.string().min(1),
    rows: z.array(RowRefSchema).min(1),
    /** Cell statuses that count as met (for refs without `cases`); default [pass]. */
    accept: z.array(CellStatusSchema).min(1).optional(),
    /** all (default): every ref must be met; any: one met ref is enough. */
    match: z.enum(["all", "any"]).optional(),
    /**
     * Check ids the bullet rests on instead of cell statuses (those results.json keeps with each case result,
     * `checks`: what a review question showed, `review-request`, `review-response`): met when, in every era of its
     * rows, such a check ran in a case of their cells (the row's own, or another row's counted toward it) and every
     * one that ran held. Cases that did not run against the target neither meet nor fail it.
     */
    checks: z
      .array(
        z.string().refine((id) => (CREDITED_CHECKS as readonly string[]).includes(id), {
          message: `a check results.json keeps with its case results (${CREDITED_CHECKS.join(", ")})`,
        }),
      )
      .min(1)
      .optional(),
    note: z.string().optional(),
  })
  .strict();
export type Bullet = z.infer<typeof BulletSchema>;

export const TrackingIssueSchema = z
  .object({
    issue: IssueRefSchema,
    title: z.string().min(1),
    url: z.string().url().optional(),
    bullets: z.array(BulletSchema).min(1),
  })
  .strict()
  .superRefine((t, ctx) => {
    const seen = new Set<string>();
    t.bullets.forEach((b, i) => {
      if (seen.has(b.id))
        ctx.addIssue({
          code: "custom",
          path: ["bullets", i, "id"],
          message: `duplicate bullet id '${b.id}'`,
        });
      seen.add(b.id);
    });
  });
export type TrackingIssue = z.infer<typeof TrackingIssueSchema>;

/** The file name a tracking issue lives in: `dezren39/darwin-nix#256` → `dezren39-darwin-nix-256.yaml`. */
export function trackingFileName(ref: string): string {
  return `${ref.replace(/[/#]/g, "-")}.yaml`;
}

/**
 * Picks the tracking issue for `--issue REF` from the loaded registry (every file of matrix/tracking/, in
 * file-name order); without a ref, the first. Returns undefined when none matches.
 */
export function selectTracking<T extends { issue: TrackingIssue }>(
  registry: readonly T[],
  ref?: string,
): T | undefined {
  if (ref === undefined) return registry[0];
  const wanted = ref.trim().toLowerCase();
  return registry.find((t) => t.issue.issue.toLowerCase() === wanted);
}

/** `*` globs over case ids. */
export function caseMatches(patterns: readonly string[], id: string): boolean {
  return patterns.some((p) => {
    const re = new RegExp(
      `^${p
        .split("*")
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
    );
    return re.test(id);
  });
}
