#!/usr/bin/env node
// An independent MCP sampling relay, written from the sampling spec (/work/shared/reference/spec-sampling.md)
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
//
// Deliberate differences from the reference relay (src/relay): its own error wording, a 1200 ms default
// deadline (not 1500), a "dev.independent/relay" _meta entry on what it originates itself (its initialize
// request upstream, the data of its own errors), its own id numbering, and it answers the downstream with the
// era the downstream asked for (it speaks every era) while it validates for the era of each hop.

import { spawn } from "node:child_process";
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
};
/** Sampling questions waiting for the downstream's notifications/initialized: upstream id → ask. */
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
  const isRequest = msg.id !== undefined && typeof msg.method === "string";
  if (!isRequest && msg.method === "notifications/initialized") downstreamInitialized();
  if (!isRequest) return notification(msg, forwardedUp, up);
  if (state.mode === undefined) state.mode = looksModern(msg) ? "modern" : "legacy";
  if (msg.method === "initialize" && state.mode === "legacy") return initialize(msg);
  if (state.mode === "modern" && MRTR_METHODS.has(msg.method)) return modernCall(msg);
  // A legacy ping asks whether we are alive; answer it ourselves (2026-07-28 results carry a resultType, so
  // there the upstream answers).
  if (msg.method === "ping" && state.mode === "legacy") return down.reply(msg.id, {});
  forwardUpstream(msg, (reply) => relayReply(down, msg.id, reply));
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
  const params = {
    ...p,
    capabilities: capabilitiesForUpstream(state.downCaps, asked),
    _meta: { ...(isObj(p._meta) ? p._meta : {}), [META_KEY]: { relay: "independent", deadlineMs } },
  };
  forwardUpstream(msg, (reply) => initialized(msg, asked, reply), params);
}

function initialized(msg, asked, reply) {
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
  if (msg.method === SAMPLING) return sampling(msg);
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
  up.fail(id, {
    code,
    message: `rejected: ${problem.why} (at ${problem.at})`,
    data: ourData(stage, problem.at),
  });
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
