/**
 * The tool-loop rules of 2025-11-25+ (sampling.mdx "Tool Result Messages", "Tool Use and Result Balance"), in
 * one linear pass over the messages: O(total blocks) time, one small Map/Set per tool round, no re-scans.
 * Works on the raw input, so it tolerates values that already failed their schema (those are reported by the
 * schema pass; here they are skipped).
 *
 * Decisions where the spec is open (also in the rule catalogue):
 * - Matching is per pair and immediate: the tool_results for an assistant message's tool_use blocks sit in the
 *   very next message, which is a user message; ids match as sets (every tool_use answered, no extra result).
 * - A request whose last message is an assistant tool_use message is a violation (message.tool-result-missing).
 * - Duplicate tool_use ids in one message, or two tool_results for one id, are violations
 *   (message.duplicate-tool-id). The same id in a later round is legal.
 * - A tool_result in a message not immediately preceded by an assistant tool_use message is a violation
 *   (message.tool-result-unmatched); so is a tool_result held by an assistant message.
 * - A tool_use in a user message is a SHOULD warning (message.tool-use-role) and needs no answer.
 */
import type { Collector } from "./findings.ts";
import type { StructuredResult } from "./output-schema.ts";
import { isJsonObject } from "./schemas.ts";

/** Pointer of block j of a message's content (`content` itself when it is a single block). */
function blockPointer(messagePtr: string, isArray: boolean, j: number): string {
  return isArray ? `${messagePtr}/content/${j}` : `${messagePtr}/content`;
}

function blockAt(content: unknown, isArray: boolean, j: number): unknown {
  return isArray ? (content as unknown[])[j] : content;
}

function typeOf(block: unknown): unknown {
  return isJsonObject(block) ? block.type : undefined;
}

/**
 * Checks the tool loop of `messages` (the value of params.messages). `base` is the pointer of the array.
 */
export function checkToolLoop(
  messages: readonly unknown[],
  out: Collector,
  base = "/messages",
  notesStructured = true,
): ToolLoop {
  const loop = new ToolLoop(out, base, notesStructured);
  for (let i = 0; i < messages.length; i++) loop.visit(messages[i], i);
  loop.end();
  return loop;
}

/**
 * The same pass one message at a time, so the validator can run it inside the structural pre-check's own walk
 * (each message is read once while it is in cache). `visit` must be called for messages 0, 1, 2… in order, then
 * `end`. Allocates nothing per message on a legal loop but for the id Map/Set of each round; pointers are built
 * only for findings.
 */
export class ToolLoop {
  /** The previous message's tool_use ids (id → block index), when it was an assistant message holding any. */
  private pending: Map<string, number> | null = null;
  private pendingIndex = -1;
  private pendingIsArray = false;
  private pendingContent: unknown;
  /**
   * The tool_results carrying structuredContent that answer a tool_use, with the tool_use's name, for the
   * outputSchema rule (output-schema.ts); null while there are none (nothing is allocated for them).
   */
  structured: StructuredResult[] | null = null;

  constructor(
    private readonly out: Collector,
    private readonly base = "/messages",
    /**
     * Whether to note structuredContent at all: only when some tool has an outputSchema. Noted results live for
     * the whole pass, so on a long loop they would outlive the young generation and cost garbage collections.
     */
    private readonly notesStructured = true,
  ) {}

