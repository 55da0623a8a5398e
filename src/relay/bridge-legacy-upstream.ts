import { randomUUID } from "node:crypto";
import { type Era, isEra, isModernEra, MRTR_ERA } from "../protocol/eras.ts";
import { CODE, INPUT_REQUIRED_METHODS, isObject, META, METHOD } from "../protocol/wire.ts";
import { validateInputResponses } from "../validator/index.ts";
import type { SamplingCapabilities } from "../validator/types.ts";
import { wrapperOnly } from "./inputs.ts";
import type { Reply, UpstreamLink } from "./link.ts";
import type { RelayedError, RelayPolicy, WireError } from "./policy.ts";

/**
 * Era bridging, a 2026-07-28 downstream in front of a legacy upstream. The upstream is initialized (the newest legacy
 * protocol, sampling declared as the downstream declared it on its first request) and asks with
 * `sampling/createMessage` requests while a tools/call (prompts/get, resources/read) is in flight; each request is
 * checked for the upstream's era and passed down as one `input_required` round of that call (`inputRequests[key]`,
 * with the relay's own `requestState`). The downstream's retry carries the answer in `inputResponses[key]`, which
 * is checked for the upstream's era and becomes the response to the upstream's request; the retry then gets what
 * the upstream does next (another round, or the call's result with `resultType: "complete"`).
 *
 * The mappings: a retry without the key is a decline (the upstream gets -1, "User rejected sampling request"); no
 * retry within the deadline is silence, which a 2026-07-28 client uses for both declining and not answering, so
 * the upstream gets the relay's expiry error (-32603 naming expiry).
 */

/** The newest protocol a legacy upstream may be initialized with. */
const NEWEST_LEGACY: Era = "2025-11-25";

const USER_REJECTED: WireError = { code: CODE.userRejected, message: "User rejected sampling request" };

/** A sampling request from the upstream, waiting for the call it belongs to. */
interface Question {
  params: Record<string, unknown>;
  respond: (reply: Reply) => void;
}

/** A downstream call forwarded upstream, alive across the downstream's retries. */
interface Call {
  reply: Promise<Reply>;
  done: boolean;
  /** Questions the upstream asked during this call and the relay has not taken up yet. */
  questions: Question[];
  /** The question passed down, awaiting the downstream's retry. */
  open: Question | undefined;
  wake: (() => void) | undefined;
  /** The client capabilities the downstream declared on its latest request of this call. */
  capabilities: SamplingCapabilities | undefined;
}

/** A question passed down, by the relay's requestState. */
interface Pending {
  call: Call;
  question: Question;
  key: string;
  timer: NodeJS.Timeout;
}

export interface LegacyUpstreamOptions {
  link: UpstreamLink;
  policy: RelayPolicy;
  answerTimeoutMs: number;
  name: string;
}

const toReply = (relayed: RelayedError): Reply =>
  "result" in relayed ? { result: relayed.result } : { error: relayed };

/** Mirrors only what the downstream declared for sampling. */
function mirrored(capabilities: SamplingCapabilities | undefined): SamplingCapabilities {
  const sampling = isObject(capabilities?.sampling) ? capabilities.sampling : undefined;
  if (!sampling) return {};
  const out: Record<string, object> = {};
  if (sampling.tools) out.tools = {};
  if (sampling.context) out.context = {};
  return { sampling: out };
}

/** The 2026-07-28 per-request `_meta` keys mean nothing to a legacy server: they stay on the relay's side. */
function legacyParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  const { _meta, inputResponses: _r, requestState: _s, ...rest } = params;
  if (!isObject(_meta)) return rest;
  const { [META.protocolVersion]: _v, [META.clientCapabilities]: _c, [META.clientInfo]: _i, ...meta } = _meta;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

/**
 * 2026-07-28 results that carry caching hints (CacheableResult requires ttlMs and cacheScope); a legacy server gives
 * none, so the relay says: stale at once, for this authorization context only.
 */
