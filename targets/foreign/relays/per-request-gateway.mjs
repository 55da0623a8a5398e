#!/usr/bin/env node
// A raw JSON-RPC gateway (stdio downstream) in the shape of the aggregating gateways and serverless MCP proxies that
// hold no upstream connection between requests: with `--per request` it opens a new upstream connection for every
// request it forwards (a new process of the upstream command, or a new Streamable HTTP session), initializes it
// itself (its own ids, from 1 on each connection), forwards the one request, relays what the upstream asks meanwhile
// (sampling/createMessage) to the downstream and the downstream's answer back, and ends the connection once the
// request is answered. With `--per session` it keeps one upstream connection for the whole downstream session: the
// same gateway otherwise, a plain pass-through, the per-request gateway's twin.
//
//   node per-request-gateway.mjs [--per request|session] (--upstream-url URL | -- COMMAND [ARGS…])
//
// It is a correct pass-through and nothing more: params, results and errors go on byte for byte as parsed JSON (only
// the JSON-RPC ids are its own on each hop), nothing is validated, there is no deadline of its own.
// - The downstream's initialize is forwarded on a connection of its own (`--per request`: opened for it and ended
//   once answered; `--per session`: the session's), so what the upstream answers, an UnsupportedProtocolVersion error
//   included, is what the downstream gets. Every later connection repeats that handshake (initialize with the
//   downstream's params, then notifications/initialized) before its one request.
// - A 2026-07-28 downstream (no initialize; server/discover or the 2026-07-28 protocol version in `_meta`) has no
//   handshake to repeat: each request goes alone on its connection (`--per request`: a retry is a new connection).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const args = process.argv.slice(2);
const dashes = args.indexOf("--");
const own = dashes >= 0 ? args.slice(0, dashes) : args;
const command = dashes >= 0 ? args.slice(dashes + 1) : [];
const flag = (name) => (own.includes(name) ? own[own.indexOf(name) + 1] : undefined);
const per = flag("--per") ?? "request";
const upstreamUrl = flag("--upstream-url");
if (!["request", "session"].includes(per) || (command.length === 0 && !upstreamUrl)) {
  process.stderr.write(
    "usage: per-request-gateway.mjs [--per request|session] (--upstream-url URL | -- COMMAND…)\n",
  );
  process.exit(2);
}

const isRequest = (m) => typeof m?.method === "string" && m.id !== undefined && m.id !== null;
const isResponse = (m) => m?.method === undefined && m?.id !== undefined && ("result" in m || "error" in m);
const toDownstream = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

// ── One upstream connection: a process on stdio, or a Streamable HTTP session (2026-07-28: its POSTs) ──────────
const sdk = upstreamUrl ? await import("@modelcontextprotocol/sdk/client/streamableHttp.js") : undefined;

/** The request-metadata headers of 2026-07-28 (MCP-Protocol-Version, Mcp-Method, Mcp-Name) on each POST. */
const modernHeaders = (url, init) => {
  let message;
  try {
    message = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
  } catch {
    message = undefined;
  }
  const version = message?.params?._meta?.[PROTOCOL_VERSION];
  if (typeof version !== "string" || typeof message.method !== "string") return fetch(url, init);
  const headers = new Headers(init.headers);
  headers.set("mcp-protocol-version", version);
  headers.set("mcp-method", message.method);
  const name = message.params?.name ?? message.params?.uri;
  if (typeof name === "string" && /^[\x20-\x7e]*$/.test(name)) headers.set("mcp-name", name);
  return fetch(url, { ...init, headers });
};

class Connection {
  nextId = 1;
  pending = new Map();
  closed = false;

  constructor() {
    if (sdk) {
      this.http = new sdk.StreamableHTTPClientTransport(new URL(upstreamUrl), { fetch: modernHeaders });
      this.http.onmessage = (message) => this.inbound(message);
      this.http.onerror = (error) =>
        process.stderr.write(`per-request-gateway: upstream: ${error.message}\n`);
      this.http.onclose = () => this.gone("the upstream session closed");
      this.ready = this.http.start();
    } else {
      this.child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
      this.child.stdin.on("error", () => undefined);
      this.child.on("error", (error) => this.gone(`cannot start the upstream: ${error.message}`));
      this.child.on("exit", () => this.gone("the upstream process exited"));
      createInterface({ input: this.child.stdout }).on("line", (line) => {
        try {
          this.inbound(JSON.parse(line));
        } catch {
          process.stderr.write(`per-request-gateway: not JSON from the upstream: ${line.slice(0, 200)}\n`);
        }
      });
      this.ready = Promise.resolve();
    }
  }

