import type { Era } from "../protocol/eras.ts";
import {
  CHANNEL_CODE,
  type Channel,
  codeFor,
  REFUSED_SHOULD,
  RULES,
  type RuleId,
  sourceFor,
} from "./rules.ts";
import type { Finding, Verdict } from "./types.ts";

/** RFC 6901 escaping of one reference token. */
export function escapeToken(token: string | number): string {
  const s = String(token);
  return s.includes("~") || s.includes("/") ? s.replace(/~/g, "~0").replace(/\//g, "~1") : s;
}

/** RFC 6901 pointer from a path ("" for the root). */
export function pointerOf(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const p of path) out += `/${escapeToken(typeof p === "symbol" ? String(p) : p)}`;
  return out;
}

/** Collects findings for one validation; `prefix` is prepended to every pointer. */
export class Collector {
  constructor(
    readonly era: Era,
    readonly channel: Channel,
    readonly prefix = "",
    readonly errors: Finding[] = [],
    readonly warnings: Finding[] = [],
  ) {}

  /** A collector writing into the same lists, for a value nested at `pointer` (already escaped). */
  at(pointer: string, channel: Channel = this.channel): Collector {
    return new Collector(this.era, channel, this.prefix + pointer, this.errors, this.warnings);
  }

  add(rule: RuleId, pointer: string, message: string): void {
    const info = RULES[rule];
    const finding: Finding = {
      rule,
      pointer: this.prefix + pointer,
      level: info.level,
      message,
      code: codeFor(rule, this.channel),
      source: sourceFor(rule, this.era),
    };
    (info.level === "MUST" ? this.errors : this.warnings).push(finding);
  }

  /** How many findings there are so far, for `rollback`. */
  mark(): { errors: number; warnings: number } {
    return { errors: this.errors.length, warnings: this.warnings.length };
  }

  /** Drops the findings added since `mark` (a tentative pass that is redone). */
  rollback(mark: { errors: number; warnings: number }): void {
    this.errors.length = mark.errors;
    this.warnings.length = mark.warnings;
  }

  verdict(): Verdict {
    const first = this.errors[0];
    return {
      legal: this.errors.length === 0,
      errors: this.errors,
      warnings: this.warnings,
      code: first ? first.code : null,
    };
  }
}

/**
 * The verdict a relay acts on: the warnings of REFUSED_SHOULD rules count as errors too (after the MUST-level ones,
 * with the request channel's code, -32602). The same verdict when there are none.
 */
export function refusalVerdict(verdict: Verdict): Verdict {
  const refused = verdict.warnings.filter((f) => REFUSED_SHOULD.has(f.rule as RuleId));
  if (refused.length === 0) return verdict;
  const errors = [...verdict.errors, ...refused.map((f) => ({ ...f, code: CHANNEL_CODE.request }))];
  return {
    legal: false,
    errors,
    warnings: verdict.warnings.filter((f) => !refused.includes(f)),
    code: errors[0]!.code,
  };
}
