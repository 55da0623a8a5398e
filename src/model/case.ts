import { z } from "zod";
import { CellSideSchema, EraSchema, SeveritySchema } from "./register.ts";

/**
 * A conformance case: pure data (YAML under cases/<row-id>/). The upstream sends `request` as the params
 * of sampling/createMessage; the answerer, if asked, does what `answer` says; `expect` lists the acceptable
 * outcomes at the upstream (any one of them passes).
 *
 * Strings may contain `{{canary}}`: each case × era run replaces it with a unique token so that what
 * reaches either end can be traced to the exact case that sent it.
 */

const JsonObject = z.record(z.string(), z.unknown());

export const AnswerSchema = z
  .discriminatedUnion("action", [
    z
      .object({
        action: z.literal("accept"),
        result: JsonObject,
        /** A slow person: answer only after this many milliseconds. */
        delayMs: z.number().int().positive().max(60_000).optional(),
        /**
         * A slow person relative to the target's own deadline: answer after this fraction of the profile's
         * answerTimeoutMs (timing cases take their delays from the profile, so an honest short deadline passes).
         */
        delayOfAnswerTimeout: z.number().positive().lt(1).optional(),
      })
      .strict()
      .refine((a) => a.delayMs === undefined || a.delayOfAnswerTimeout === undefined, {
        message: "give delayMs or delayOfAnswerTimeout, not both",
      }),
    /** The person/agent says no: legacy eras answer with an error (default -1), 2026-07-28 omits the input. */
    z
      .object({
        action: z.literal("decline"),
        error: z.object({ code: z.number().int(), message: z.string() }).strict().optional(),
      })
      .strict(),
    /** Answer with a raw JSON-RPC error of the case's choosing. */
    z
      .object({
        action: z.literal("error"),
        error: z
          .object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() })
          .strict(),
      })
      .strict(),
    /** Never answer: the relay's own deadline must fire. */
    z.object({ action: z.literal("expire") }).strict(),
  ])
  .describe("what the answerer does when asked");
export type Answer = z.infer<typeof AnswerSchema>;

/** Checks any outcome may add: what the answerer must not have been shown, what the relay declared upstream. */
const ExtraChecks = {
  /** JSON pointers that must be absent from every request the answerer received (e.g. "/tools"). */
  askedWithout: z.array(z.string().regex(/^(\/[^/]*)+$/, "a JSON pointer such as /tools")).optional(),
  /**
   * The review surface (or broker) must have shown these stages, each with the server's name, the system prompt and
   * every message's text; a request with the full request and an answer skeleton the reference validator accepts, a
   * response with the model's response (src/judge/checks/review.ts). Review and broker targets only.
   */
  reviewed: z.array(z.enum(["request", "response"])).optional(),
  /**
   * The answerer's wire shows no sampling/createMessage from the relay before the answerer's
   * notifications/initialized (cases with `holdInitialized`).
   */
  afterInitialized: z.literal(true).optional(),
  /** The model downstream must have been asked with exactly the reviewer's edited request. */
  modelGotEdit: z.boolean().optional(),
  /** Whether the model downstream (the MCP client) must have been asked at all (e.g. not after a denial). */
  modelAsked: z.boolean().optional(),
  /**
   * JSON pointers into the client capabilities the relay declared to the upstream (legacy: at initialize;
   * 2026-07-28: in the request's _meta), each mapped to whether it must be present.
   */
  declaredUpstream: z
    .record(z.string().regex(/^(\/[^/]*)+$/, "a JSON pointer such as /sampling/tools"), z.boolean())
    .optional(),
  /**
   * The relay's own response to the answerer's probe call (the relay as the answerer's server) must be an error
   * with this code and, with `dataHas`, these JSON pointers present in its `data` (e.g. -32021 with
   * /requiredCapabilities/sampling).
   */
  callError: z
    .object({
      code: z.number().int(),
      dataHas: z
        .array(z.string().regex(/^(\/[^/]*)+$/, "a JSON pointer such as /requiredCapabilities"))
        .optional(),
    })
    .strict()
    .optional(),
};

