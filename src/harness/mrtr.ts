import { createHash } from "node:crypto";
import type { Answer } from "../model/case.ts";
import type { UpstreamOutcome } from "../model/evidence.ts";
import { MRTR_ERA } from "../protocol/eras.ts";
import { CODE, isObject as isJsonObject, META, METHOD } from "../protocol/wire.ts";
import {
  type AnswerFor,
  type ArmedProbe,
  type Ask,
  ClientEraRefused,
  type HarnessAnswerer,
  type HarnessUpstream,
  recordEntry,
  recordUnsent,
} from "./ends.ts";
import { JsonRpcPeer, type JsonRpcResponse, type LineChannel } from "./jsonrpc-peer.ts";
import type { ActionLog } from "./lateness.ts";
import { findProbeTool, type ProbeTemplate, probeCall } from "./probe-call.ts";
import { PROBE_TOOL } from "./upstream.ts";
import { DISCOVER_TIMEOUT_MS, HELD_REQUEST_MS } from "./waits.ts";

/**
 * Protocol era 2026-07-28 at both ends of the relay (multi-round-trip requests, MRTR): there is no initialize and
 * no server→client request. The probe tool call is answered with `resultType: "input_required"` carrying the
 * sampling request in `inputRequests[key]` plus a `requestState`; the client retries the same call (new JSON-RPC id)
 * with `inputResponses[key]` and the `requestState` echoed. A declined input has no error object: the client does
 * not retry, or retries without the key. Capabilities and the protocol version ride in every request's `_meta`.
 */

/** The inputRequests key the upstream uses unless a case pins one. */
export const DEFAULT_INPUT_KEY = "mcpx-conform/sample";

/**
 * Input rounds the answerer goes through for one call before it gives up on a relay that keeps asking: above the
 * longest sequence a case may script (a tool loop of 50 requests), so a relay without an iteration limit is seen.
 */
const MAX_ROUNDS = 60;

/**
 * The caching hints 2026-07-28 requires on server/discover and tools/list results (CacheableResult): stale at once
 * (each case's relay sees the upstream as it is now) and for this authorization context only (the harness claims
 * nothing about sharing). Without them a relay that validates what it receives refuses the listing.
 */
const NOT_CACHEABLE = { ttlMs: 0, cacheScope: "private" } as const;

const isObject = (v: unknown): v is Record<string, any> => isJsonObject(v);

/** The protocol version an initialize asked for, as text (a version that is not a string, as JSON). */
function requestedVersion(params: unknown): string {
  const version = isObject(params) ? params.protocolVersion : undefined;
  return typeof version === "string" ? version : (JSON.stringify(version) ?? "");
}

const clip = (s: string, n = 120) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * The upstream's requestState: opaque to the relay, unique to the case (its params carry the case's canary) and the
 * same on every run with the same seed, so evidence is reproducible.
 */
function opaqueState(caseKey: string, params: unknown): string {
  return `mcpx-conform.${createHash("sha256").update(caseKey).update(JSON.stringify(params)).digest("base64url").slice(0, 16)}`;
}

/** A retry the upstream is waiting for. */
interface Awaiting {
  probe: ArmedProbe;
  key: string;
  /** undefined: the input_required result carried no requestState. */
  requestState: string | undefined;
  timer: NodeJS.Timeout;
  deadline: number;
  /** A sequence: the requests of the current round, by key (`key` above is the first's). */
  asks?: Ask[];
  round: number;
  /** The answerer's call has ended (settle): from then on, no retry is the relay withholding the input. */
  settled?: boolean;
  /** What expiring after the settle says (how long the upstream waited). */
  expiry?: string;
  /** performance.now() when the input_required went out (how long the harness waited, for a timeout). */
  since: number;
}

/**
 * The scripted upstream MCP server of 2026-07-28. It answers server/discover, refuses initialize with -32022,
 * lists the probe tool, and answers the armed probe call with input_required; the retry's inputResponses[key]
 * (or its absence) is the outcome reported to the controller.
 */
