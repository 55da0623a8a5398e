#!/usr/bin/env node
// An independent MCP sampling relay, written from the sampling spec of each revision
// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling and the revisions before and after it)
// without looking at or importing anything of src/ (no reference relay, no validator, no SDK): Node built-ins, and
// ajv for JSON Schema (rules.mjs: structuredContent against its tool's outputSchema).
// It exists so that the harness can be checked against a second correct relay: a case that fails this relay
// too is a suspect of demanding more than the spec does.
//
//   node targets/independent/relay.mjs [--deadline-ms 1200] -- UPSTREAM_COMMAND [ARGS…]
//
// Downstream (our stdin/stdout): an MCP client that answers sampling. Upstream: the MCP server command, spawned,
// spoken to over its stdio. Both hops are newline-delimited JSON-RPC 2.0, each with its own request ids.
//
// What it does with sampling:
//  - legacy eras (initialize handshake): validates every sampling/createMessage for the upstream's era before
//    asking anyone (-32602 when malformed or when it uses tools the answering side did not declare), asks the
//    downstream with params untouched, applies its own deadline, validates the answer against the request
//    (-32603 when unusable; role/model are never filled in) and passes errors on with their code.
//  - 2026-07-28 (multi-round-trip): checks each sampling entry of an input_required result against the
//    capabilities of that call (-32602 malformed, -32021 capability missing), then checks the answers in the
//    retry's inputResponses before forwarding it (-32602 to the downstream, nothing forwarded).
//  - ends of different generations: a legacy downstream in front of a 2026-07-28 upstream (initialize refused
//    with -32022) has each sampling input of a round put to it as sampling/createMessage, and the answers go up in
//    one retry; a 2026-07-28 downstream in front of a legacy upstream (server/discover not answered with
//    2026-07-28) has each sampling/createMessage put to it as an input_required round of its call. An input nobody
//    gave is absent in 2026-07-28; in the legacy eras a missing key is a decline (-1) and silence is expiry.
//
// Deliberate differences from the reference relay (src/relay): its own error wording, a 1200 ms default
// deadline (not 1500), a "dev.independent/relay" _meta entry on what it originates itself (its initialize
// request upstream, the data of its own errors), its own id numbering, and it answers the downstream with the
// era the downstream asked for (it speaks every era) while it validates for the era of each hop.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  atLeast,
  declaresSampling,
  declaresSamplingTools,
  ERAS,
  MODERN,
  olderOf,
  requestProblem,
  resultProblem,
  untranslatable,
  usesTools,
} from "./rules.mjs";
import { Side } from "./wire.mjs";

const META_KEY = "dev.independent/relay";
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";
/** The per-request _meta entries of 2026-07-28 that describe the client (nothing a legacy server reads). */
const CLIENT_META = [PROTOCOL_VERSION, CLIENT_CAPABILITIES, CLIENT_INFO];
/** What the relay asks a legacy upstream for when its downstream speaks 2026-07-28. */
const NEWEST_LEGACY = "2025-11-25";
const SAMPLING = "sampling/createMessage";
/** Client requests that may be answered with input_required (2026-07-28 MRTR). */
const MRTR_METHODS = new Set(["tools/call", "prompts/get", "resources/read"]);
const MAX_ROUNDS_KEPT = 256;

const isObj = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------- arguments

function parseArgs(argv) {
  const sep = argv.indexOf("--");
  const own = sep === -1 ? argv : argv.slice(0, sep);
  const command = sep === -1 ? [] : argv.slice(sep + 1);
  let deadlineMs = 1200;
  for (let i = 0; i < own.length; i++) {
    if (own[i] === "--deadline-ms") deadlineMs = Number(own[++i]);
    else if (own[i].startsWith("--deadline-ms=")) deadlineMs = Number(own[i].slice(14));
    else usage(`unknown option ${own[i]}`);
  }
  if (!Number.isInteger(deadlineMs) || deadlineMs <= 0) usage("--deadline-ms needs a positive integer");
  if (command.length === 0) usage("no upstream command after --");
  return { deadlineMs, command };
}

function usage(problem) {
  process.stderr.write(
    `independent relay: ${problem}\nusage: relay.mjs [--deadline-ms N] -- COMMAND [ARGS…]\n`,
  );
  process.exit(2);
}

const { deadlineMs, command } = parseArgs(process.argv.slice(2));

// ---------------------------------------------------------------------------------------------- state

const state = {
  /** "legacy" (initialize handshake) or "modern" (2026-07-28); decided by the downstream's first request. */
  mode: undefined,
  /** The era agreed with the upstream, and the era given to the downstream (they may differ). */
  upEra: undefined,
  downEra: undefined,
  /** Client capabilities the downstream declared at initialize (legacy). */
  downCaps: {},
  /** Whether the legacy downstream sent notifications/initialized (no sampling request goes down before it). */
  downInitialized: false,
  /** The clientInfo the legacy downstream gave at initialize (passed on in _meta to a 2026-07-28 upstream). */
  downInfo: undefined,
  /**
   * When the two ends speak different generations: "to-modern" (a legacy downstream, a 2026-07-28 upstream),
   * "to-legacy" (a 2026-07-28 downstream, a legacy upstream), "unreachable" (a 2026-07-28 downstream, an upstream
   * that speaks neither); undefined when both ends speak alike.
   */
  bridge: undefined,
  /** "to-legacy": the legacy upstream's initialize result; "unreachable": the error every request gets. */
  upServer: undefined,
  upUnreachable: undefined,
};
/** Questions waiting for the downstream's notifications/initialized: upstream id (or a bridge's own key) → ask. */
const awaitingInitialized = new Map();
/** Downstream request id → upstream id, for requests we forwarded upstream (to map cancellations). */
const forwardedUp = new Map();
/** Upstream request id → { downId, timer? }, for requests we put to the downstream. */
const forwardedDown = new Map();
/** 2026-07-28: sampling questions passed down, by requestState (or call signature when there is none). */
const rounds = new Map();