/** What the reviewer at a relay's review surface does at each stage (targets whose answerer is `review`). */
const ReviewDecisionSchema = z
  .object({
    action: z.enum(["approve", "answer", "decline"]),
    /** approve: the edited request to send instead (request stage only). */
    params: JsonObject.optional(),
    /** answer: the result to deliver (default: the case's accepted result). */
    result: JsonObject.optional(),
  })
  .strict();
export const ReviewSchema = z
  .object({ request: ReviewDecisionSchema.optional(), response: ReviewDecisionSchema.optional() })
  .strict();
export type Review = z.infer<typeof ReviewSchema>;

export const ExpectationSchema = z.discriminatedUnion("outcome", [
  /**
   * The answerer was asked and its result reached the upstream. Fidelity is judged only where the case's rule is
   * about it: `unchanged` lists JSON pointers under /request (what the answerer received against what the upstream
   * sent) and /result (what the upstream received against what the answerer sent) that must be deep-equal; "/"
   * means both documents whole. Other differences are recorded but fail only sampling-relay-content-unchanged.
   */
  z
    .object({
      outcome: z.literal("delivered"),
      unchanged: z
        .array(
          z
            .string()
            .regex(
              /^\/$|^\/(request|result)(\/[^/]*)*$/,
              'a JSON pointer under /request or /result (e.g. /result/stopReason), or "/" for both whole',
            ),
        )
        .min(1)
        .optional(),
      /**
       * Identity, not fidelity: the request the answerer received (`request`) or the result the upstream received
       * (`result`) is this case's, because it carries verbatim a string of what was sent that holds the case's canary
       * (the question's text, the answer's text). For rows about who receives what (a request delivered off the
       * request path, an answer reaching only its asker, an answer constructed before the retry): a relay that
       * rewrites another field passes them and fails sampling-relay-content-unchanged.
       */
      identified: z
        .array(z.enum(["request", "result"]))
        .min(1)
        .optional(),
      /**
       * Fields the relay must not pass on as the upstream sent them, because the answerer did not declare what they
       * need (includeContext without sampling.context, task without tasks): JSON pointers under /request, each mapped
       * to the values the relay may set instead ([]: only dropping it). Every request the answerer received has each
       * absent or as one of those values (check `dropped-field`); fidelity (`unchanged`, and the fuzzer's) disregards
       * these fields and stays whole elsewhere.
       */
      dropped: z
        .record(
          z
            .string()
            .regex(/^\/request(\/[^/]+)+$/, "a JSON pointer under /request (e.g. /request/includeContext)"),
          z.array(z.unknown()),
        )
        .optional(),
      eras: z.array(EraSchema).optional(),
      ...ExtraChecks,
    })
    .strict(),
  /** The upstream received a JSON-RPC error. */
  z
    .object({
      outcome: z.literal("error"),
      /** Acceptable code(s); unset: any error code (e.g. a denial honoured with whatever code). */
      code: z.union([z.number().int(), z.array(z.number().int()).min(1)]).optional(),
      /**
       * Regular expression (case-insensitive) the message is expected to match. Advisory: codes are normative,
       * wording is not, so a mismatch makes the case `warn`, never `fail`. Rules about the message itself use
       * `means` or `notStacked`.
       */
      message: z.string().optional(),
      /** Normative: the message must say this, by meaning (src/judge/meanings.ts lists what counts). */
      means: z.enum(["expiry"]).optional(),
      /** Normative: the message carries no stacked prefixes (the code repeated in text, a wrapper around a wrapper). */
      notStacked: z.boolean().optional(),
      /** true: the answerer must have been asked; false: it must never have been asked. Unset: either. */
      asked: z.boolean().optional(),
      eras: z.array(EraSchema).optional(),
      ...ExtraChecks,
    })
    .strict(),
  /** 2026-07-28: the upstream got no response for the input (no retry, or a retry without that key). */
  z
    .object({
      outcome: z.literal("withheld"),
      asked: z.boolean().optional(),
      eras: z.array(EraSchema).optional(),
      ...ExtraChecks,
    })
    .strict(),
]);
export type Expectation = z.infer<typeof ExpectationSchema>;