export class ModernUpstream implements HarnessUpstream {
  private readonly peers: JsonRpcPeer[] = [];
  negotiated: string | null = null;
  /** The client capabilities the relay declared in `_meta` on its latest request (2026-07-28: per request). */
  declared: unknown;
  /** The protocol version the relay put in `_meta` on its latest request. */
  declaredVersion: unknown;
  /** initialize requests the relay sent (each refused with -32022). */
  initializeAttempts = 0;
  /** The first request the upstream refused before the relay spoke the era (what was sent, what was answered). */
  private firstRefusal: { method: string; params: unknown; error: Record<string, unknown> } | undefined;
  /** The relay has discovered this upstream, or listed or called its tools: it speaks the era. */
  private spokeEra = false;
  readonly strayCalls: unknown[] = [];
  /** Probes armed and not yet called, by case key (a case still settling keeps its own while the next one runs). */
  private readonly armed = new Map<string, ArmedProbe>();
  /** Retries awaited, by case key: one per case whose input_required went out and whose outcome is not yet known. */
  private readonly awaiting = new Map<string, Awaiting>();

  constructor(channel?: LineChannel) {
    if (channel) this.attach(channel);
  }

  /**
   * Serves one more upstream connection of the relay (a process per request, or one 2026-07-28 POST): each has its
   * own JSON-RPC peer, so ids are matched per connection; what a call means (a first call, a retry) is decided by its
   * content (caseKey, requestState), never by its id, so a retry may come on any connection.
   */
  attach(channel: LineChannel): void {
    const peer = new JsonRpcPeer(channel, "up-");
    peer.onRequest((method, params) => this.handle(method, params));
    peer.onNotification(() => undefined);
    this.peers.push(peer);
    // A connection that is over is forgotten (the first is kept: `peer`), so serving many stays flat in memory.
    peer.onClose(() => {
      const at = this.peers.indexOf(peer);
      if (at > 0) this.peers.splice(at, 1);
    });
  }

  /** The first connection's peer. */
  get peer(): JsonRpcPeer {
    return this.peers[0]!;
  }

  arm(probe: ArmedProbe | undefined): void {
    if (probe) this.armed.set(probe.caseKey, probe);
    else this.armed.clear();
  }

  disarm(caseKey: string): void {
    this.armed.delete(caseKey);
    const a = this.awaiting.get(caseKey);
    if (a) {
      clearTimeout(a.timer);
      this.awaiting.delete(caseKey);
    }
  }

  /** The requestState sent with this case's input_required, while its retry is awaited. */
  requestStateOf(caseKey: string): string | undefined {
    return this.awaiting.get(caseKey)?.requestState;
  }

  settle(graceMs: number, caseKey: string, within = `within ${graceMs} ms`): void {
    const a = this.awaiting.get(caseKey);
    if (!a) return;
    a.settled = true;
    a.expiry = `no retry: the downstream's call ended and no retry came ${within}`;
    if (a.deadline - performance.now() <= graceMs) return;
    clearTimeout(a.timer);
    a.deadline = performance.now() + graceMs;
    a.timer = setTimeout(() => this.expire(a, a.expiry!), graceMs);
  }

  expireSettled(caseKey: string): boolean {
    const a = this.awaiting.get(caseKey);
    if (!a?.settled) return false;
    clearTimeout(a.timer);
    this.expire(a, a.expiry ?? "no retry: the downstream's call ended and no retry came");
    return true;
  }

  private noteMeta(params: unknown): void {
    const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
    if (!meta) return;
    if (meta[META.clientCapabilities] !== undefined) this.declared = meta[META.clientCapabilities];
    if (meta[META.protocolVersion] !== undefined) this.declaredVersion = meta[META.protocolVersion];
    if (meta[META.protocolVersion] === MRTR_ERA) this.negotiated = MRTR_ERA;
  }

