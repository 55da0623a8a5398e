import type { Observation } from "../../model/evidence.ts";
import type { Era } from "../../protocol/eras.ts";
import { validateResult } from "../../validator/index.ts";
import type { RowRef } from "../attribution.ts";
import { describeDifferences, differences } from "../json-diff.ts";
import { type CheckContext, type CheckCounts, check, countedFrom, family, type Outcome } from "./check.ts";
import { requestEdit } from "./observed.ts";

/**
 * What a review question (the reference relay's review surface, or a broker's question as the profile points into
 * it) must show so that a person or agent can judge the request: which server asks, the system prompt, every
 * message's text (found by its canaried text wherever the surface put it, in array content and inside tool blocks
 * too), the full request, and an answer skeleton the reference validator accepts for that request — not `{}`. A
 * response question must show the model's response unchanged. Reasons quote what was (not) shown.
 *
 * Each check counts toward its own row: that a question was put to the person at all (`review-asked`) is the case's
 * own row's (a person who is never asked cannot deny); what a question shows counts toward the rows about what a
 * question shows only (SHOWN_ROWS), from whichever case it was seen in. A broker that shows no messages but honours
 * a denial passes sampling-human-in-loop-can-deny and fails sampling-app-review-ui.
 */

const MAX_QUOTE = 160;
function quote(value: unknown): string {
  const text = value === undefined ? "nothing" : JSON.stringify(value);
  return text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}…` : text;
}

/** Every string in a value, depth first. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** The texts a block carries: a text block's text, a tool_use's name and input strings, a tool_result's content. */
function blockTexts(block: unknown): string[] {
  if (block === null || typeof block !== "object") return [];
  const b = block as Record<string, unknown>;
  if (b.type === "text" && typeof b.text === "string") return [b.text];
  if (b.type === "tool_use") return [...(typeof b.name === "string" ? [b.name] : []), ...strings(b.input)];
  if (b.type === "tool_result") return contentTexts(b.content);
  return [];
}

function contentTexts(content: unknown): string[] {
  return (Array.isArray(content) ? content : [content]).flatMap(blockTexts);
}

/** Each message's texts, with where each is. */
function messageTexts(messages: unknown): Array<{ at: string; text: string }> {
  if (!Array.isArray(messages)) return [];
  return messages.flatMap((m, i) =>
    contentTexts((m as { content?: unknown } | null)?.content)
      .filter((text) => text !== "")
      .map((text) => ({ at: `message ${i + 1}`, text })),
  );
}

/** Where the question came from, for reasons: a broker's question keeps what it showed as `shown`. */
function surfaceOf(q: Record<string, unknown>): string {
  return "shown" in q ? "the broker" : "the review surface";
}

/** Why the field a broker profile points at was not shown, when it was not. */
function notShown(q: Record<string, unknown>, field: string): string | undefined {
  return (q.notShown as Record<string, string> | undefined)?.[field];
}

function requestProblems(q: Record<string, any>, sent: Record<string, unknown>, era: Era): string[] {
  const missing: string[] = [];
  const shown = differences(sent, q.request);
  if (shown.length > 0) {
    missing.push(
      `the full request (${notShown(q, "request") ?? `shown differs from the request sent: ${describeDifferences(shown, { sent: "sent", received: "shown" })}`})`,
    );
  }
  const skeleton = q.resultSkeleton;
  if (skeleton === undefined) {
    missing.push(`an answer skeleton (${notShown(q, "skeleton") ?? "none offered"})`);
  } else {
    const v = validateResult(skeleton, { era, request: sent });
    if (!v.legal) {
      const f = v.errors[0]!;
      missing.push(
        `an answer skeleton the reference validator accepts (offered ${quote(skeleton)}: ${f.rule} at ${f.pointer || "/"}: ${f.message})`,
      );
    }
  }
  return missing;
}

/** The problems of one question at `stage` against the request it is about (`shown`: sent, or the approved edit). */
function questionProblems(
  stage: "request" | "response",
  q: Record<string, any>,
  about: Record<string, unknown>,
  sent: Record<string, unknown>,
  o: Observation,
  era: Era,
): string[] {
  const missing: string[] = [];
  if (typeof q.server?.name !== "string" || q.server.name === "")
    missing.push(`which server asks (${notShown(q, "server") ?? `shown: ${quote(q.server)}`})`);
  const shownTexts = strings(q.show?.messages);
  const unseen = messageTexts(about.messages).filter(({ text }) => !shownTexts.some((s) => s.includes(text)));
  if (unseen.length > 0) {
    const which = unseen
      .slice(0, 3)
      .map(({ at, text }) => `${quote(text)} of ${at}`)
      .join(", ");
    const more = unseen.length > 3 ? ` and ${unseen.length - 3} more` : "";
    const what = notShown(q, "messages") ?? `messages shown: ${quote(q.show?.messages)}`;
    missing.push(`every message's text (not shown: ${which}${more}; ${what})`);
  }
  if (typeof about.systemPrompt === "string" && about.systemPrompt !== "") {
    const prompt = about.systemPrompt;
    if (!strings(q.show?.systemPrompt).some((s) => s.includes(prompt)))
      missing.push(
        `the system prompt (${quote(prompt)} not shown; ${notShown(q, "systemPrompt") ?? `shown: ${quote(q.show?.systemPrompt ?? null)}`})`,
      );
  }
  if (stage === "request") missing.push(...requestProblems(q, sent, era));
  else {
    const model = (o.modelAnswered as { result?: unknown } | undefined)?.result;
    const shown = model === undefined ? [] : differences(model, q.response);
    if (model === undefined || shown.length > 0)
      missing.push(
        `the model's response unchanged (${
          notShown(q, "response") ??
          (model === undefined
            ? `shown: ${quote(q.response)}`
            : `shown differs from the model's: ${describeDifferences(shown, { sent: "answered", received: "shown" })}`)
        })`,
      );
  }
  return missing;
}

type Stage = "request" | "response";

/**
 * The register rows about what a question shows, per stage (matrix/register.yaml): a request question is what the
 * person reviews (sampling-app-review-ui) and views before anything is sent (sampling-app-view-edit-prompts); a
 * response question is the review of the response (sampling-app-review-responses). The first row of a stage is where
 * a question seen in any other row's case counts. Not sampling-human-in-loop-can-deny nor
 * sampling-client-user-approval-controls: they are about the decision being honoured, not about what was shown.
 */
const SHOWN_COUNTS = {
  request: {
    rows: ["sampling-app-review-ui", "sampling-app-view-edit-prompts"],
    side: "client",
    credited: true,
  },
  response: { rows: ["sampling-app-review-responses"], side: "client", credited: true },
} as const satisfies Record<Stage, CheckCounts>;

export const SHOWN_ROWS: Readonly<Record<Stage, readonly string[]>> = {
  request: SHOWN_COUNTS.request.rows,
  response: SHOWN_COUNTS.response.rows,
};

/** The row a stage's `review-<stage>` check counts toward from a case of `cell` (undefined: the case's own). */
export function shownRowFor(stage: Stage, cell: RowRef | undefined): RowRef | undefined {
  return countedFrom(SHOWN_COUNTS[stage], cell);
}

/** The question put at the case's stage (`ctx.subject`), when one was. */
const questionAt = (ctx: CheckContext, stage: Stage) => (ctx.o.reviews ?? []).find((r) => r.stage === stage);

/**
 * What the question at `stage` showed (`review-<stage>`), counted toward SHOWN_ROWS: with `countsFor` when the case's
 * cell is another row, recorded there as info when it failed, and credited there when it held.
 */
function shown(ctx: CheckContext, stage: Stage): Outcome[] {
  const record = ctx.subject === stage ? questionAt(ctx, stage) : undefined;
  if (!record) return [];
  const o = ctx.o;
  const sent = (o.sent ?? {}) as Record<string, unknown>;
  const q = record.question as Record<string, any>;
  const where = surfaceOf(q);
  const about = stage === "request" ? sent : ((requestEdit(o) ?? sent) as Record<string, unknown>);
  const missing = questionProblems(stage, q, about, sent, o, ctx.era);
  const elsewhere = shownRowFor(stage, ctx.cell);
  const detail =
    missing.length === 0
      ? `${where} showed the ${stage} with the server, system prompt, messages and ${stage === "request" ? "an answer skeleton the validator accepts" : "the model's response"}`
      : `${where} showed the ${stage} without ${missing.join("; ")}`;
  // Counted under the row about what a question shows, held or not (a held one is credited there too).
  return [
    {
      ok: missing.length === 0,
      ...(elsewhere
        ? {
            ...(missing.length > 0 ? { level: "info" as const } : {}),
            countsFor: elsewhere,
            detail: `${detail} (counted under ${elsewhere.row}, ${elsewhere.side} side)`,
          }
        : { detail }),
    },
  ];
}

/**
 * Per stage a case says must have been reviewed (`reviewed:`, the family's subjects, in order): `review-asked` (the
 * question was put at all, the case's own row) and `review-<stage>` (what it showed).
 */
export const REVIEW = family({
  subjects: (ctx) => ctx.e.reviewed ?? [],
  checks: [
    check({
      id: "review-asked",
      proves:
        "the review surface (or broker) put the stage the case names (request, response) to the person at all",
      rule: "the case's own row (e.g. sampling-human-in-loop-can-deny: a person never asked cannot deny)",
      judge: (ctx) => {
        const stage = ctx.subject as Stage;
        const record = questionAt(ctx, stage);
        if (!record) {
          const asBroker = (ctx.o.reviews ?? []).some((r) => "shown" in r.question);
          const where = asBroker ? "the broker" : "the review surface";
          return [{ ok: false, detail: `${where} never showed the ${stage}` }];
        }
        const where = surfaceOf(record.question as Record<string, unknown>);
        return [{ ok: true, detail: `${where} put the ${stage} to the person answering` }];
      },
    }),
    check({
      id: "review-request",
      proves:
        "the review surface (or broker) showed the request with the server, system prompt, every message's text, the full request and an answer skeleton the validator accepts",
      rule: "sampling-app-review-ui (or sampling-app-view-edit-prompts in its own cases), from whichever case it was seen in",
      counts: SHOWN_COUNTS.request,
      judge: (ctx) => shown(ctx, "request"),
    }),
    check({
      id: "review-response",
      proves: "the review surface showed the model's response unchanged before delivery",
      rule: "sampling-app-review-responses, from whichever case it was seen in",
      counts: SHOWN_COUNTS.response,
      judge: (ctx) => shown(ctx, "response"),
    }),
  ],
});