  // Long: the tool-loop rules share one message's state (pending ids, first result/other block); split, they re-read it.
  visit(m: unknown, i: number): void {
    const out = this.out;
    const pending = this.pending;
    const role = isJsonObject(m) ? m.role : undefined;
    const content = isJsonObject(m) ? m.content : undefined;
    const isArray = Array.isArray(content);
    const n = isArray ? (content as unknown[]).length : isJsonObject(content) ? 1 : 0;
    const answers = pending !== null && role === "user";
    const matched: Set<string> | null = answers ? new Set() : null;

    let next: Map<string, number> | null = null;
    let firstOther = -1;
    let firstResult = -1;
    for (let j = 0; j < n; j++) {
      const block = blockAt(content, isArray, j);
      const type = typeOf(block);
      if (type === "tool_result") {
        if (firstResult < 0) firstResult = j;
        const id = (block as Record<string, unknown>).toolUseId;
        if (typeof id !== "string") continue; // schema pass reports it
        if (matched && pending!.has(id)) {
          if (matched.has(id)) {
            out.add(
              "message.duplicate-tool-id",
              `${blockPointer(this.ptr(i), isArray, j)}/toolUseId`,
              `a second tool_result answers tool_use ${JSON.stringify(id)}`,
            );
          } else {
            matched.add(id);
            if (this.notesStructured)
              this.noteStructured(block as Record<string, unknown>, i, isArray, j, pending!.get(id)!);
          }
        } else {
          out.add(
            "message.tool-result-unmatched",
            `${blockPointer(this.ptr(i), isArray, j)}/toolUseId`,
            pending === null
              ? `tool_result ${JSON.stringify(id)} does not follow an assistant message with tool_use blocks`
              : role !== "user"
                ? `tool_result ${JSON.stringify(id)} is in a ${describeRole(role)} message; results go in the user message that follows the tool_use`
                : `tool_result ${JSON.stringify(id)} matches no tool_use of the previous message (${this.ptr(this.pendingIndex)})`,
          );
        }
      } else {
        if (firstOther < 0) firstOther = j;
        if (type === "tool_use") {
          const id = (block as Record<string, unknown>).id;
          if (role === "assistant") {
            if (typeof id !== "string") continue;
            next ??= new Map();
            if (next.has(id)) {
              out.add(
                "message.duplicate-tool-id",
                `${blockPointer(this.ptr(i), isArray, j)}/id`,
                `tool_use id ${JSON.stringify(id)} repeats block ${next.get(id)} of the same message`,
              );
            } else {
              next.set(id, j);
            }
          } else if (role === "user") {
            out.add(
              "message.tool-use-role",
              blockPointer(this.ptr(i), isArray, j),
              "tool_use in a user message: tool use requests come from the assistant",
            );
          }
        }
      }
    }

    if (role === "user" && firstResult >= 0 && firstOther >= 0) {
      out.add(
        "message.tool-result-only",
        blockPointer(this.ptr(i), isArray, firstOther),
        `a user message with tool_result blocks holds a ${describeType(typeOf(blockAt(content, isArray, firstOther)))} block too; it must hold only tool_results`,
      );
    }

    if (pending) {
      for (const [id, j] of pending) {
        if (matched?.has(id)) continue;
        out.add(
          "message.tool-result-missing",
          `${blockPointer(this.ptr(this.pendingIndex), this.pendingIsArray, j)}`,
          role === "user"
            ? `tool_use ${JSON.stringify(id)} has no tool_result in the next message (${this.ptr(i)})`
            : `tool_use ${JSON.stringify(id)} is followed by a ${describeRole(role)} message (${this.ptr(i)}), not by a user message of tool_results`,
        );
      }
    }

    this.pending = next;
    this.pendingIndex = i;
    this.pendingIsArray = isArray;
    this.pendingContent = content;
  }

  /** After the last message: a tool_use round left open is unanswered. */
  end(): void {
    if (!this.pending) return;
    for (const [id, j] of this.pending) {
      this.out.add(
        "message.tool-result-missing",
        blockPointer(this.ptr(this.pendingIndex), this.pendingIsArray, j),
        `tool_use ${JSON.stringify(id)} is not answered: the request ends with this assistant message`,
      );
    }
  }

  /** A matched tool_result with structuredContent: noted with the answered tool_use's name (output-schema.ts). */
  private noteStructured(
    block: Record<string, unknown>,
    i: number,
    isArray: boolean,
    j: number,
    use: number,
  ): void {
    if (block.structuredContent === undefined) return;
    const useBlock = blockAt(this.pendingContent, this.pendingIsArray, use) as Record<string, unknown>;
    if (this.structured === null) this.structured = [];
    this.structured.push({
      pointer: blockPointer(this.ptr(i), isArray, j),
      tool: useBlock.name,
      value: block.structuredContent,
    });
  }

  private ptr(i: number): string {
    return `${this.base}/${i}`;
  }
}

function describeRole(role: unknown): string {
  return typeof role === "string" ? JSON.stringify(role) : "role-less";
}

function describeType(type: unknown): string {
  return typeof type === "string" ? JSON.stringify(type) : "non-tool_result";
}

/** What a result's content holds, for the result-vs-request rules. One pass over the blocks. */
export interface ContentFacts {
  /** Pointers of the tool_use blocks. */
  toolUses: string[];
  firstResult: number;
  firstOther: number;
  isArray: boolean;
}

/**
 * Scans a result's content once: collects its tool_use blocks and reports duplicate tool_use ids and (for a
 * user-role result) tool_results mixed with other content.
 */
export function scanResultContent(result: Record<string, unknown>, out: Collector): ContentFacts {
  const content = result.content;
  const isArray = Array.isArray(content);
  const n = isArray ? (content as unknown[]).length : isJsonObject(content) ? 1 : 0;
  const facts: ContentFacts = { toolUses: [], firstResult: -1, firstOther: -1, isArray };
  let ids: Set<string> | null = null;
  for (let j = 0; j < n; j++) {
    const block = blockAt(content, isArray, j);
    const type = typeOf(block);
    const ptr = isArray ? `/content/${j}` : "/content";
    if (type === "tool_result") {
      if (facts.firstResult < 0) facts.firstResult = j;
      continue;
    }
    if (facts.firstOther < 0) facts.firstOther = j;
    if (type !== "tool_use") continue;
    facts.toolUses.push(ptr);
    const id = (block as Record<string, unknown>).id;
    if (typeof id !== "string") continue;
    ids ??= new Set();
    if (ids.has(id)) {
      out.add(
        "message.duplicate-tool-id",
        `${ptr}/id`,
        `tool_use id ${JSON.stringify(id)} appears twice in the result`,
      );
    } else {
      ids.add(id);
    }
  }
  if (result.role === "user" && facts.firstResult >= 0 && facts.firstOther >= 0) {
    out.add(
      "message.tool-result-only",
      isArray ? `/content/${facts.firstOther}` : "/content",
      "a user-role result with tool_result blocks holds other blocks too; it must hold only tool_results",
    );
  }
  return facts;
}