  /**
   * Why the relay's upstream side cannot reach this upstream, when it cannot: it sent requests the upstream refused
   * (an initialize offering an older version, refused with -32022) and never completed the era's discovery nor
   * reached the tools. The reason quotes what its client sent and what it was answered.
   */
  eraRefusal(): string | undefined {
    const refused = this.firstRefusal;
    if (!refused || this.spokeEra) return undefined;
    return `the relay's upstream side does not speak ${MRTR_ERA}: its client sent ${refused.method} ${clip(JSON.stringify(refused.params) ?? "", 240)} and the ${MRTR_ERA} upstream answered error ${clip(JSON.stringify(refused.error), 300)}`;
  }

  private async handle(method: string, params: any) {
    const response = await this.respond(method, params);
    if (method === "server/discover" || method === "tools/list" || method === "tools/call")
      this.spokeEra = true;
    else if ("error" in response && !this.spokeEra)
      this.firstRefusal ??= { method, params, error: response.error as Record<string, unknown> };
    return response;
  }

  private async respond(method: string, params: any) {
    this.noteMeta(params);
    switch (method) {
      case "server/discover":
        this.negotiated ??= MRTR_ERA;
        return {
          result: {
            resultType: "complete",
            supportedVersions: [MRTR_ERA],
            capabilities: { tools: {} },
            ...NOT_CACHEABLE,
            _meta: { [META.serverInfo]: { name: "mcpx-conform-upstream", version: "1" } },
          },
        };
      case "initialize":
        this.initializeAttempts++;
        return {
          error: {
            code: CODE.unsupportedProtocolVersion,
            message:
              "Unsupported protocol version: this server speaks 2026-07-28 only (use server/discover, no initialize)",
            // The schema requires `requested` as a string: what the relay asked for ("" when it named no version).
            data: { supported: [MRTR_ERA], requested: requestedVersion(params) },
          },
        };
      case "ping":
        return { result: { resultType: "complete" } };
      case "tools/list":
        return {
          result: {
            resultType: "complete",
            tools: [
              {
                name: PROBE_TOOL,
                description:
                  "mcpx-conform probe: asks for one scripted sampling/createMessage input and reports the answer",
                inputSchema: { type: "object", properties: { caseKey: { type: "string" } } },
              },
            ],
            ...NOT_CACHEABLE,
          },
        };
      case "tools/call":
        return this.call(params);
      default:
        return { error: { code: -32601, message: `Method not found: ${method}` } };
    }
  }

  private call(params: any) {
    if (!isObject(params) || params.name !== PROBE_TOOL) {
      return {
        error: {
          code: -32602,
          message: `Unknown tool: ${JSON.stringify(isObject(params) ? params.name : undefined)}`,
        },
      };
    }
    const route = this.route(params);
    if (route.retry) return this.retry(route.retry, params);
    const probe = route.probe;
    if (!probe) {
      this.strayCalls.push(params);
      return { error: { code: -32603, message: "no conformance case is running" } };
    }
    this.armed.delete(probe.caseKey);
    const asks = probe.sequence?.first;
    const key = asks?.[0]?.key ?? probe.mrtr?.key ?? DEFAULT_INPUT_KEY;
    const requestState = this.stateFor(probe, 0);
    const awaiting: Awaiting = {
      probe,
      key,
      requestState,
      deadline: performance.now() + probe.waitMs,
      timer: setTimeout(() => this.expire(awaiting, `no retry within ${probe.waitMs} ms`), probe.waitMs),
      ...(asks ? { asks } : {}),
      round: 0,
      since: performance.now(),
    };
    this.awaiting.set(probe.caseKey, awaiting);
    return this.inputRequired(asks ?? [{ key, token: "", params: probe.params }], requestState);
  }

  /** The requestState of a round: as the case pins it (null: none), else opaque and unique to the case and round. */
  private stateFor(probe: ArmedProbe, round: number): string | undefined {
    if (probe.mrtr?.requestState === null) return undefined;
    if (probe.mrtr?.requestState !== undefined && round === 0) return probe.mrtr.requestState;
    return opaqueState(round === 0 ? probe.caseKey : `${probe.caseKey}#${round}`, probe.params);
  }