export const CaseSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "a kebab-case id"),
    row: z.string().min(1),
    title: z.string().min(1),
    /** The rule this case exercises, quoted. */
    why: z.string().min(1),
    /** For rows on both sides: which role of the relay this case judges. */
    side: CellSideSchema.optional(),
    eras: z.array(EraSchema).min(1).optional(),
    /** The era the answerer speaks, when it differs from the cell's era (the upstream's): a relay between eras. */
    downstreamEra: EraSchema.optional(),
    severity: SeveritySchema.optional(),
    /** Client capabilities the answerer declares; default {sampling:{}} plus tools when the request has tools. */
    capabilities: JsonObject.optional(),
    request: JsonObject,
    /**
     * What the relay must have declared to the upstream (JSON pointers into the client capabilities it declared, e.g.
     * /sampling/tools) for this case to apply: a request that uses a capability the relay did not declare is not the
     * upstream's to send, so against such a relay a case whose rule is about something else is n/a with that reason.
     */
    requiresDeclared: z
      .array(z.string().regex(/^(\/[^/]*)+$/, "a JSON pointer such as /sampling/tools"))
      .min(1)
      .optional(),
    answer: AnswerSchema,
    /** A reviewer's decisions; a case with `review` runs only against targets with a review surface. */
    review: ReviewSchema.optional(),
    /**
     * 2026-07-28 only: how the upstream frames its input_required result — the inputRequests key of the sampling
     * request and the requestState (null: none). Default: a fixed key and a fresh opaque requestState.
     */
    mrtr: z
      .object({
        key: z.string().min(1).optional(),
        requestState: z.string().nullable().optional(),
        /**
         * Several sampling inputRequests at once, one per key, in one input_required: each carries the request with
         * its own token (`{{canary}}` becomes `<canary>.k<n>.`), and the answerer answers each with the case's result
         * under the same token, so each answer is traceable to its question (check input-keys-own-answer).
         */
        keys: z.array(z.string().min(1)).min(2).max(8).optional(),
      })
      .strict()
      .refine((m) => m.key === undefined || m.keys === undefined, { message: "give key or keys, not both" })
      .refine((m) => m.keys === undefined || new Set(m.keys).size === m.keys.length, {
        message: "keys must be distinct",
      })
      .optional(),
    /**
     * Several sampling requests in one case (one probe call, one deadline: the case's), judged together.
     * `after`: further requests sent one after another, each once the previous one was answered (`{{canary}}` in request n
     * becomes `<canary>.r<n>.`, the first included; check not-retained). `burst`: the request sent that many times
     * at once (legacy: concurrent requests; 2026-07-28: one input_required with that many keys; check
     * burst-limited). `loop`: a tool loop of up to that many requests: each tool_use answer is answered with a
     * tool_result and the next request carries the history (check loop-cut). The case's expectation is about the
     * first request.
     */
    sequence: z
      .object({
        after: z.array(JsonObject).min(1).max(4).optional(),
        burst: z.number().int().min(2).max(100).optional(),
        loop: z.number().int().min(2).max(50).optional(),
      })
      .strict()
      .refine((q) => [q.after, q.burst, q.loop].filter((x) => x !== undefined).length === 1, {
        message: "give exactly one of after, burst, loop",
      })
      .optional(),
    /**
     * Streamable HTTP upstreams, legacy eras: which stream the upstream sends its sampling request on. `related`: on
     * the probe tool call's own POST response stream (tied to the call); `standalone`: on the standalone GET stream,
     * tied to no request of the client ("off the request path"), which a relay that never opens that stream loses.
     * A case with `stream` does not apply to other upstream transports (its cell there is n/a).
     */
    stream: z.enum(["related", "standalone"]).optional(),
    /**
     * Legacy eras: the upstream answers the probe tool call at once and sends its sampling request afterwards, on its
     * own, while no request of the relay's is pending (stdio: on the connection, as a stdio server may at any time;
     * Streamable HTTP: on the standalone GET stream). The case waits for the upstream's outcome until its deadline.
     */
    detached: z.literal(true).optional(),
    /**
     * Legacy eras: the JSON-RPC id the upstream sends its sampling request under (JSON-RPC 2.0 §4: a String or Number
     * the requester establishes): a large integer, a string that reads as a number, one shaped like a relay's own
     * ids, unicode. Default: the upstream's next own id. Integers stay within ±(2^53 − 1), where JSON parsers agree.
     * The response must come back under it unchanged (check upstream-response-id-paired).
     */
    requestId: z
      .union([z.string().min(1), z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER)])
      .optional(),
    /**
     * Streamable HTTP downstreams, legacy eras: whether the answerer opens the standalone GET stream after
     * initialize, as the SDK's client does (true), or never (false: its GET is answered 405, as by a client without
     * one). A case that sets it does not apply to other downstream transports (its cell there is n/a) and has a
     * relay session of its own kind.
     */
    answererListens: z.boolean().optional(),
    expect: z.array(ExpectationSchema).min(1),
    /**
     * The wire checks this case's rule rests on (ids of the check table, src/judge/checks/), when the expectation
     * alone does not say it (e.g. 2026-07-28 retry rules): each must be evaluated on the exchange, or the case cannot
     * pass. That each names a check of the table is checked where a run loads its cases (src/run/config.ts).
     */
    checks: z
      .array(z.string().regex(/^[a-z][a-z0-9-]*$/, "a check id (kebab-case)"))
      .min(1)
      .optional(),
    /**
     * 2: session isolation. One relay, two downstream client sessions: A (whose tool call causes the request)
     * answers with `answer`, B answers at once with the same answer under a decoy canary. In 2026-07-28 B is a second
     * asker instead: it calls the probe tool too, under a token of its own, and answers its own input request later
     * than A (src/harness/isolation.ts). n/a against relays whose downstream is stdio (one session per process).
     */
    sessions: z.literal(2).optional(),
    /**
     * 2026-07-28 two-session cases: how long session B takes over its answer (ms). Default: twice A's delay, at least
     * MRTR_SECOND_ANSWER_MS, so A answers first; shorter than A's delay, B answers first while A's exchange is open.
     */
    secondDelayMs: z.number().int().min(0).optional(),
    /**
     * Legacy eras: the answerer answers initialize but holds back notifications/initialized until a while after its
     * probe call (HOLD_INITIALIZED_MS in src/harness/waits.ts), so the relay has the upstream's sampling request
     * before the downstream said it is initialized. The case runs on a relay session of its own.
     */
    holdInitialized: z.literal(true).optional(),
  })
  .strict()
  .refine((c) => !c.detached || !(c.eras ?? []).includes("2026-07-28"), {
    message: "detached is for legacy eras (2026-07-28 sends sampling inside a result)",
    path: ["detached"],
  })
  .refine((c) => c.requestId === undefined || (c.eras !== undefined && !c.eras.includes("2026-07-28")), {
    message:
      "requestId needs eras without 2026-07-28 (that era sends sampling inside a result, with no id of its own)",
    path: ["requestId"],
  })
  .refine((c) => c.requestId === undefined || c.sequence === undefined, {
    message: "requestId is for a case of one sampling request (not with sequence)",
    path: ["requestId"],
  })
  .refine((c) => !c.holdInitialized || !(c.eras ?? []).includes("2026-07-28"), {
    message: "holdInitialized is for legacy eras (2026-07-28 has no initialize)",
    path: ["holdInitialized"],
  });
export type Case = z.infer<typeof CaseSchema>;
