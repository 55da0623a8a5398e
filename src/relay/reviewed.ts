import type { Verdict } from "../validator/types.ts";
import type { WireError } from "./policy.ts";
import type { Decision, ReviewSurface } from "./review-surface.ts";

export const USER_REJECTED: WireError = { code: -1, message: "User rejected sampling request" };

/**
 * How the relay runs a review. The reference shows the request as it is, applies the reviewer's edit and
 * reviews every response; the deliberately broken review relays under targets/broken/ each replace one of these.
 */
export interface ReviewPolicy {
  /** What the question shows the reviewer of a request. */
  present(request: Record<string, unknown>): Record<string, unknown>;
  /** Whether an approved edit is what the model receives. */
  applyEdit: boolean;
  /** Whether the model's response is put in front of the reviewer before delivery. */
  reviewResponse: boolean;
  /** Whether an edited request is validated before it is accepted (an illegal edit keeps the question open). */
  checkEdits: boolean;
  /** Whether the model is asked while the request is still under review (speculatively, before any decision). */
  askModelFirst: boolean;
}

export const REFERENCE_REVIEW: ReviewPolicy = {
  present: (request) => request,
  applyEdit: true,
  reviewResponse: true,
  checkEdits: true,
  askModelFirst: false,
};

export interface ReviewedSamplingInput {
  surface: ReviewSurface;
  server: { name: string; version?: string };
  /** The request as the upstream sent it (already validated). */
  params: Record<string, unknown>;
  /** When the whole review must be over. */
  deadline: number;
  expired: WireError;
  /** Is a (possibly edited) request legal to send? */
  checkRequest: (params: unknown) => Verdict;
  /** Is a result legal as an answer to the upstream's request? */
  checkResult: (result: unknown) => Verdict;
  /** Asks the downstream model; null when no downstream declared sampling (the reviewer must answer). */
  askModel: ((params: Record<string, unknown>) => Promise<Record<string, unknown>>) | null;
  policy?: ReviewPolicy;
}

function problems(verdict: Verdict): string | null {
  if (verdict.legal) return null;
  return verdict.errors.map((f) => `${f.rule} at ${f.pointer || "/"}: ${f.message}`).join("; ");
}

/**
 * Human-in-the-loop sampling: the request is put in front of a reviewer, who may deny it, edit and approve it
 * (it then goes to the downstream model), or answer it; the model's response is put in front of the reviewer
 * again before it is delivered. Nothing is filled in: every edit and answer is validated, and an illegal one is
 * refused to the reviewer while the question stays open.
 */
export type ReviewOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; error: WireError };

export async function reviewedSampling(input: ReviewedSamplingInput): Promise<ReviewOutcome> {
  const { surface, params } = input;
  const policy = input.policy ?? REFERENCE_REVIEW;
  const checkDecision = (decision: Decision): string | null => {
    if (decision.kind === "answer") return problems(input.checkResult(decision.result));
    if (decision.kind === "approve" && decision.params && policy.checkEdits)
      return problems(input.checkRequest(decision.params));
    return null;
  };
  const early = policy.askModelFirst && input.askModel ? input.askModel(params) : undefined;
  early?.catch(() => undefined);
  const first = await surface.ask("request", {
    server: input.server,
    request: params,
    show: policy.present(params),
    deadline: input.deadline,
    check: (_stage, decision) => {
      if (decision.kind === "approve" && !input.askModel)
        return "no model is connected downstream: answer the request instead of approving it";
      return checkDecision(decision);
    },
  }).decision;
  if (!first) return { ok: false, error: input.expired };
  if (first.kind === "decline") return { ok: false, error: USER_REJECTED };
  if (first.kind === "answer") return { ok: true, result: first.result };
  const sent = (policy.applyEdit ? first.params : undefined) ?? params;
  const response = early && sent === params ? await early : await input.askModel!(sent);
  const legal = input.checkResult(response);
  if (!legal.legal) {
    return {
      ok: false,
      error: { code: -32603, message: `Invalid sampling result from the client: ${problems(legal)}` },
    };
  }
  if (!policy.reviewResponse) return { ok: true, result: response };
  const second = await surface.ask("response", {
    server: input.server,
    request: sent,
    response,
    deadline: input.deadline,
    check: (_stage, decision) => checkDecision(decision),
  }).decision;
  if (!second) return { ok: false, error: input.expired };
  if (second.kind === "decline") return { ok: false, error: USER_REJECTED };
  if (second.kind === "answer") return { ok: true, result: second.result };
  return { ok: true, result: response };
}