  private inputRequired(asks: Ask[], requestState: string | undefined) {
    return {
      result: {
        resultType: "input_required",
        inputRequests: Object.fromEntries(
          asks.map((a) => [a.key, { method: METHOD.createMessage, params: a.params }]),
        ),
        ...(requestState !== undefined ? { requestState } : {}),
      },
    };
  }

  /**
   * Which case a probe call belongs to: the case its arguments name (a retry when that case awaits one, else its first
   * call), else the retry whose requestState it echoes; a call that names no case known here is the one armed probe's
   * first call, else the latest awaited retry (a relay that drops the arguments and requestState is still caught).
   */
  private route(params: Record<string, any>): { retry?: Awaiting; probe?: ArmedProbe } {
    const named = isObject(params.arguments) ? params.arguments.caseKey : undefined;
    if (typeof named === "string") {
      const retry = this.awaiting.get(named);
      if (retry) return { retry };
      const probe = this.armed.get(named);
      if (probe) return { probe };
    }
    const echoed = params.requestState;
    for (const a of this.awaiting.values())
      if (a.requestState !== undefined && a.requestState === echoed) return { retry: a };
    const armed = [...this.armed.values()];
    if (armed.length > 0) return { probe: armed[armed.length - 1] };
    const awaited = [...this.awaiting.values()];
    return awaited.length > 0 ? { retry: awaited[awaited.length - 1] } : {};
  }

  /**
   * No retry came. Once the answerer's call has ended (settle), that is the relay withholding the input; while the
   * call is still open, the relay has not decided anything yet: the harness's own wait ran out (a timeout, as in the
   * legacy eras), which is never credited as a relay cutting a loop or declining.
   */
  private expire(a: Awaiting, detail: string): void {
    if (this.awaiting.get(a.probe.caseKey) !== a) return;
    this.awaiting.delete(a.probe.caseKey);
    const outcome: UpstreamOutcome = a.settled
      ? { kind: "withheld", detail }
      : { kind: "timeout", deadlineMs: a.probe.waitMs, afterMs: Math.round(performance.now() - a.since) };
    const sequence = a.probe.sequence;
    if (!sequence || !a.asks) {
      a.probe.done(outcome);
      return;
    }
    for (const ask of a.asks)
      recordEntry(sequence, { round: a.round, key: ask.key, token: ask.token, sent: ask.params, outcome });
    a.probe.done(sequence.record[0]!.outcome);
  }

  /** What the retry carried for one key: its answer, or nothing (withheld). */
  private outcomeOf(responses: unknown, key: string): UpstreamOutcome {
    if (isObject(responses) && Object.hasOwn(responses, key))
      return { kind: "result", result: responses[key] };
    const keys = isObject(responses) ? Object.keys(responses) : [];
    return {
      kind: "withheld",
      detail:
        responses === undefined
          ? "retry without the key (no inputResponses)"
          : `retry without the key ${JSON.stringify(key)}${keys.length ? ` (inputResponses keys: ${clip(keys.map((k) => JSON.stringify(k)).join(", "))})` : ""}`,
    };
  }