// ---------------------------------------------------------------------------------------------- the two hops

const child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
child.on("error", (e) => {
  process.stderr.write(`independent relay: cannot start the upstream: ${e.message}\n`);
  process.exit(1);
});
let closing = false; // set once our downstream is gone and we stop the upstream ourselves
child.on("exit", (code) => process.exit(closing ? 0 : (code ?? 1)));
child.stdin.on("error", () => undefined); // the upstream went away; its exit ends us

const down = new Side("downstream", process.stdin, process.stdout, fromDownstream);
const up = new Side("upstream", child.stdout, child.stdin, fromUpstream);
process.stdin.on("end", () => {
  closing = true;
  child.kill();
  setTimeout(() => process.exit(0), 200).unref();
});

/** The data of an error the relay makes itself: where the problem is, under our own _meta key. */
function ourData(stage, at, extra = {}) {
  return { ...extra, _meta: { [META_KEY]: { stage, ...(at ? { at } : {}) } } };
}

// ---------------------------------------------------------------------------------------------- downstream → us

function fromDownstream(msg) {
  // A 2026-07-28 downstream's first request makes us find out what the upstream speaks; what comes meanwhile waits.
  if (upstreamSettling) return void upstreamSettling.then(() => fromDownstream(msg));
  const isRequest = msg.id !== undefined && typeof msg.method === "string";
  if (!isRequest) return fromDownstreamNotification(msg);
  if (state.mode === undefined) {
    state.mode = looksModern(msg) ? "modern" : "legacy";
    if (state.mode === "modern") return settleUpstream(msg);
  }
  if (state.mode === "legacy") return legacyRequest(msg);
  modernRequest(msg);
}

function legacyRequest(msg) {
  if (msg.method === "initialize") return initialize(msg);
  // A legacy ping asks whether we are alive; answer it ourselves (2026-07-28 results carry a resultType, so
  // there the upstream answers).
  if (msg.method === "ping") return down.reply(msg.id, {});
  if (state.bridge === "to-modern") return towardModern(msg);
  forwardUpstream(msg, (reply) => relayReply(down, msg.id, reply));
}

function modernRequest(msg) {
  if (state.bridge === "to-legacy") return towardLegacy(msg);
  if (state.bridge === "unreachable") return down.fail(msg.id, state.upUnreachable);
  if (MRTR_METHODS.has(msg.method)) return modernCall(msg);
  forwardUpstream(msg, (reply) => relayReply(down, msg.id, reply));
}

function fromDownstreamNotification(msg) {
  if (msg.method === "notifications/initialized") {
    downstreamInitialized();
    if (state.bridge === "to-modern") return; // 2026-07-28 has no initialize, so nothing to confirm upstream
  }
  if (msg.method === "notifications/cancelled" && state.bridge === "to-modern")
    withdrawnCalls.add(msg.params?.requestId);
  notification(msg, forwardedUp, up);
}

/** A 2026-07-28 client opens with server/discover, or puts the protocol version in every request's _meta. */
function looksModern(msg) {
  return msg.method === "server/discover" || msg.params?._meta?.[PROTOCOL_VERSION] === MODERN;
}

/** Forwards a downstream request upstream under a fresh id; params go as they came. */
function forwardUpstream(msg, onReply, params = msg.params) {
  const upId = up.request(msg.method, params, (reply) => {
    forwardedUp.delete(msg.id);
    onReply(reply);
  });
  forwardedUp.set(msg.id, upId);
}

/** Copies a reply's result or error unchanged to `side` under `id`. */
function relayReply(side, id, reply) {
  if ("error" in reply) side.fail(id, reply.error);
  else side.reply(id, reply.result);
}

/**
 * Notifications pass through; a cancellation names a request id of the sender's hop, so it is renamed to the
 * id we used on the other hop (and dropped when we never forwarded that request).
 */
function notification(msg, ids, to) {
  if (typeof msg.method !== "string") return;
  if (msg.method !== "notifications/cancelled") return to.notify(msg.method, msg.params);
  const mine = ids.get(msg.params?.requestId);
  if (mine === undefined) return;
  const targetId = typeof mine === "object" ? mine.downId : mine;
  if (typeof mine === "object") dropPending(msg.params.requestId);
  to.notify(msg.method, { ...msg.params, requestId: targetId });
}

// ---------------------------------------------------------------------------------------------- legacy handshake

/** What we declare upstream: sampling only if the downstream did, sampling.tools / context only if it did too. */
function capabilitiesForUpstream(downCaps, downEra) {
  const caps = {};
  if (isObj(downCaps.roots)) caps.roots = downCaps.roots;
  if (isObj(downCaps.elicitation)) caps.elicitation = downCaps.elicitation;
  if (declaresSampling(downCaps)) {
    const sampling = {};
    if (!downEra || atLeast(downEra, "2025-11-25")) {
      if (isObj(downCaps.sampling.tools)) sampling.tools = downCaps.sampling.tools;
      if (isObj(downCaps.sampling.context)) sampling.context = downCaps.sampling.context;
    }
    caps.sampling = sampling;
  }
  return caps; // never `tasks`: we relay sampling synchronously, so task-augmented requests get plain results
}