  send(message) {
    if (this.closed) return;
    if (this.http)
      this.http
        .send(message)
        .catch((error) => this.fail(message, `the upstream refused the POST: ${error.message}`));
    else this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a request under this connection's next id; resolves with the upstream's response. */
  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.send({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) });
    });
  }

  inbound(message) {
    if (isResponse(message)) {
      const resolve = this.pending.get(message.id);
      this.pending.delete(message.id);
      resolve?.(message);
      return;
    }
    if (isRequest(message)) return askDownstream(this, message);
    toDownstream(message); // a notification (progress, log): as it came
  }

  /** A request whose POST failed gets that failure as its answer, so the downstream is not left waiting. */
  fail(message, why) {
    if (!isRequest(message)) return;
    const resolve = this.pending.get(message.id);
    this.pending.delete(message.id);
    resolve?.({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: why } });
  }

  gone(why) {
    if (this.closed) return;
    this.closed = true;
    for (const [id, resolve] of this.pending)
      resolve({ jsonrpc: "2.0", id, error: { code: -32603, message: why } });
    this.pending.clear();
    forgetAsked(this);
  }

  async end() {
    if (this.closed) return;
    this.closed = true;
    forgetAsked(this);
    if (this.http) {
      await this.http.terminateSession().catch(() => undefined);
      await this.http.close().catch(() => undefined);
    } else {
      this.child.stdin.end();
      setTimeout(() => this.child.kill(), 200).unref();
    }
  }
}

// ── What the upstream asks the downstream (sampling/createMessage), under the gateway's own ids ─────────────────
let nextDownId = 1;
/** Our id toward the downstream → the connection that asked and its id there. */
const asked = new Map();

function askDownstream(connection, message) {
  const id = nextDownId++;
  asked.set(id, { connection, id: message.id });
  toDownstream({ ...message, id });
}

function forgetAsked(connection) {
  for (const [id, a] of asked) if (a.connection === connection) asked.delete(id);
}

// ── The downstream session ───────────────────────────────────────────────────────────────────────────────────
/** The downstream's initialize params (legacy), repeated on every connection; undefined for 2026-07-28. */
let handshake;
let sessionConnection;
/** Downstream request id → the connection and id it went upstream under (for cancellation). */
const forwarded = new Map();

/**
 * The connection a request goes on: the session's (`--per session`), or a new one (`--per request`) on which the
 * downstream's handshake is repeated first, unless the request is the initialize itself or the downstream speaks
 * 2026-07-28. Resolves with the upstream's refusal of that handshake instead, if it refused.
 */
async function connectionFor(message) {
  if (per === "session" && sessionConnection) return { connection: sessionConnection };
  const connection = new Connection();
  if (per === "session") sessionConnection = connection;
  await connection.ready;
  if (per === "request" && handshake && message.method !== "initialize") {
    const init = await connection.request("initialize", handshake);
    if (init.error) return { connection, refused: init.error };
    setVersion(connection, init.result);
    connection.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  return { connection };
}

/** Over HTTP the negotiated version goes in the MCP-Protocol-Version header of the session's later requests. */
function setVersion(connection, result) {
  if (connection.http && typeof result?.protocolVersion === "string")
    connection.http.setProtocolVersion(result.protocolVersion);
}

async function forward(message) {
  const { connection, refused } = await connectionFor(message);
  let response;
  if (refused) response = { error: refused };
  else {
    forwarded.set(message.id, { connection, id: connection.nextId });
    response = await connection.request(message.method, message.params);
    forwarded.delete(message.id);
    if (message.method === "initialize") setVersion(connection, response.result);
  }
  const { jsonrpc: _, id: __, ...answer } = response;
  toDownstream({ jsonrpc: "2.0", id: message.id, ...answer });
  if (per === "request") void connection.end();
}

function fromDownstream(message) {
  if (isResponse(message)) {
    const a = asked.get(message.id);
    if (!a) return;
    asked.delete(message.id);
    a.connection.send({ ...message, id: a.id });
    return;
  }
  if (isRequest(message)) {
    if (message.method === "initialize") handshake = message.params ?? {};
    void forward(message);
    return;
  }
  // A cancellation goes to the connection carrying that request, under its id there; any other notification
  // (initialized) to the session's connection (a per-request connection sends its own initialized).
  if (message.method === "notifications/cancelled") {
    const f = forwarded.get(message.params?.requestId);
    if (f) f.connection.send({ ...message, params: { ...message.params, requestId: f.id } });
    return;
  }
  if (per === "session") sessionConnection?.send(message);
}

createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return void toDownstream({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
  }
  fromDownstream(message);
});

function shutdown() {
  void sessionConnection?.end();
  setTimeout(() => process.exit(0), 300).unref();
}
process.stdin.on("end", shutdown);
process.on("SIGTERM", shutdown);