  /**
   * A sequence's retry: every key of the round gets its outcome; the next round, if any (and time is left), goes out
   * as a new input_required with a requestState of its own; else the first request's outcome is the probe's.
   */
  private sequenceRetry(a: Awaiting, asks: Ask[], responses: unknown) {
    const sequence = a.probe.sequence!;
    const answered = asks.map((ask) => ({ ask, outcome: this.outcomeOf(responses, ask.key) }));
    for (const { ask, outcome } of answered)
      recordEntry(sequence, { round: a.round, key: ask.key, token: ask.token, sent: ask.params, outcome });
    let next = sequence.next?.(a.round, answered);
    if (next?.length && performance.now() >= a.deadline) {
      recordUnsent(sequence, a.round + 1, next, a.probe.waitMs);
      next = undefined;
    }
    if (next && next.length > 0) {
      a.round++;
      // A round's timeout says how long its own input_required waited, as a legacy round's does.
      a.since = performance.now();
      a.asks = next;
      a.key = next[0]!.key;
      a.requestState = this.stateFor(a.probe, a.round);
      return this.inputRequired(next, a.requestState);
    }
    clearTimeout(a.timer);
    this.awaiting.delete(a.probe.caseKey);
    a.probe.done(sequence.record[0]!.outcome);
    return {
      result: {
        resultType: "complete",
        content: [{ type: "text", text: `mcpx-conform recorded ${sequence.record.length} requests` }],
      },
    };
  }

  /**
   * The retry's answer is the outcome. Whether the retry itself keeps the rules (a new JSON-RPC id, requestState
   * echoed, the same arguments) is the judge's to say from the wire log (src/judge/checks/retry.ts), each rule in its
   * own row, so a relay that breaks one of them is not also failed on the round trip.
   */
  private retry(a: Awaiting, params: Record<string, any>) {
    if (a.asks) return this.sequenceRetry(a, a.asks, params.inputResponses);
    clearTimeout(a.timer);
    this.awaiting.delete(a.probe.caseKey);
    const outcome = this.outcomeOf(params.inputResponses, a.key);
    a.probe.done(outcome);
    return {
      result: {
        resultType: "complete",
        content: [{ type: "text", text: `mcpx-conform recorded the ${outcome.kind}` }],
      },
    };
  }
}

/**
 * The harness answerer of 2026-07-28: a client with no initialize; every request carries `_meta` with the
 * protocol version and the case's client capabilities. It answers sampling input requests as the case scripts
 * it: accept → retry with inputResponses[key] and requestState echoed; decline / error / expire → no retry (there
 * is no error object for an input in this era), so the call ends with the input_required result.
 *
 * `asked` and `answered` mean what they mean for the legacy ClientAnswerer: every sampling request shown
 * (here: each sampling inputRequest's params) and the reply given (here `{result}` when accepted; nothing is
 * replied for a decline, so `answered` stays unset).
 */
export class ModernAnswerer implements HarnessAnswerer {
  readonly peer: JsonRpcPeer;
  negotiated: string | null = null;
  probeTool = PROBE_TOOL;
  asked: unknown[] = [];
  askedAt: number | undefined;
  answered: unknown;
  /** How many retries (calls carrying the answers of a round) this case has sent so far. */
  retried = 0;
  /** The relay's server/discover result (or error), when it answered one. */
  discovered: JsonRpcResponse | undefined;
  /** Server→client JSON-RPC requests the relay sent anyway (2026-07-28 has none; each refused with -32601). */
  readonly wireRequests: Array<{ method: string; params: unknown }> = [];
  private answer: Answer | undefined;
  private answerFor: AnswerFor | undefined;
  /** Called when the script makes the answerer wait on purpose (an answer that comes late). */
  onWait: (() => void) | undefined;
  /** The case's retries as carried out, timed (lateness.ts). */
  actions: ActionLog = [];
  /**
   * Awaited before an accepted answer is sent (session isolation: the first asker answers only once the second
   * session's call is in flight, so that two exchanges are open at the relay when the first answer comes). It does not
   * lengthen the answer's delay, which counts from when the questions came.
   */
  holdAnswer: (() => Promise<void>) | undefined;

  constructor(
    private readonly channel: LineChannel,
    private readonly capabilities: Record<string, unknown>,
    private readonly probe?: ProbeTemplate,
  ) {
    this.peer = new JsonRpcPeer(channel, "down-");
    this.peer.onRequest(async (method, params) => {
      // Every 2026-07-28 result says its resultType (Result requires it), a ping's too.
      if (method === "ping") return { result: { resultType: "complete" } };
      this.wireRequests.push({ method, params });
      return {
        error: {
          code: -32601,
          message: `Method not found: ${method} (a 2026-07-28 client takes no server requests)`,
        },
      };
    });
    this.peer.onNotification(() => undefined);
  }