function initialize(msg) {
  const p = isObj(msg.params) ? msg.params : {};
  const asked =
    ERAS.includes(p.protocolVersion) && p.protocolVersion !== MODERN ? p.protocolVersion : undefined;
  state.downCaps = isObj(p.capabilities) ? p.capabilities : {};
  state.downInfo = isObj(p.clientInfo) ? p.clientInfo : undefined;
  const params = {
    ...p,
    capabilities: capabilitiesForUpstream(state.downCaps, asked),
    _meta: { ...(isObj(p._meta) ? p._meta : {}), [META_KEY]: { relay: "independent", deadlineMs } },
  };
  forwardUpstream(msg, (reply) => initialized(msg, asked, reply), params);
}

function initialized(msg, asked, reply) {
  // 2026-07-28 servers have no initialize and refuse it as an unsupported protocol version: bridge to them.
  if (reply.error?.code === -32022) return tryModernUpstream(msg, asked, reply.error);
  if ("error" in reply) return down.fail(msg.id, reply.error);
  const agreed = reply.result?.protocolVersion;
  if (!ERAS.includes(agreed) || agreed === MODERN) {
    return down.fail(msg.id, {
      code: -32603,
      message: `the upstream agreed to protocol version ${JSON.stringify(agreed)}, which this relay cannot carry`,
      data: ourData("initialize"),
    });
  }
  state.upEra = agreed;
  // We speak every era, so the downstream gets the version it asked for (lifecycle: a server that supports
  // the requested version answers with it); sampling is then validated for each hop's own era.
  state.downEra = asked ?? agreed;
  down.reply(msg.id, { ...reply.result, protocolVersion: state.downEra });
}

// ---------------------------------------------------------------------------------------------- upstream → us

function fromUpstream(msg) {
  const isRequest = msg.id !== undefined && typeof msg.method === "string";
  if (!isRequest) return notification(msg, forwardedDown, down);
  if (msg.method === "ping") return up.reply(msg.id, {});
  if (msg.method === SAMPLING) return state.bridge === "to-legacy" ? questionForRound(msg) : sampling(msg);
  askDownstream(msg, (reply) => relayReply(up, msg.id, reply));
}

/** Puts an upstream request to the downstream under a fresh id. */
function askDownstream(msg, onReply, timer) {
  const downId = down.request(msg.method, msg.params, (reply) => {
    dropPending(msg.id);
    onReply(reply);
  });
  forwardedDown.set(msg.id, { downId, timer });
  return downId;
}

function dropPending(upId) {
  const pending = forwardedDown.get(upId);
  if (!pending) return;
  clearTimeout(pending.timer);
  down.forget(pending.downId);
  forwardedDown.delete(upId);
}

/** Refuses an upstream request without asking anyone. */
function refuse(id, code, stage, problem) {
  up.fail(id, refusal(code, stage, problem));
}

/** The error of a refusal: what is wrong and where. */
function refusal(code, stage, problem) {
  return { code, message: `rejected: ${problem.why} (at ${problem.at})`, data: ourData(stage, problem.at) };
}

// Limits the spec asks for without figures ("SHOULD implement rate limiting", "SHOULD implement iteration limits for
// tool loops"): at most MAX_OPEN sampling questions open at once (legacy: pending requests; 2026-07-28: sampling
// inputs of one round, the rest left out), and at most MAX_TOOL_TURNS assistant tool_use turns in one request.
const MAX_OPEN = 8;
const MAX_TOOL_TURNS = 8;

function loopTooLong(params) {
  const messages = Array.isArray(params?.messages) ? params.messages : [];
  const turns = messages.filter(
    (m) =>
      m?.role === "assistant" &&
      (Array.isArray(m.content) ? m.content : [m.content]).some((b) => b?.type === "tool_use"),
  ).length;
  return turns > MAX_TOOL_TURNS
    ? { at: "messages", why: `the tool loop ran ${turns} turns, more than ${MAX_TOOL_TURNS}` }
    : null;
}

/** 2026-07-28: the round's sampling inputs past MAX_OPEN are not passed on (the retry will carry no answer for them). */
function withinRate(result) {
  let open = 0;
  const kept = {};
  for (const [key, req] of Object.entries(result.inputRequests ?? {})) {
    if (isObj(req) && req.method === SAMPLING && ++open > MAX_OPEN) continue;
    kept[key] = req;
  }
  return open > MAX_OPEN ? { ...result, inputRequests: kept } : result;
}

