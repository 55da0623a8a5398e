// A sampling relay whose answers come from an elicit-style broker on loopback, in mcpx's manner (mcpx's daemon with
// MCPX_PROTO_NATIVE=false, developing-today/code@a03494f pkgs/mcpx: internal/elicit, internal/daemon/hooks.go):
// every sampling request of the upstream opens a question in the broker's queue, and whoever reads the queue (an
// agent, a person) answers it there. Nothing is behind the broker: there is no model and no approve call, and the
// relay never asks its downstream MCP client (the agent answering at the broker is the model). It declares
// `sampling: { tools: {} }` upstream whatever its downstream declared (its agent takes tools).
//
//   node ../run-ts.mjs relays/elicit-broker.ts --render all|prompt --answer-timeout-ms 1500 --broker-port P -- UPSTREAM…
//
//   GET  /v1/elicit                pending questions (a JSON array)
//   GET  /v1/elicit/{id}           {"request": question} (404 once answered or expired)
//   POST /v1/elicit/{id}/accept    body: the bare CreateMessageResult → 200 {"ok": true}; 422 when it is no answer
//                                  to the request (the upstream gets -32603 naming the problem; nothing is filled in)
//   POST /v1/elicit/{id}/decline   → the upstream gets -1 "User rejected sampling request"
//
// What it does with a sampling request: validates it for the upstream's era and what the relay declared before a
// question opens (-32602 for a tool-shape violation, the validator's code otherwise; nobody is asked), validates the
// answer against the request before it goes upstream, answers -1 on decline and -32603 naming expiry when nobody
// answered within --answer-timeout-ms, and cuts a tool loop past 10 rounds (-32603). Legacy eras only (initialize
// handshake); a 2026-07-28 client is refused.
//
// --render says what a question shows:
//   all     the server, the system prompt (as `message`), the whole request (`requestedSchema`, messages included)
//           and a CreateMessageResult skeleton to fill in (`example`);
//   prompt  what mcpx's renderQuestion shows of a sampling question today (internal/cli/elicit.go): the server and the
//           system prompt, one line per schema property of the request (none: a CreateMessageRequest has no
//           `properties`) and `{}` as the answer to fill in. The list shows id, server and message only.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createInterface } from "node:readline";
import {
  type Era,
  isEra,
  refusalVerdict,
  type Verdict,
  validateRequest,
  validateResult,
} from "../../../src/validator/index.ts";

type Json = Record<string, any>;
type Render = "all" | "prompt";

/** What the relay declares upstream for its broker, whatever its downstream declared. */
const DECLARED = { sampling: { tools: {} } };
const LEGACY = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const NEWEST = "2025-11-25";
const USER_REJECTED = { code: -1, message: "User rejected sampling request" };
/** Tool rounds (user messages of tool results) one sampling request may carry: an endless tool loop is cut. */
const MAX_TOOL_ROUNDS = 10;