  private meta(): Record<string, unknown> {
    return {
      [META.protocolVersion]: MRTR_ERA,
      [META.clientCapabilities]: this.capabilities,
      [META.clientInfo]: { name: "mcpx-conform-answerer", version: "1" },
    };
  }

  private noteShape(result: unknown): void {
    if (isObject(result) && (result.resultType === "complete" || result.resultType === "input_required"))
      this.negotiated = MRTR_ERA;
  }

  /** How server/discover went, for a refusal's reason. */
  private discoverNote = "no answer to server/discover";

  /**
   * server/discover, waited for DISCOVER_TIMEOUT_MS; an answer later than that (a relay still starting) still counts:
   * the request stays open and the returned `discovering` settles with it.
   */
  private async discover(timeoutMs: number): Promise<{ discovering: Promise<JsonRpcResponse> }> {
    const discovering = this.peer
      .request("server/discover", { _meta: this.meta() }, timeoutMs)
      .then((response) => {
        this.discovered = response;
        const versions = (response.result as any)?.supportedVersions;
        if (Array.isArray(versions) && versions.includes(MRTR_ERA)) this.negotiated = MRTR_ERA;
        this.discoverNote = this.refusalOf("server/discover", response) ?? this.discoverNote;
        return response;
      });
    discovering.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        discovering,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, Math.min(timeoutMs, DISCOVER_TIMEOUT_MS));
        }),
      ]);
    } catch (error) {
      if (this.peer.closed !== undefined) {
        const refused = this.refusalOf("server/discover");
        if (refused) throw new ClientEraRefused(MRTR_ERA, refused);
        throw error;
      }
    } finally {
      clearTimeout(timer);
    }
    return { discovering };
  }

  /**
   * tools/list. server/discover refused with an error is a legacy server, which may hold every request until an
   * initialize this client never sends (lifecycle, "Initialization"): silence on tools/list for HELD_REQUEST_MS after
   * that refusal is the relay not serving this era, not a relay that hangs.
   */
  private async listTools(
    discovering: Promise<JsonRpcResponse>,
    timeoutMs: number,
  ): Promise<JsonRpcResponse> {
    const listing = this.peer.request("tools/list", { _meta: this.meta() }, timeoutMs);
    listing.catch(() => undefined);
    const never = () => new Promise<never>(() => undefined);
    const held = discovering.then(
      (response) =>
        response.error !== undefined && this.negotiated !== MRTR_ERA
          ? new Promise<"held">((resolve) => setTimeout(() => resolve("held"), HELD_REQUEST_MS).unref())
          : never(),
      never,
    );
    try {
      const first = await Promise.race([listing, held]);
      if (first !== "held") return first;
    } catch (error) {
      const refused = this.refusalOf("tools/list");
      if (refused && this.negotiated !== MRTR_ERA)
        throw new ClientEraRefused(MRTR_ERA, `${this.discoverNote}; ${refused}`);
      throw error;
    }
    throw new ClientEraRefused(
      MRTR_ERA,
      `${this.discoverNote}; tools/list not answered within ${HELD_REQUEST_MS} ms of that (a server holds requests until initialize)`,
    );
  }

  /**
   * server/discover (optional: a relay that does not answer it is not refused for that), then tools/list. A relay
   * that refuses both (a JSON-RPC error, or an HTTP 4xx) and never said it speaks 2026-07-28 does not serve clients
   * of this era at all: ClientEraRefused, so that only the cases that need such a client are affected.
   */
  async connect(timeoutMs: number): Promise<void> {
    const { discovering } = await this.discover(timeoutMs);
    const list = await this.listTools(discovering, timeoutMs);
    if (list.error) {
      const refused = this.refusalOf("tools/list", list)!;
      if (this.negotiated !== MRTR_ERA)
        throw new ClientEraRefused(MRTR_ERA, `${this.discoverNote}; ${refused}`);
      throw new Error(`the relay refused tools/list: ${clip(JSON.stringify(list.error), 300)}`);
    }
    this.noteShape(list.result);
    this.probeTool = findProbeTool(list, this.probe);
  }

  /** How the relay refused a request of this method (its HTTP status, its JSON-RPC error), if it did. */
  private refusalOf(method: string, response?: JsonRpcResponse): string | undefined {
    const status = this.channel.httpRefusal?.(method);
    const error = response?.error;
    const code = error ? ` (error ${String(error.code)} ${clip(JSON.stringify(error.message), 120)})` : "";
    if (status !== undefined && status >= 400 && status < 500) return `HTTP ${status} on ${method}${code}`;
    return error
      ? `${method} answered with error ${String(error.code)} ${clip(JSON.stringify(error.message), 120)}`
      : undefined;
  }

  script(answer: Answer, answerFor?: AnswerFor): void {
    this.answer = answer;
    this.answerFor = answerFor;
    this.asked = [];
    this.askedAt = undefined;
    this.answered = undefined;
    this.retried = 0;
    this.actions = [];
  }

  async callProbe(caseKey: string, timeoutMs: number): Promise<JsonRpcResponse> {
    const call = probeCall(this.probe, this.probeTool, { caseKey });
    let response = await this.peer.request("tools/call", { ...call, _meta: this.meta() }, timeoutMs);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const result = response.result;
      if (response.error !== undefined || !isObject(result)) return response;
      this.noteShape(result);
      if (result.resultType !== "input_required") return response;
      const roundAt = performance.now();
      const requests = isObject(result.inputRequests) ? result.inputRequests : {};
      const responses: Record<string, unknown> = {};
      let sampling = 0;
      for (const [key, request] of Object.entries(requests)) {
        if (!isObject(request)) continue;
        if (request.method === METHOD.createMessage) {
          sampling++;
          this.asked.push(request.params);
          this.askedAt ??= performance.now();
          if (this.answer?.action === "accept") {
            // Several requests in one case: each gets its own result; `answered` keeps the first reply.
            const result = this.answerFor?.(request.params) ?? this.answer.result;
            responses[key] = result;
            this.answered ??= { result };
          }
        } else if (request.method === "roots/list") {
          responses[key] = { roots: [] };
        }
      }
      // Declining (or failing, or never answering) a sampling input leaves it out: the call simply ends here.
      if (sampling > 0 && this.answer?.action !== "accept") return response;
      const delayMs = sampling > 0 && this.answer?.action === "accept" ? this.answer.delayMs : undefined;
      if (delayMs) this.onWait?.();
      if (sampling > 0 && this.holdAnswer) await this.holdAnswer();
      // The answer comes delayMs after the questions did, as a person's would: a hold does not add to it (on a loaded
      // machine the two together outlasted the relay's answer deadline, counted from the same moment).
      const left = (delayMs ?? 0) - (performance.now() - roundAt);
      if (left > 0) await new Promise((r) => setTimeout(r, left));
      const retry: Record<string, unknown> = { ...call, _meta: this.meta() };
      if (Object.keys(responses).length > 0) retry.inputResponses = responses;
      if (Object.hasOwn(result, "requestState")) retry.requestState = result.requestState;
      this.retried++;
      // The retry carries the answers: it is the scripted action whose lateness counts (lateness.ts).
      const log = this.actions;
      const scriptedDelayMs = sampling > 0 ? (delayMs ?? 0) : undefined;
      const action: ActionLog[number] | undefined =
        scriptedDelayMs === undefined ? undefined : { kind: "retry", deliveredAt: roundAt, scriptedDelayMs };
      if (action) log.push(action);
      const written = action
        ? () => {
            action.writtenAt = performance.now();
          }
        : undefined;
      response = await this.peer.request("tools/call", retry, timeoutMs, written ? { written } : undefined);
    }
    return response;
  }
}