/** Legacy sampling/createMessage: validate, ask with a deadline, validate the answer, relay. */
function sampling(msg) {
  const params = msg.params;
  const upEra = state.upEra ?? "2025-11-25";
  const downEra = state.downEra ?? upEra;
  if (!declaresSampling(state.downCaps)) {
    return up.fail(msg.id, {
      code: -32601,
      message: "sampling is not available here: the client behind this relay did not declare it",
      data: ourData("capability"),
    });
  }
  const bad = requestProblem(params, upEra);
  if (bad) return refuse(msg.id, -32602, "request", bad);
  if (usesTools(params) && !declaresSamplingTools(state.downCaps)) {
    const at = params.tools !== undefined ? "tools" : "toolChoice";
    return refuse(msg.id, -32602, "capability", {
      at,
      why: "tool use was not declared (sampling.tools) by the client",
    });
  }
  const unfit = untranslatable(params, downEra);
  if (unfit) return refuse(msg.id, -32602, "era", unfit);
  const loop = loopTooLong(params);
  if (loop) return refuse(msg.id, -32000, "limit", loop);
  if (forwardedDown.size >= MAX_OPEN)
    return refuse(msg.id, -32000, "limit", { at: "", why: `too many sampling requests open (${MAX_OPEN})` });

  const timer = setTimeout(() => expire(msg.id), deadlineMs);
  const asked = { ...msg, params: withoutUndeclared(params, state.downCaps, downEra) };
  const ask = () => askDownstream(asked, (reply) => answered(msg.id, params, reply), timer);
  // Lifecycle: "The server SHOULD NOT send requests other than pings and logging before receiving the
  // initialized notification." The question waits for it (under the same deadline).
  if (state.downInitialized) ask();
  else awaitingInitialized.set(msg.id, ask);
}

function downstreamInitialized() {
  state.downInitialized = true;
  const waiting = [...awaitingInitialized.values()];
  awaitingInitialized.clear();
  for (const ask of waiting) ask();
}

/**
 * What the downstream did not declare it can take is not passed on: includeContext "thisServer"/"allServers"
 * without sampling.context (2025-11-25 on: servers "SHOULD NOT use them unless the client declares
 * `sampling.context` capability"), and `task` without tasks.requests.sampling.createMessage ("Requestors SHOULD only
 * augment requests with a task if the corresponding capability has been declared by the receiver"). As the
 * upstream's client we may ignore both, so we drop them.
 */
function withoutUndeclared(params, caps, era) {
  if (!isObj(params)) return params;
  const out = { ...params };
  const wide = out.includeContext === "thisServer" || out.includeContext === "allServers";
  if (wide && atLeast(era, "2025-11-25") && !isObj(caps?.sampling?.context)) delete out.includeContext;
  if (out.task !== undefined && !isObj(caps?.tasks?.requests?.sampling?.createMessage)) delete out.task;
  return out;
}

/** The inputRequests passed down: each sampling request without what the call's capabilities did not declare. */
function inputRequestsFor(requests, caps) {
  if (!isObj(requests)) return requests;
  const out = {};
  for (const [key, req] of Object.entries(requests)) {
    out[key] =
      isObj(req) && req.method === SAMPLING
        ? { ...req, params: withoutUndeclared(req.params, caps, MODERN) }
        : req;
  }
  return out;
}

function answered(upId, request, reply) {
  if ("error" in reply) return up.fail(upId, ownErrorCopy(reply.error));
  const era = olderOf(state.upEra ?? "2025-11-25", state.downEra ?? state.upEra ?? "2025-11-25");
  const bad = resultProblem(reply.result, request, era);
  if (!bad) return up.reply(upId, reply.result);
  up.fail(upId, {
    code: -32603,
    message: `the answer cannot be passed on: ${bad.why} (at ${bad.at})`,
    data: ourData("result", bad.at),
  });
}

/**
 * The downstream's error, with its code unchanged. The message is kept, minus SDK-style "MCP error N: " prefixes
 * (the code already says that; stacking them garbles the words the user gave).
 */
function ownErrorCopy(error) {
  const code = Number.isInteger(error?.code) ? error.code : -32603;
  const raw = typeof error?.message === "string" ? error.message : "the client failed without saying why";
  const message = raw.replace(/^(MCP error -?\d+:\s*)+/, "") || raw;
  const copy = { code, message };
  if (isObj(error) && "data" in error) copy.data = error.data;
  return copy;
}

/** Our deadline passed: tell the upstream time ran out, withdraw the question downstream, ignore a late answer. */
function expire(upId) {
  if (awaitingInitialized.delete(upId)) return up.fail(upId, timedOut());
  const pending = forwardedDown.get(upId);
  if (!pending) return;
  dropPending(upId);
  down.notify("notifications/cancelled", {
    requestId: pending.downId,
    reason: "the relay's answer deadline passed",
  });
  up.fail(upId, timedOut());
}

function timedOut() {
  return {
    code: -32603,
    message: `timed out: no answer from the client within the relay's ${deadlineMs} ms deadline`,
    data: ourData("deadline", undefined, { deadlineMs }),
  };
}

// ---------------------------------------------------------------------------------------------- 2026-07-28

/** Where a round of questions is kept: by requestState when the upstream gave one, else by the call itself. */
function roundKeys(params) {
  const keys = [];
  if (typeof params?.requestState === "string") keys.push(`state:${params.requestState}`);
  const { name, uri, arguments: args } = isObj(params) ? params : {};
  keys.push(`call:${JSON.stringify([name, uri, args])}`);
  return keys;
}

function keepRound(params, requests, result) {
  const key =
    typeof result.requestState === "string" ? `state:${result.requestState}` : roundKeys(params).at(-1);
  rounds.delete(key);
  rounds.set(key, requests);
  while (rounds.size > MAX_ROUNDS_KEPT) rounds.delete(rounds.keys().next().value);
}

function findRound(params) {
  for (const key of roundKeys(params)) if (rounds.has(key)) return { key, requests: rounds.get(key) };
  return undefined;
}

