import { z } from "zod";
import { ERAS } from "../protocol/eras.ts";

export const EraSchema = z.enum(ERAS);
export const SideSchema = z.enum(["client", "server", "both", "intermediary"]);
/** The relay's role a cell judges: as the upstream's client, as the downstream's server, or as a bridge. */
export const CellSideSchema = z.enum(["client", "server", "intermediary"]);
export type CellSide = z.infer<typeof CellSideSchema>;

export const LevelSchema = z.enum(["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY", "schema", "should"]);

/**
 * How a miss is reported. Default follows the keyword (MUST/schema → failure, SHOULD/MAY → warning);
 * a row may raise a SHOULD to failure when a tracking issue makes it an acceptance criterion.
 */
export const SeveritySchema = z.enum(["failure", "warning"]);
export type Severity = z.infer<typeof SeveritySchema>;

export const RegisterRowSchema = z
  .object({
    id: z.string().regex(/^sampling-[a-z0-9-]+$/, "a kebab-case id starting with 'sampling-'"),
    title: z.string().min(1),
    side: SideSchema,
    level: LevelSchema,
    severity: SeveritySchema.optional(),
    severityWhy: z.string().optional(),
    eras: z.array(EraSchema).min(1),
    quote: z.string().min(1),
    url: z.string().url(),
    /** Per-era quote locations, when the quote is not the same everywhere. */
    source: z.string().optional(),
    /**
     * For rows the spec implies rather than states for a relay (intermediary rows, derived levels): how the
     * relay's obligation follows from the quoted statement.
     */
    derivation: z.string().min(1).optional(),
    tracking: z.array(z.string()).optional(),
    /** Present when the row does not apply to relays: the reason. */
    na: z.string().min(1).optional(),
    /**
     * A testable row that no case covers yet, and what the harness lacks to cover it. Its cells are `not-run`
     * with this reason: a known coverage gap of this tool, never a pass.
     */
    pending: z.string().min(1).optional(),
    note: z.string().optional(),
  })
  .strict();
export type RegisterRow = z.infer<typeof RegisterRowSchema>;

export const RegisterSchema = z.object({ rows: z.array(RegisterRowSchema).min(1) }).strict();
export type Register = z.infer<typeof RegisterSchema>;

export function rowSeverity(row: RegisterRow): Severity {
  if (row.severity) return row.severity;
  return row.level === "MUST" || row.level === "MUST NOT" || row.level === "schema" ? "failure" : "warning";
}

/** The cell sides a row produces. */
export function rowCellSides(row: RegisterRow): CellSide[] {
  if (row.side === "both") return ["client", "server"];
  return [row.side];
}