function parseArgs(argv: string[]): { render: Render; timeoutMs: number; port: number; upstream: string[] } {
  const split = argv.indexOf("--");
  const flags = argv.slice(0, split < 0 ? argv.length : split);
  const flag = (name: string) => {
    const i = flags.indexOf(name);
    return i < 0 ? undefined : flags[i + 1];
  };
  const number = (name: string) => {
    const n = Number(flag(name));
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name}: a whole number is required`);
    return n;
  };
  const render = flag("--render") ?? "all";
  if (render !== "all" && render !== "prompt") throw new Error("--render: all or prompt");
  const upstream = split < 0 ? [] : argv.slice(split + 1);
  if (upstream.length === 0) throw new Error("no upstream command after --");
  return { render, timeoutMs: number("--answer-timeout-ms"), port: number("--broker-port"), upstream };
}

/** One hop of newline-delimited JSON-RPC: its own request ids, replies routed to whoever waits for them. */
class Hop {
  private next = 1;
  private readonly waiting = new Map<number, (reply: Json) => void>();
  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    onMessage: (msg: Json) => void,
    onClose: () => void,
  ) {
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on("line", (line) => {
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return;
      const m = msg as Json;
      if (m.method === undefined && ("result" in m || "error" in m)) {
        const done = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        done?.(m);
      } else onMessage(m);
    });
    lines.on("close", onClose);
  }
  send(msg: Json): void {
    this.output.write(`${JSON.stringify({ jsonrpc: "2.0", ...msg })}\n`);
  }
  request(method: string, params: unknown): Promise<Json> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.send({ id, method, ...(params === undefined ? {} : { params }) });
    });
  }
  requestId(method: string, params: unknown, onReply: (reply: Json) => void): number {
    const id = this.next++;
    this.waiting.set(id, onReply);
    this.send({ id, method, ...(params === undefined ? {} : { params }) });
    return id;
  }
}

interface Question {
  id: string;
  server: string;
  params: Json;
  era: Era;
  created: string;
  expiresAt: string;
  settle: (answer: { result: Json } | { error: { code: number; message: string } }) => void;
}

function toolRounds(params: Json): number {
  const messages: unknown[] = Array.isArray(params.messages) ? params.messages : [];
  return messages.filter((m: any) =>
    (Array.isArray(m?.content) ? m.content : [m?.content]).some((b: any) => b?.type === "tool_result"),
  ).length;
}

function firstProblem(v: Verdict): string {
  const f = v.errors[0];
  return f ? `${f.message} (rule ${f.rule} at ${f.pointer || "/"})` : "invalid";
}

/** The answer to fill in that the `all` rendering offers: a CreateMessageResult of one empty text block. */
const SKELETON = { role: "assistant", content: { type: "text", text: "" }, model: "", stopReason: "endTurn" };

/** A question as the broker shows it. */
function shown(q: Question, render: Render): Json {
  const message =
    typeof q.params.systemPrompt === "string" && q.params.systemPrompt !== ""
      ? q.params.systemPrompt
      : `${q.server} asks for a model completion`;
  const common = { id: q.id, mode: "sample", server: q.server, audience: "agent", message };
  if (render === "all")
    return {
      ...common,
      requestedSchema: q.params,
      example: SKELETON,
      created: q.created,
      expiresAt: q.expiresAt,
    };
  return {
    ...common,
    reason: "sampling asks a model, and the agent driving the relay has one",
    expiresAt: q.expiresAt,
    // describeSchema: one line per property of the request's JSON Schema; a CreateMessageRequest has none.
    fields: [],
    example: {},
  };
}

const { render, timeoutMs, port, upstream: command } = parseArgs(process.argv.slice(2));
const questions = new Map<string, Question>();
/** The upstream's sampling request id → the question it opened. */
const byRequest = new Map<unknown, string>();

// ── upstream: the MCP server, launched on stdio ─────────────────────────────────────────────────────────────────
const child: ChildProcess = spawn(command[0]!, command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
let upstreamEra: Era = NEWEST;
let serverName = "upstream";
const up = new Hop(child.stdout!, child.stdin!, onUpstream, () => process.exit(0));
let ready: Promise<Json> | undefined;
const connect = () => {
  ready ??= up
    .request("initialize", {
      protocolVersion: NEWEST,
      capabilities: DECLARED,
      clientInfo: { name: `elicit-broker-relay-${render}`, version: "1" },
    })
    .then((reply) => {
      if (reply.result) {
        if (isEra(reply.result.protocolVersion)) upstreamEra = reply.result.protocolVersion;
        if (typeof reply.result.serverInfo?.name === "string") serverName = reply.result.serverInfo.name;
        up.send({ method: "notifications/initialized" });
      }
      return reply;
    });
  return ready;
};

function onUpstream(msg: Json): void {
  if (msg.id === undefined) {
    const id = msg.method === "notifications/cancelled" ? byRequest.get(msg.params?.requestId) : undefined;
    if (id) questions.get(id)?.settle({ error: { code: -32603, message: "cancelled by the server" } });
    else if (msg.method !== "notifications/cancelled") down.send(msg);
  } else if (msg.method === "ping") up.send({ id: msg.id, result: {} });
  else if (msg.method === "sampling/createMessage") sample(msg.id, (msg.params ?? {}) as Json);
  else up.send({ id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
}

/** One sampling request: validated, put to the broker, its answer validated; never to the downstream. */
function sample(requestId: unknown, params: Json): void {
  const reply = (answer: { result: Json } | { error: { code: number; message: string } }) =>
    up.send({ id: requestId, ...answer });
  const verdict = refusalVerdict(validateRequest(params, { era: upstreamEra, capabilities: DECLARED }));
  const rounds = toolRounds(params);
  const refusal = !verdict.legal
    ? { code: verdict.code ?? -32602, message: `Invalid sampling request: ${firstProblem(verdict)}` }
    : rounds > MAX_TOOL_ROUNDS
      ? {
          code: -32603,
          message: `Tool loop cut: the request carries ${rounds} tool rounds, this relay allows ${MAX_TOOL_ROUNDS}`,
        }
      : undefined;
  if (refusal) {
    reply({ error: refusal });
    return;
  }
  const id = `elc-${randomBytes(8).toString("hex")}`;
  const now = Date.now();
  const era = upstreamEra;
  const timer = setTimeout(
    () =>
      question.settle({
        error: {
          code: -32603,
          message: `Sampling request expired: nobody answered at the broker within ${timeoutMs} ms`,
        },
      }),
    timeoutMs,
  );
  const question: Question = {
    id,
    server: serverName,
    params,
    era,
    created: new Date(now).toISOString(),
    expiresAt: new Date(now + timeoutMs).toISOString(),
    settle: (answer) => {
      if (!questions.delete(id)) return;
      clearTimeout(timer);
      byRequest.delete(requestId);
      reply(answer);
    },
  };
  questions.set(id, question);
  byRequest.set(requestId, id);
}

// ── downstream: the MCP client on our stdio; asked nothing, it only calls the upstream's tools ─────────────────
let initialized = false;
const down = new Hop(process.stdin, process.stdout, onDownstream, () => {
  child.kill("SIGTERM");
  process.exit(0);
});

/** The downstream's tool calls in flight: its request id → the id they went upstream under. */
const calls = new Map<unknown, number>();

function onDownstream(msg: Json): void {
  if (msg.id === undefined) {
    const sent = msg.method === "notifications/cancelled" ? calls.get(msg.params?.requestId) : undefined;
    if (sent !== undefined) up.send({ method: msg.method, params: { ...msg.params, requestId: sent } });
  } else if (msg.method === "ping") down.send({ id: msg.id, result: {} });
  else if (msg.method === "initialize") {
    const asked = msg.params?.protocolVersion;
    void connect().then((reply) => {
      if (reply.error) down.send({ id: msg.id, error: reply.error });
      else {
        initialized = true;
        const protocolVersion = LEGACY.includes(asked) ? asked : NEWEST;
        const serverInfo = { name: `elicit-broker-relay-${render}`, version: "1" };
        down.send({ id: msg.id, result: { protocolVersion, capabilities: { tools: {} }, serverInfo } });
      }
    });
  } else if (!initialized)
    // Legacy eras only: a client that did not initialize (a 2026-07-28 one: server/discover, _meta) is refused.
    down.send({
      id: msg.id,
      error: { code: -32600, message: "initialize first: this relay speaks the initialize handshake only" },
    });
  else if (msg.method === "tools/list" || msg.method === "tools/call") {
    const sent = up.requestId(msg.method, msg.params, (reply) => {
      calls.delete(msg.id);
      down.send({ id: msg.id, ...("error" in reply ? { error: reply.error } : { result: reply.result }) });
    });
    calls.set(msg.id, sent);
  } else down.send({ id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
}

// ── the broker: an HTTP queue on loopback ───────────────────────────────────────────────────────────────────────
function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const send = (status: number, json: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(json));
  };
  const parts = new URL(req.url ?? "/", "http://127.0.0.1").pathname.split("/").filter(Boolean);
  if (parts[0] !== "v1" || parts[1] !== "elicit") return send(404, { error: "not found" });
  if (req.method === "GET" && parts.length === 2) {
    const pending = [...questions.values()].map((q) => shown(q, render));
    return send(
      200,
      render === "all"
        ? pending
        : pending.map(({ id, server, message, expiresAt }) => ({ id, server, message, expiresAt })),
    );
  }
  const q = parts[2] ? questions.get(parts[2]) : undefined;
  if (!q) return send(404, { error: `no pending question ${parts[2] ?? ""}` });
  if (req.method === "GET" && parts.length === 3) return send(200, { request: shown(q, render) });
  if (req.method !== "POST" || parts.length !== 4) return send(405, { error: "method not allowed" });
  if (parts[3] === "decline") {
    q.settle({ error: USER_REJECTED });
    return send(200, { ok: true });
  }
  if (parts[3] !== "accept") return send(400, { error: `unknown action ${parts[3]}` });
  let result: unknown;
  try {
    result = JSON.parse(await body(req));
  } catch (error) {
    return send(400, { error: `the answer must be JSON: ${(error as Error).message}` });
  }
  if (result === null || typeof result !== "object" || Array.isArray(result))
    return send(409, { error: "an accepted sample needs a CreateMessageResult" });
  const verdict = validateResult(result, { era: q.era, request: q.params });
  if (!verdict.legal) {
    const message = `Invalid sampling result from the broker: ${firstProblem(verdict)}`;
    q.settle({ error: { code: verdict.code ?? -32603, message } });
    return send(422, { error: message });
  }
  q.settle({ result: result as Json });
  return send(200, { ok: true });
}

const broker = createServer((req, res) => {
  route(req, res).catch((error: unknown) => {
    if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: String(error) }));
  });
});
broker.listen(port, "127.0.0.1");
broker.unref();
process.on("SIGTERM", () => {
  child.kill("SIGTERM");
  process.exit(0);
});