/** A call that may be answered with input_required, or the retry carrying inputResponses. */
function modernCall(msg) {
  const params = msg.params;
  const caps = params?._meta?.[CLIENT_CAPABILITIES] ?? {};
  if (params?.inputResponses !== undefined) {
    const bad = checkInputResponses(params);
    if (bad) {
      return down.fail(msg.id, {
        code: -32602,
        message: `rejected: inputResponses ${bad.why} (at ${bad.at})`,
        data: ourData("inputResponses", bad.at),
      });
    }
  }
  forwardUpstream(msg, (reply) => {
    if ("error" in reply || reply.result?.resultType !== "input_required")
      return relayReply(down, msg.id, reply);
    const refusal = checkInputRequests(reply.result, caps);
    if (refusal) return down.fail(msg.id, refusal);
    const result = withinRate(reply.result);
    keepRound(params, result.inputRequests ?? {}, result);
    const passed = result.inputRequests;
    if (passed === undefined) return down.reply(msg.id, result);
    down.reply(msg.id, { ...result, inputRequests: inputRequestsFor(passed, caps) });
  });
}

/** Each sampling input request, against the capabilities declared on the call that caused it. */
function checkInputRequests(result, caps) {
  const requests = result.inputRequests;
  if (requests === undefined) return null;
  if (!isObj(requests)) {
    return {
      code: -32603,
      message: "the server's inputRequests is not an object",
      data: ourData("inputRequests"),
    };
  }
  for (const [key, req] of Object.entries(requests)) {
    if (!isObj(req) || req.method !== SAMPLING) continue;
    const at = `inputRequests[${JSON.stringify(key)}].params`;
    if (!declaresSampling(caps)) return missingCapability({ sampling: {} }, "sampling", at);
    const bad = requestProblem(req.params, MODERN);
    if (bad) {
      return {
        code: -32602,
        message: `rejected: the server's sampling request is malformed: ${bad.why} (at ${at}.${bad.at})`,
        data: ourData("inputRequests", `${at}.${bad.at}`),
      };
    }
    if (usesTools(req.params) && !declaresSamplingTools(caps))
      return missingCapability({ sampling: { tools: {} } }, "sampling.tools", at);
    const loop = loopTooLong(req.params);
    if (loop)
      return { code: -32000, message: `refused: ${loop.why}`, data: ourData("limit", `${at}.messages`) };
  }
  return null;
}

/** MissingRequiredClientCapabilityError (-32021) with data.requiredCapabilities, as the 2026-07-28 spec names it. */
function missingCapability(required, what, at) {
  return {
    code: -32021,
    message: `this call needs the ${what} capability, which the request's _meta did not declare`,
    data: ourData("inputRequests", at, { requiredCapabilities: required }),
  };
}

/** Each sampling answer in a retry, against the question it answers. */
function checkInputResponses(params) {
  const responses = params.inputResponses;
  if (!isObj(responses)) return { at: "inputResponses", why: "must be an object" };
  const round = findRound(params);
  if (!round) {
    if (Object.keys(responses).length === 0) return null;
    return { at: "inputResponses", why: "answer questions this relay never passed on" };
  }
  for (const [key, answer] of Object.entries(responses)) {
    const req = round.requests[key];
    if (!isObj(req) || req.method !== SAMPLING) continue; // not a sampling question: passed on as it is
    const bad = resultProblem(answer, req.params, MODERN);
    if (bad)
      return {
        at: `inputResponses[${JSON.stringify(key)}].${bad.at}`,
        why: `hold an unusable answer: ${bad.why}`,
      };
  }
  rounds.delete(round.key);
  return null;
}

// ---------------------------------------------------------------------------------------------- shared by the bridges

/** Whether a server/discover reply says the upstream speaks 2026-07-28. */
function speaksModern(reply) {
  const versions = reply.result?.supportedVersions;
  return Array.isArray(versions) && versions.includes(MODERN);
}

/** A copy of `obj` without the listed keys. */
function without(obj, keys) {
  const out = { ...obj };
  for (const k of keys) delete out[k];
  return out;
}

/** The capabilities a 2026-07-28 request declares in its _meta, if it declares any. */
function declaredOn(params) {
  const caps = params?._meta?.[CLIENT_CAPABILITIES];
  return isObj(caps) ? caps : undefined;
}

/** A state string nobody can guess, for the rounds we make up ourselves. */
const newRequestState = () => `independent-relay:${randomBytes(12).toString("base64url")}`;

// ---------------------------------------------------------------------------------------------- bridge: legacy downstream, 2026-07-28 upstream
//
// The downstream said initialize; the upstream refused it with -32022 and answers server/discover with 2026-07-28.
// We answer initialize ourselves, send every request up with the per-request _meta of 2026-07-28 (the capabilities
// the downstream declared, fitted to its era), and serve each input_required round of a call by asking the
// downstream its questions as requests of its own era. The answers go up in one retry of the call (a new id,
// inputResponses by key, requestState as we got it). A question the downstream declined, failed or let expire has
// no answer to give: its key stays out of the retry, and when no question of the round got an answer there is no
// retry at all (the server is not waiting for one) and the downstream's call fails with that question's error.

/** Downstream calls the downstream cancelled: no further round goes up for them. */
const withdrawnCalls = new Set();
/** Input rounds one call may take before we give up on a server that keeps asking. */
const MAX_INPUT_ROUNDS = 10;

