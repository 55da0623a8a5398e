import { ERAS, type Era } from "../protocol/eras.ts";
import type { Case } from "./case.ts";
import type { Register, RegisterRow } from "./register.ts";

/**
 * Consistency checks of the register against itself and the case corpus. Pure functions: the loaders
 * (load.ts) reject malformed files one at a time; these report every remaining problem at once.
 */

export type RegisterProblemKind =
  | "uncovered"
  | "na-with-cases"
  | "pending-with-cases"
  | "unknown-row"
  | "quote-era";

export interface RegisterProblem {
  kind: RegisterProblemKind;
  row: string;
  message: string;
}

/**
 * When an obligation first (or last) appears in the spec, recognised by the vocabulary of its quote. The rules
 * key on the feature a statement is about, not on its exact wording: a statement reworded in a later era for an
 * obligation that held before (stopReason's open string, "sample fewer tokens") keeps its earlier eras, with
 * `source` saying where each era words it. Statements that are new in an era (2026-07-28's role/content MUST,
 * retention, maxTokens) are listed by phrase.
 */
export interface QuoteEraRule {
  pattern: RegExp;
  from?: Era;
  until?: Era;
  what: string;
}

export const QUOTE_ERA_RULES: readonly QuoteEraRule[] = [
  {
    pattern: /audio/i,
    from: "2025-03-26",
    what: "audio content",
  },
  {
    pattern:
      /\btool[ _]?(use|result)|toolChoice|sampling\.tools|sampling\.context|-32602|tool loops|parallel tool use|outputSchema|\{mode: "/i,
    from: "2025-11-25",
    what: "tools in sampling, sub-capabilities and the -32602 error table (SEP-1577)",
  },
  {
    pattern: /task-augmentation|task capability|augment requests with a task/i,
    from: "2025-11-25",
    until: "2025-11-25",
    what: "task-augmented requests (moved to an extension in 2026-07-28)",
  },
  {
    pattern: /during\s+initialization|`initialized`\s+notification|return errors for common failure cases/i,
    until: "2025-11-25",
    what: "the initialize handshake and the sampling error list (both gone in 2026-07-28)",
  },
  {
    pattern:
      /(?<!soft-)\bdeprecated\b|\badopt it\b|inputRequests|inputResponses|InputRequiredResult|input_required|requestState|io\.modelcontextprotocol\/clientCapabilities|\bMRTR\b|MissingRequiredClientCapability|-32021/i,
    from: "2026-07-28",
    what: "deprecation, multi-round-trip requests and per-request capabilities",
  },
  {
    pattern:
      /Sampling messages\W+MUST\W+contain|SHOULD NOT\W+be retained|MUST\W+respect the `maxTokens`|modify or ignore `temperature`/,
    from: "2026-07-28",
    what: "statements new in 2026-07-28 (role/content MUST, no retention, maxTokens MUST, parameter MAY)",
  },
];

/** Eras a row lists although its quote's obligation does not exist in them. */
export function quoteEraProblems(row: Pick<RegisterRow, "id" | "quote" | "eras">): RegisterProblem[] {
  const problems: RegisterProblem[] = [];
  for (const rule of QUOTE_ERA_RULES) {
    if (!rule.pattern.test(row.quote)) continue;
    const outside = row.eras.filter((e) => (rule.from && e < rule.from) || (rule.until && e > rule.until));
    if (outside.length === 0) continue;
    const span = `${rule.from ?? ERAS[0]}..${rule.until ?? ERAS[ERAS.length - 1]}`;
    problems.push({
      kind: "quote-era",
      row: row.id,
      message: `lists ${outside.join(", ")}, but its quote is about ${rule.what}, which exists only in ${span}`,
    });
  }
  return problems;
}

/**
 * Every row must either have at least one case under cases/<row-id>/ or an `na` reason; a row with an `na`
 * reason has no cases; every case names a row of the register; no row lists an era its quote does not exist in.
 */
export function registerCoverageProblems(
  register: Register,
  cases: ReadonlyArray<Pick<Case, "row" | "id">>,
): RegisterProblem[] {
  const problems: RegisterProblem[] = [];
  const count = new Map<string, number>();
  const known = new Set(register.rows.map((r) => r.id));
  for (const c of cases) {
    if (!known.has(c.row)) {
      problems.push({
        kind: "unknown-row",
        row: c.row,
        message: `case '${c.id}' names a row the register does not have`,
      });
      continue;
    }
    count.set(c.row, (count.get(c.row) ?? 0) + 1);
  }
  for (const row of register.rows) {
    const n = count.get(row.id) ?? 0;
    if (row.na && n > 0)
      problems.push({
        kind: "na-with-cases",
        row: row.id,
        message: `is n/a for relays but has ${n} case(s)`,
      });
    if (row.pending && n > 0)
      problems.push({
        kind: "pending-with-cases",
        row: row.id,
        message: `is marked pending but has ${n} case(s): drop the pending reason`,
      });
    if (!row.na && !row.pending && n === 0)
      problems.push({
        kind: "uncovered",
        row: row.id,
        message: "has no case under cases/<row-id>/ and no na reason",
      });
    problems.push(...quoteEraProblems(row));
  }
  return problems;
}

/** One line per problem, for test failures and CLI output. */
export function formatProblems(problems: readonly RegisterProblem[]): string {
  return problems.map((p) => `${p.row}: ${p.message}`).join("\n");
}
