import type { CellSide } from "../model/register.ts";
import { type Era, eraAtLeast } from "../protocol/eras.ts";
import { validateRequest, validateResult } from "../validator/index.ts";
import type { SamplingCapabilities } from "../validator/types.ts";

/**
 * What a validation case covers: where in the request its violation sits (the first, a middle or the last message)
 * and inside which content type. The #256 row `sampling-both-validate-message-content` is credited only when its
 * cases together cover every message-index class and every content type of the era, so a relay that checks only
 * messages[0], or skips image blocks, cannot pass it on a corpus that never looks there.
 */
export interface Coverage {
  indexes: string[];
  contentTypes: string[];
}

export const COVERAGE_ROW = "sampling-both-validate-message-content";

/** The content block types an era has (tool blocks from 2025-11-25, audio from 2025-03-26). */
export function contentTypesOf(era: Era): string[] {
  const types = ["text", "image"];
  if (eraAtLeast(era, "2025-03-26")) types.push("audio");
  if (eraAtLeast(era, "2025-11-25")) types.push("tool_use", "tool_result");
  return types;
}

/** What the cases of a cell must cover together: requests (client side) by index and type, results by type. */
export function requiredCoverage(era: Era, side: CellSide): Coverage {
  if (side === "client") return { indexes: ["first", "middle", "last"], contentTypes: contentTypesOf(era) };
  // A result is one message; tool_result blocks belong to requests.
  return { indexes: [], contentTypes: contentTypesOf(era).filter((t) => t !== "tool_result") };
}

const asObject = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** The content block a pointer points into (`…/content` or `…/content/N`), when it points inside one. */
function blockTypeAt(message: unknown, rest: string[]): string | undefined {
  const m = asObject(message);
  if (!m || rest[0] !== "content" || rest.length < 2) return undefined;
  const content = m.content;
  if (Array.isArray(content)) {
    const block = asObject(content[Number(rest[1])]);
    return rest.length >= 3 && typeof block?.type === "string" ? block.type : undefined;
  }
  const block = asObject(content);
  return typeof block?.type === "string" ? block.type : undefined;
}

function indexClass(index: number, count: number): string {
  if (index === 0) return "first";
  return index === count - 1 ? "last" : "middle";
}

/** Where the violations of a validation case sit, per the reference validator. */
export function violationCoverage(
  side: CellSide,
  era: Era,
  sent: unknown,
  answerResult: unknown,
  capabilities: SamplingCapabilities | undefined,
): Coverage {
  const indexes = new Set<string>();
  const contentTypes = new Set<string>();
  if (side === "client") {
    const verdict = validateRequest(sent, capabilities ? { era, capabilities } : { era });
    const messages = asObject(sent)?.messages;
    for (const f of verdict.errors) {
      const parts = f.pointer.split("/").slice(1);
      if (parts[0] !== "messages" || !Array.isArray(messages) || parts.length < 2) continue;
      const index = Number(parts[1]);
      if (!Number.isInteger(index)) continue;
      indexes.add(indexClass(index, messages.length));
      const type = blockTypeAt(messages[index], parts.slice(2));
      if (type) contentTypes.add(type);
    }
  } else {
    const verdict = validateResult(answerResult, { era, request: sent });
    for (const f of verdict.errors) {
      const type = blockTypeAt(answerResult, f.pointer.split("/").slice(1));
      if (type) contentTypes.add(type);
    }
  }
  return { indexes: [...indexes], contentTypes: [...contentTypes] };
}

/** What the cases together leave uncovered, as a sentence, or undefined when nothing is missing. */
export function missingCoverage(required: Coverage, covered: Coverage[]): string | undefined {
  const has = (k: keyof Coverage, v: string) => covered.some((c) => c[k].includes(v));
  const indexes = required.indexes.filter((i) => !has("indexes", i));
  const types = required.contentTypes.filter((t) => !has("contentTypes", t));
  if (indexes.length === 0 && types.length === 0) return undefined;
  const parts = [
    indexes.length ? `no case puts a violation at the ${indexes.join(", ")} message` : "",
    types.length ? `none inside a block of type ${types.join(", ")}` : "",
  ].filter(Boolean);
  return `partly exercised: ${parts.join("; ")} (a relay that checks only some positions or block types would pass)`;
}