function tryModernUpstream(msg, asked, initRefusal) {
  const downEra = asked ?? NEWEST_LEGACY;
  const meta = modernMeta(downEra);
  up.request("server/discover", { _meta: meta }, (reply) => {
    if (!speaksModern(reply)) return down.fail(msg.id, initRefusal);
    state.upEra = MODERN;
    state.downEra = downEra;
    state.bridge = "to-modern";
    const found = isObj(reply.result) ? reply.result : {};
    const info = found._meta?.[SERVER_INFO];
    down.reply(msg.id, {
      protocolVersion: downEra,
      capabilities: isObj(found.capabilities) ? found.capabilities : {},
      serverInfo: isObj(info) ? info : { name: "independent-relay", version: "0" },
      ...(typeof found.instructions === "string" ? { instructions: found.instructions } : {}),
      _meta: { [META_KEY]: { upstreamSpeaks: MODERN } },
    });
  });
}

/** The _meta a 2026-07-28 upstream needs on every request, on behalf of our legacy downstream. */
function modernMeta(downEra = state.downEra) {
  return {
    [PROTOCOL_VERSION]: MODERN,
    [CLIENT_CAPABILITIES]: capabilitiesForUpstream(state.downCaps, downEra),
    [CLIENT_INFO]: state.downInfo ?? { name: "independent-relay", version: "0" },
  };
}

function withModernMeta(params) {
  const p = isObj(params) ? params : {};
  return { ...p, _meta: { ...(isObj(p._meta) ? p._meta : {}), ...modernMeta() } };
}

/** A 2026-07-28 reply as a legacy client reads it: results do not say what they are. */
function legacyReply(reply) {
  if (!isObj(reply.result) || !("resultType" in reply.result)) return reply;
  return { ...reply, result: without(reply.result, ["resultType"]) };
}

function towardModern(msg) {
  if (MRTR_METHODS.has(msg.method)) {
    callInRounds(msg).catch((e) =>
      down.fail(msg.id, {
        code: -32603,
        message: `the relay failed this call: ${e?.message ?? e}`,
        data: ourData("bridge"),
      }),
    );
    return;
  }
  forwardUpstream(msg, (reply) => relayReply(down, msg.id, legacyReply(reply)), withModernMeta(msg.params));
}

/** Sends the call up (again) and waits for the reply. */
const callUp = (msg, params) => new Promise((settle) => forwardUpstream(msg, settle, params));

async function callInRounds(msg) {
  const call = withModernMeta(msg.params);
  const declared = call._meta[CLIENT_CAPABILITIES];
  let reply = await callUp(msg, call);
  for (let round = 1; reply.result?.resultType === "input_required"; round++) {
    if (round > MAX_INPUT_ROUNDS) {
      return down.fail(msg.id, {
        code: -32000,
        message: `refused: the server asked for input ${MAX_INPUT_ROUNDS} times in one call`,
        data: ourData("limit"),
      });
    }
    const bad = checkInputRequests(reply.result, declared);
    if (bad) return down.fail(msg.id, bad);
    const result = withinRate(reply.result);
    const asked = Object.entries(isObj(result.inputRequests) ? result.inputRequests : {});
    const outcomes = await Promise.all(asked.map(([, request]) => answerInput(request)));
    const inputResponses = {};
    let firstMiss;
    asked.forEach(([key], i) => {
      if ("result" in outcomes[i]) inputResponses[key] = outcomes[i].result;
      else firstMiss ??= outcomes[i].error;
    });
    if (withdrawnCalls.delete(msg.id)) return;
    // Nothing answered: the server is not waiting for a retry, and the client's call ends with the first miss.
    if (asked.length > 0 && Object.keys(inputResponses).length === 0) return down.fail(msg.id, firstMiss);
    const retry = asked.length > 0 ? { ...call, inputResponses } : { ...call };
    if (Object.hasOwn(result, "requestState")) retry.requestState = result.requestState;
    reply = await callUp(msg, retry);
  }
  withdrawnCalls.delete(msg.id);
  relayReply(down, msg.id, legacyReply(reply));
}

/** One input request of a round, put to the legacy downstream: { result } or { error } (an absent input). */
async function answerInput(request) {
  if (!isObj(request) || typeof request.method !== "string") {
    return {
      error: {
        code: -32603,
        message: "the server's input request names no method",
        data: ourData("inputRequests"),
      },
    };
  }
  if (request.method !== SAMPLING) return askLegacyDownstream(request.method, request.params);
  const params = request.params;
  const unfit = untranslatable(params, state.downEra);
  if (unfit) return { error: refusal(-32602, "era", unfit) };
  const reply = await askLegacyDownstream(SAMPLING, withoutUndeclared(params, state.downCaps, state.downEra));
  if ("error" in reply) return reply;
  // The downstream's era is the older one, so its rules are the stricter: an answer that keeps them fits both.
  const bad = resultProblem(reply.result, params, state.downEra);
  if (!bad) return reply;
  return {
    error: {
      code: -32603,
      message: `the answer cannot be passed on: ${bad.why} (at ${bad.at})`,
      data: ourData("result", bad.at),
    },
  };
}

/** A request to the legacy downstream, under our deadline and after its notifications/initialized. */
function askLegacyDownstream(method, params) {
  return new Promise((settle) => {
    const held = Symbol(method);
    let downId;
    const timer = setTimeout(() => {
      awaitingInitialized.delete(held);
      if (downId !== undefined) {
        down.forget(downId);
        down.notify("notifications/cancelled", {
          requestId: downId,
          reason: "the relay's answer deadline passed",
        });
      }
      settle({ error: timedOut() });
    }, deadlineMs);
    const ask = () => {
      downId = down.request(method, params, (reply) => {
        clearTimeout(timer);
        settle("error" in reply ? { error: ownErrorCopy(reply.error) } : { result: reply.result });
      });
    };
    if (state.downInitialized) ask();
    else awaitingInitialized.set(held, ask);
  });
}