const CACHEABLE = new Set([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);
const NOT_CACHEABLE = { ttlMs: 0, cacheScope: "private" } as const;

/** A legacy result as a 2026-07-28 client reads it: every result says what it is (and, where cacheable, for how long). */
function complete(reply: Reply, method?: string): Reply {
  if (!("result" in reply) || !isObject(reply.result) || reply.result.resultType !== undefined) return reply;
  const hints = method !== undefined && CACHEABLE.has(method) ? NOT_CACHEABLE : {};
  return { result: { ...hints, ...reply.result, resultType: "complete" } };
}

function declaredBy(params: unknown): SamplingCapabilities | undefined {
  const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
  const declared = meta?.[META.clientCapabilities];
  return isObject(declared) ? (declared as SamplingCapabilities) : undefined;
}

export class LegacyUpstreamBridge {
  /** The era the upstream negotiated. */
  era: Era = NEWEST_LEGACY;
  private declared: SamplingCapabilities = {};
  private readonly calls = new Set<Call>();
  private readonly pending = new Map<string, Pending>();
  private keys = 0;

  constructor(private readonly options: LegacyUpstreamOptions) {}

  /** initialize + initialized, declaring what the downstream declared for sampling; the refusal, if any. */
  async initialize(capabilities: SamplingCapabilities | undefined): Promise<WireError | null> {
    const { link, name } = this.options;
    this.declared = mirrored(capabilities);
    const reply = await link.request(METHOD.initialize, {
      protocolVersion: NEWEST_LEGACY,
      capabilities: this.declared,
      clientInfo: { name, version: "1" },
    });
    if ("error" in reply) return reply.error;
    const version = reply.result.protocolVersion;
    this.era = isEra(version) && !isModernEra(version) ? version : NEWEST_LEGACY;
    link.notify(METHOD.initialized, undefined);
    link.onRequest = (method, params) => this.fromUpstream(method, params);
    return null;
  }

  /** One request of the downstream. */
  async request(method: string, params: unknown): Promise<Reply> {
    if (!INPUT_REQUIRED_METHODS.has(method))
      return complete(await this.options.link.request(method, legacyParams(params)), method);
    const state = isObject(params) ? params.requestState : undefined;
    const pending = typeof state === "string" ? this.pending.get(state) : undefined;
    if (pending) return this.resume(state as string, pending, params as Record<string, unknown>);
    if (isObject(params) && (params.inputResponses !== undefined || state !== undefined)) {
      return {
        error: {
          code: CODE.invalidParams,
          message:
            "Invalid params: inputResponses answer no input request this relay passed on (unknown or forgotten requestState); call again without inputResponses",
        },
      };
    }
    const call: Call = {
      reply: this.options.link.request(method, legacyParams(params)),
      done: false,
      questions: [],
      open: undefined,
      wake: undefined,
      capabilities: declaredBy(params),
    };
    this.calls.add(call);
    void call.reply.then(() => {
      call.done = true;
      this.calls.delete(call);
      call.wake?.();
    });
    return this.drive(call);
  }

  /** A request from the upstream: its sampling requests belong to the call in flight that has no question open. */
  private fromUpstream(method: string, _params: unknown): Promise<Reply> {
    if (method === METHOD.ping) return Promise.resolve({ result: {} });
    if (method !== METHOD.createMessage) {
      return Promise.resolve({
        error: { code: CODE.methodNotFound, message: `Method not found: ${method}` },
      });
    }
    const params = isObject(_params) ? _params : {};
    const calls = [...this.calls].filter((c) => !c.done);
    const call = calls.filter((c) => !c.open && c.questions.length === 0).at(-1) ?? calls.at(-1);
    if (!call) {
      return Promise.resolve({
        error: {
          code: CODE.internalError,
          message: "No client request is in flight through which to ask this sampling request",
        },
      });
    }
    return new Promise<Reply>((respond) => {
      call.questions.push({ params, respond });
      call.wake?.();
    });
  }

  /** Waits for what the upstream does next in a call: a question (passed down as a round) or the call's reply. */
  private async drive(call: Call): Promise<Reply> {
    for (;;) {
      const question = call.questions.shift();
      if (question) {
        const round = this.passDown(call, question);
        if (round) return round;
        continue;
      }
      if (call.done) return complete(await call.reply);
      await new Promise<void>((wake) => {
        call.wake = wake;
      });
      call.wake = undefined;
    }
  }

  /** A question checked for both eras and passed down as an input_required round; null when refused upstream. */
  private passDown(call: Call, question: Question): Reply | null {
    const { policy, answerTimeoutMs, name } = this.options;
    const checked = policy.checkRequest(question.params, { era: this.era, capabilities: this.declared });
    if (checked && !checked.legal) {
      question.respond({ error: policy.refuseRequest(checked) });
      return null;
    }
    const capabilities = call.capabilities ?? {};
    if (!isObject(capabilities.sampling)) {
      question.respond({
        error: {
          code: CODE.methodNotFound,
          message: "Method not found: the client declared no sampling capability on this request",
        },
      });
      return null;
    }
    const carried = policy.checkDownstreamCarries(question.params, { era: MRTR_ERA, capabilities });
    if (carried && !carried.legal) {
      question.respond({ error: policy.refuseForDownstream(carried, MRTR_ERA) });
      return null;
    }
    const key = `sampling-${++this.keys}`;
    const state = `${name}.${randomUUID()}`;
    call.open = question;
    const timer = setTimeout(() => {
      this.pending.delete(state);
      call.open = undefined;
      question.respond(toReply(policy.silenceUpstream(answerTimeoutMs)));
    }, answerTimeoutMs);
    this.pending.set(state, { call, question, key, timer });
    return {
      result: {
        resultType: "input_required",
        inputRequests: {
          [key]: {
            method: METHOD.createMessage,
            params: policy.rewriteRequest(
              policy.fitForDownstream(question.params, { era: MRTR_ERA, capabilities }),
            ),
          },
        },
        requestState: state,
      },
    };
  }

  /** The downstream's retry: its answer (or its absence) goes up as the response to the upstream's request. */
  private resume(state: string, pending: Pending, params: Record<string, unknown>): Promise<Reply> | Reply {
    const { policy } = this.options;
    const { call, question, key } = pending;
    clearTimeout(pending.timer);
    this.pending.delete(state);
    call.open = undefined;
    call.capabilities = declaredBy(params) ?? call.capabilities;
    const responses = params.inputResponses ?? {};
    const inputRequests = { [key]: { method: METHOD.createMessage, params: question.params } };
    const wrapper = wrapperOnly(validateInputResponses(responses, { era: MRTR_ERA, inputRequests }));
    if (!wrapper.legal) {
      question.respond({ error: policy.refuseResult(wrapper) });
      return { error: policy.refuseResult({ ...wrapper, code: CODE.invalidParams }) };
    }
    const answers = responses as Record<string, unknown>;
    if (!Object.hasOwn(answers, key)) {
      question.respond(toReply(policy.relayDownstreamError(USER_REJECTED)));
      return this.drive(call);
    }
    const result = answers[key];
    const verdict = policy.checkResult(result, { era: this.era, request: question.params });
    if (verdict && !verdict.legal) {
      question.respond({ error: policy.refuseResult(verdict) });
      return { error: policy.refuseResult({ ...verdict, code: CODE.invalidParams }) };
    }
    question.respond({ result: policy.rewriteResult(result as Record<string, unknown>) });
    return this.drive(call);
  }
}
