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
 *
 * The sampling inputs of one round are reviewed side by side, as a person sees several open questions at once: each
 * approved one goes down to the model as soon as it is approved, batched with the others approved meanwhile into
 * one input_required round of the downstream's call, so a round of n inputs does not cost n model round trips.
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

/**
 * One reviewed call: the downstream request that waits for the relay's next word, the model questions approved
 * but not yet passed down (they go in the next input_required round), and a word said while no request waited.
 */
interface Conversation {
  waiting: ((reply: Reply) => void) | undefined;
  queued: ModelTurn[];
  unsaid: Reply | undefined;
}

/** A question for the model; once passed down, found by the relay's requestState of its round. */
interface ModelTurn {
  conversation: Conversation;
  key: string;
  params: Record<string, unknown>;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  settled: boolean;
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
  /** The model turns passed down in one input_required round, by that round's requestState. */
  private readonly turns = new Map<string, ModelTurn[]>();

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
    const conversation: Conversation = { waiting: undefined, queued: [], unsaid: undefined };
    const first = new Promise<Reply>((resolve) => {
      conversation.waiting = resolve;
    });
    void this.run(conversation, method, call, result, model).then(
      (reply) => this.tell(conversation, reply),
      (error) => this.tell(conversation, { error: failureOf(error) }),
    );
    return first;
  }

  /** The model's retry: its answers (an absent one is a decline) go on into their reviews. */
  resume(params: Record<string, unknown>): Promise<Reply> {
    const state = params.requestState as string;
    const turns = this.turns.get(state)!;
    this.turns.delete(state);
    const conversation = turns[0]!.conversation;
    const next = new Promise<Reply>((resolve) => {
      conversation.waiting = resolve;
    });
    const responses = isObject(params.inputResponses) ? params.inputResponses : {};
    for (const turn of turns) {
      if (turn.settled) continue;
      turn.settled = true;
      clearTimeout(turn.timer);
      if (Object.hasOwn(responses, turn.key)) {
        const answer = responses[turn.key];
        turn.resolve(isObject(answer) ? answer : ({ invalid: answer } as Record<string, unknown>));
      } else turn.reject(new Unanswered(USER_REJECTED));
    }
    // A word said while the model had the floor (the review ended), or questions approved meanwhile, go now.
    if (conversation.unsaid) {
      const reply = conversation.unsaid;
      conversation.unsaid = undefined;
      this.tell(conversation, reply);
    } else this.passDown(conversation);
    return next;
  }

  /** Says `reply` to the waiting downstream request, or keeps it for the next one (the model has the floor). */
  private tell(conversation: Conversation, reply: Reply): void {
    const waiting = conversation.waiting;
    conversation.waiting = undefined;
    if (waiting) waiting(reply);
    else conversation.unsaid = reply;
  }

  /** Every question approved and not yet passed down goes to the model in one input_required round. */
  private passDown(conversation: Conversation): void {
    if (!conversation.waiting || conversation.queued.length === 0) return;
    const turns = conversation.queued.filter((t) => !t.settled);
    conversation.queued = [];
    if (turns.length === 0) return;
    const { policy, name } = this.options;
    const state = `${name}.review.${randomUUID()}`;
    this.turns.set(state, turns);
    const inputRequests = Object.fromEntries(
      turns.map((t) => [t.key, { method: METHOD.createMessage, params: policy.rewriteRequest(t.params) }]),
    );
    this.tell(conversation, { result: { resultType: "input_required", inputRequests, requestState: state } });
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
      const sampling = Object.entries(requests).filter(
        (e): e is [string, Record<string, unknown>] => isObject(e[1]) && e[1].method === METHOD.createMessage,
      );
      // Side by side; the first refusal in key order ends the call once every review of the round has ended.
      const reviewed = await Promise.all(
        sampling.map(([key, request]) =>
          this.review(
            conversation,
            key,
            isObject(request.params) ? request.params : {},
            declared,
            isObject(model?.sampling),
          ),
        ),
      );
      const responses: Record<string, unknown> = {};
      for (const [i, outcome] of reviewed.entries()) {
        if (!outcome.ok) return { error: outcome.error };
        responses[sampling[i]![0]] = policy.rewriteResult(outcome.result);
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

  /** The model downstream is asked in an input_required round of its pending request (batched: see passDown). */
  private askModel(
    conversation: Conversation,
    key: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const { policy, answerTimeoutMs } = this.options;
    return new Promise((resolve, reject) => {
      const turn: ModelTurn = {
        conversation,
        key,
        params,
        resolve,
        reject,
        settled: false,
        timer: setTimeout(() => {
          turn.settled = true;
          reject(new Unanswered(policy.expired(answerTimeoutMs)));
        }, answerTimeoutMs),
      };
      conversation.queued.push(turn);
      this.passDown(conversation);
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