// ---------------------------------------------------------------------------------------------- bridge: 2026-07-28 downstream, legacy upstream
//
// The downstream speaks 2026-07-28; the upstream does not answer server/discover with it, so we initialize it
// (declaring what the downstream declares for sampling) and answer server/discover ourselves. A sampling request
// the upstream sends during a call becomes an input_required round of that call, under a requestState of our own;
// the downstream's retry with that state carries the answer (inputResponses[key]), which becomes the response. A
// retry without the key is a decline (-1 upstream); no retry before our deadline is expiry (-32603), since a
// 2026-07-28 client that declines simply does not come back, and we cannot tell that from one that never answers.

/** Non-null while we find out what the upstream speaks (the downstream's requests wait for it). */
let upstreamSettling = null;
/** Calls of the downstream in flight at the legacy upstream (the upstream's questions join one of them). */
const liveCalls = new Set();
/** Rounds passed down, by our requestState (kept after expiry, so a late retry still gets its call's outcome). */
const openRounds = new Map();
let questionCount = 0;

function settleUpstream(first) {
  const meta = isObj(first.params?._meta) ? first.params._meta : {};
  state.downCaps = declaredOn(first.params) ?? {};
  const ownDiscover = first.method === "server/discover";
  const probe = ownDiscover
    ? first.params
    : { _meta: Object.fromEntries(CLIENT_META.filter((k) => k in meta).map((k) => [k, meta[k]])) };
  upstreamSettling = new Promise((settled) => {
    const settle = (consumed) => {
      upstreamSettling = null;
      if (!consumed) modernRequest(first);
      settled();
    };
    up.request("server/discover", probe, (reply) => {
      if (!speaksModern(reply)) return initializeLegacyUpstream(meta, () => settle(false));
      state.upEra = MODERN;
      if (ownDiscover) relayReply(down, first.id, reply);
      settle(ownDiscover);
    });
  });
}

function initializeLegacyUpstream(meta, then) {
  const params = {
    protocolVersion: NEWEST_LEGACY,
    capabilities: capabilitiesForUpstream(state.downCaps, NEWEST_LEGACY),
    clientInfo: isObj(meta[CLIENT_INFO]) ? meta[CLIENT_INFO] : { name: "independent-relay", version: "0" },
    _meta: { [META_KEY]: { relay: "independent", deadlineMs, downstreamSpeaks: MODERN } },
  };
  up.request("initialize", params, (reply) => {
    const agreed = reply.result?.protocolVersion;
    if (ERAS.includes(agreed) && agreed !== MODERN) {
      state.upEra = agreed;
      state.bridge = "to-legacy";
      state.upServer = reply.result;
      up.notify("notifications/initialized");
    } else {
      state.bridge = "unreachable";
      state.upUnreachable = {
        code: -32603,
        message: "the server behind this relay speaks no protocol version the relay can carry",
        data: ourData("initialize", undefined, { upstream: reply.error ?? { protocolVersion: agreed } }),
      };
    }
    then();
  });
}

/** The legacy upstream's initialize result, told as a 2026-07-28 server/discover result. */
function discoverAnswer() {
  const s = state.upServer;
  return {
    resultType: "complete",
    supportedVersions: [MODERN],
    capabilities: isObj(s.capabilities) ? s.capabilities : {},
    ...(typeof s.instructions === "string" ? { instructions: s.instructions } : {}),
    _meta: { [SERVER_INFO]: s.serverInfo, [META_KEY]: { upstreamSpeaks: state.upEra } },
  };
}

/** Params as a legacy server reads them: no 2026-07-28 client _meta, no input round fields. */
function legacyParams(params) {
  if (!isObj(params)) return params;
  const out = without(params, ["inputResponses", "requestState"]);
  if (!isObj(params._meta)) return out;
  const meta = without(params._meta, CLIENT_META);
  if (Object.keys(meta).length > 0) out._meta = meta;
  else delete out._meta;
  return out;
}

/** A legacy reply as a 2026-07-28 client reads it: every result says what it is. */
function completeReply(reply) {
  if (!isObj(reply.result) || "resultType" in reply.result) return reply;
  return { ...reply, result: { ...reply.result, resultType: "complete" } };
}

function towardLegacy(msg) {
  if (msg.method === "server/discover") return down.reply(msg.id, discoverAnswer());
  if (MRTR_METHODS.has(msg.method)) return callWithRounds(msg);
  forwardUpstream(msg, (reply) => relayReply(down, msg.id, completeReply(reply)), legacyParams(msg.params));
}

function callWithRounds(msg) {
  const params = isObj(msg.params) ? msg.params : {};
  const round = typeof params.requestState === "string" ? openRounds.get(params.requestState) : undefined;
  if (round) return retried(round, msg);
  const answers = params.inputResponses;
  if (answers !== undefined && !(isObj(answers) && Object.keys(answers).length === 0)) {
    return down.fail(msg.id, {
      code: -32602,
      message: "rejected: inputResponses answer no question this relay has open (unknown requestState)",
      data: ourData("inputResponses", "requestState"),
    });
  }
  const call = { waiting: msg.id, caps: declaredOn(params) ?? {}, questions: [], round: undefined };
  call.upId = up.request(msg.method, legacyParams(params), (reply) => {
    liveCalls.delete(call);
    call.ended = reply;
    drive(call);
  });
  forwardedUp.set(msg.id, call.upId);
  liveCalls.add(call);
}

