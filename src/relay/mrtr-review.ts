import { randomUUID } from "node:crypto";
import { MRTR_ERA } from "../protocol/eras.ts";
import { isObject, METHOD } from "../protocol/wire.ts";
import type { SamplingCapabilities } from "../validator/types.ts";
import { Unanswered, WireFailure } from "./failure.ts";
import { checkInputRequests } from "./inputs.ts";
import type { Reply } from "./link.ts";
import type { RelayPolicy } from "./policy.ts";
import type { ReviewSurface } from "./review-surface.ts";
import { REFERENCE_REVIEW, type ReviewPolicy, reviewedSampling, USER_REJECTED } from "./reviewed.ts";

/**
 * The review surface on the relay's 2026-07-28 path: the same review as on the legacy path (src/relay/reviewed.ts:
 * the request in front of a person, who may deny it, edit and approve it, or answer it; the model's response in
 * front of the person again before delivery). The model downstream is a 2026-07-28 client, so asking it is an
 * `input_required` round of its own call carrying the (edited) request under the relay's `requestState`, and its
 * answer arrives in the retry's `inputResponses`. What the review ends with goes up in the relay's retry of the
 * upstream's call (`inputResponses[key]`, the upstream's `requestState` echoed); a denial at either stage, or a
 * review that expires, is an absent input: nothing goes up, and the downstream's pending request gets the error
 * (-1 for a denial, -32603 naming expiry).
 */

/** Input rounds one reviewed call may go through. */
const MAX_ROUNDS = 8;

const LEGAL = { legal: true, errors: [], warnings: [], code: null };

export interface ModernReview {
  surface: ReviewSurface;
  /** How long a reviewed question may stay undecided. */
  timeoutMs: number;
  policy?: ReviewPolicy;
}

/** One reviewed call: the downstream request that waits for the relay's next word. */
interface Conversation {
  waiting: ((reply: Reply) => void) | undefined;
}

/** A question passed down to the model, by the relay's requestState. */
interface ModelTurn {
  conversation: Conversation;
  key: string;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export interface ReviewedRoundsOptions {
  review: ModernReview;
  policy: RelayPolicy;
  answerTimeoutMs: number;
  name: string;
  /** Sends a request upstream. */
  forward: (method: string, params: unknown) => Promise<Reply>;
}

export class ReviewedRounds {
  private readonly turns = new Map<string, ModelTurn>();

  constructor(private readonly options: ReviewedRoundsOptions) {}

  /** Whether a downstream retry answers a round this review passed down. */
  owns(params: unknown): boolean {
    return isObject(params) && typeof params.requestState === "string" && this.turns.has(params.requestState);
  }

  /**
   * An upstream's input_required round (already checked), reviewed; resolves with what the downstream request
   * gets first (the model's round, or the end of the review).
   */
  start(
    method: string,
    call: Record<string, unknown>,
    result: Record<string, unknown>,
    model: SamplingCapabilities | undefined,
  ): Promise<Reply> {
    const conversation: Conversation = { waiting: undefined };
    const first = new Promise<Reply>((resolve) => {
      conversation.waiting = resolve;
    });
    void this.run(conversation, method, call, result, model).then(
      (reply) => this.tell(conversation, reply),
      (error) => this.tell(conversation, { error: failureOf(error) }),
    );
    return first;
  }

  /** The model's retry: its answer (or its absence: a decline) goes on into the review. */
  resume(params: Record<string, unknown>): Promise<Reply> {
    const state = params.requestState as string;
    const turn = this.turns.get(state)!;
    this.turns.delete(state);
    clearTimeout(turn.timer);
    const next = new Promise<Reply>((resolve) => {
      turn.conversation.waiting = resolve;
    });
    const responses = params.inputResponses;
    if (isObject(responses) && Object.hasOwn(responses, turn.key)) {
      const answer = responses[turn.key];
      turn.resolve(isObject(answer) ? answer : ({ invalid: answer } as Record<string, unknown>));
    } else turn.reject(new Unanswered(USER_REJECTED));
    return next;
  }

  private tell(conversation: Conversation, reply: Reply): void {
    const waiting = conversation.waiting;
    conversation.waiting = undefined;
    waiting?.(reply);
  }

  private async run(
    conversation: Conversation,
    method: string,
    call: Record<string, unknown>,
    first: Record<string, unknown>,
    model: SamplingCapabilities | undefined,
  ): Promise<Reply> {
    const { policy, forward } = this.options;
    const declared: SamplingCapabilities = { ...(model ?? {}), sampling: model?.sampling ?? {} };
    let result = first;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const requests = isObject(result.inputRequests) ? result.inputRequests : {};
      const responses: Record<string, unknown> = {};
      for (const [key, request] of Object.entries(requests)) {
        if (!isObject(request) || request.method !== METHOD.createMessage) continue;
        const params = isObject(request.params) ? request.params : {};
        const reviewed = await this.review(conversation, key, params, declared, isObject(model?.sampling));
        if (!reviewed.ok) return { error: reviewed.error };
        responses[key] = policy.rewriteResult(reviewed.result);
      }
      const retry: Record<string, unknown> = { ...call, inputResponses: responses };
      if (Object.hasOwn(result, "requestState")) retry.requestState = result.requestState;
      const reply = await forward(method, retry);
      if (!("result" in reply) || reply.result.resultType !== "input_required") return reply;
      const refusal = checkInputRequests(policy, reply.result.inputRequests, declared);
      if (refusal) return { error: refusal };
      result = reply.result;
    }
    return { error: { code: -32603, message: `The server asked for input more than ${MAX_ROUNDS} times` } };
  }

  private review(
    conversation: Conversation,
    key: string,
    params: Record<string, unknown>,
    declared: SamplingCapabilities,
    modelConnected: boolean,
  ) {
    const { review, policy } = this.options;
    return reviewedSampling({
      surface: review.surface,
      server: { name: "upstream" },
      params,
      deadline: Date.now() + review.timeoutMs,
      expired: policy.expired(review.timeoutMs),
      policy: review.policy ?? REFERENCE_REVIEW,
      checkRequest: (p) => policy.checkRequest(p, { era: MRTR_ERA, capabilities: declared }) ?? LEGAL,
      checkResult: (r) => policy.checkResult(r, { era: MRTR_ERA, request: params }) ?? LEGAL,
      askModel: modelConnected
        ? (p) =>
            this.askModel(
              conversation,
              key,
              policy.fitForDownstream(p, { era: MRTR_ERA, capabilities: declared }),
            )
        : null,
    });
  }

  /** The model downstream is asked in an input_required round of its pending request. */
  private askModel(
    conversation: Conversation,
    key: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const { policy, answerTimeoutMs, name } = this.options;
    const state = `${name}.review.${randomUUID()}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.turns.delete(state);
        reject(new Unanswered(policy.expired(answerTimeoutMs)));
      }, answerTimeoutMs);
      this.turns.set(state, { conversation, key, resolve, reject, timer });
      this.tell(conversation, {
        result: {
          resultType: "input_required",
          inputRequests: { [key]: { method: METHOD.createMessage, params: policy.rewriteRequest(params) } },
          requestState: state,
        },
      });
    });
  }
}

function failureOf(error: unknown) {
  if (error instanceof WireFailure) return error.wire;
  return {
    code: -32603,
    message: `Review failed: ${error instanceof Error ? error.message : String(error)}`,
  };
}