/** A sampling request of the legacy upstream: it joins the call in flight that has no question open. */
function questionForRound(msg) {
  const calls = [...liveCalls];
  const call = calls.filter((c) => !c.round && c.questions.length === 0).at(-1) ?? calls.at(-1);
  if (!call) {
    return up.fail(msg.id, {
      code: -32603,
      message:
        "the client behind this relay can only be asked during one of its calls, and none is in flight",
      data: ourData("bridge"),
    });
  }
  const open = [...openRounds.values()].filter((r) => !r.expired).reduce((n, r) => n + r.asked.length, 0);
  const queued = calls.reduce((n, c) => n + c.questions.length, 0);
  if (open + queued >= MAX_OPEN)
    return refuse(msg.id, -32000, "limit", { at: "", why: `too many sampling requests open (${MAX_OPEN})` });
  call.questions.push({ id: msg.id, params: msg.params });
  setImmediate(() => drive(call)); // questions sent together go down together
}

/** What a call does next for the downstream request waiting on it: a round of questions, or its outcome. */
function drive(call) {
  if (call.waiting === undefined || call.round) return;
  if (call.ended) {
    for (const q of call.questions.splice(0))
      up.fail(q.id, {
        code: -32603,
        message: "the call this question came with has ended",
        data: ourData("bridge"),
      });
    const id = call.waiting;
    call.waiting = undefined;
    forwardedUp.delete(id);
    return relayReply(down, id, completeReply(call.ended));
  }
  if (call.questions.length > 0) passDown(call);
}

/** Checks each waiting question (for the upstream's era and the call's capabilities) and passes it down. */
function passDown(call) {
  const inputRequests = {};
  const asked = [];
  for (const q of call.questions.splice(0)) {
    const refused = roundRefusal(q.params, call.caps);
    if (refused) {
      up.fail(q.id, refused);
      continue;
    }
    const key = `question-${++questionCount}`;
    inputRequests[key] = { method: SAMPLING, params: withoutUndeclared(q.params, call.caps, MODERN) };
    asked.push({ ...q, key });
  }
  if (asked.length === 0) return;
  const requestState = newRequestState();
  const round = { call, asked, requestState, expired: false };
  round.timer = setTimeout(() => roundExpired(round), deadlineMs);
  call.round = round;
  openRounds.set(requestState, round);
  while (openRounds.size > MAX_ROUNDS_KEPT) openRounds.delete(openRounds.keys().next().value);
  const id = call.waiting;
  call.waiting = undefined;
  forwardedUp.delete(id);
  down.reply(id, { resultType: "input_required", inputRequests, requestState });
}

function roundRefusal(params, caps) {
  if (!declaresSampling(caps)) {
    return {
      code: -32601,
      message: "sampling is not available here: the client behind this relay did not declare it on its call",
      data: ourData("capability"),
    };
  }
  const bad = requestProblem(params, state.upEra);
  if (bad) return refusal(-32602, "request", bad);
  if (usesTools(params) && !declaresSamplingTools(caps)) {
    const at = params.tools !== undefined ? "tools" : "toolChoice";
    return refusal(-32602, "capability", {
      at,
      why: "tool use was not declared (sampling.tools) by the client",
    });
  }
  const loop = loopTooLong(params);
  return loop ? refusal(-32000, "limit", loop) : null;
}

function roundExpired(round) {
  round.expired = true;
  round.call.round = undefined;
  for (const q of round.asked) up.fail(q.id, timedOut());
}

/** The downstream's retry of a round: each question gets its answer, or a decline when its key is missing. */
function retried(round, msg) {
  const { call } = round;
  const answers = msg.params.inputResponses;
  if (answers !== undefined && !isObj(answers)) {
    return down.fail(msg.id, {
      code: -32602,
      message: "rejected: inputResponses must be an object",
      data: ourData("inputResponses", "inputResponses"),
    });
  }
  // A late retry of an expired round, while the call is already asking again or already being retried.
  if (call.waiting !== undefined || (call.round !== undefined && call.round !== round)) {
    return down.fail(msg.id, {
      code: -32602,
      message: "rejected: this round has passed (the call has moved on without it)",
      data: ourData("inputResponses", "requestState"),
    });
  }
  clearTimeout(round.timer);
  openRounds.delete(round.requestState);
  call.caps = declaredOn(msg.params) ?? call.caps;
  call.waiting = msg.id;
  forwardedUp.set(msg.id, call.upId);
  if (!round.expired) {
    call.round = undefined;
    for (const q of round.asked) answerQuestion(q, answers);
  }
  drive(call);
}

function answerQuestion(q, answers) {
  if (!isObj(answers) || !Object.hasOwn(answers, q.key)) {
    return up.fail(q.id, {
      code: -1,
      message: "declined: the client came back without an answer to this request",
      data: ourData("bridge"),
    });
  }
  const answer = answers[q.key];
  const bad = resultProblem(answer, q.params, state.upEra);
  if (!bad) return up.reply(q.id, answer);
  up.fail(q.id, {
    code: -32603,
    message: `the answer cannot be passed on: ${bad.why} (at ${bad.at})`,
    data: ourData("result", bad.at),
  });
}
