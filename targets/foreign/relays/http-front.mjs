#!/usr/bin/env node
// A Streamable HTTP front over a stdio MCP server, in the shape of the stdio → Streamable HTTP gateways people deploy
// (supergateway --stateful, mcp-proxy): one stdio process per Mcp-Session-Id, started at the session's initialize,
// every frame copied both ways. The session guard is the TS SDK's example server's: a POST with no Mcp-Session-Id that
// is not an initialize request is answered HTTP 400 with the JSON-RPC error
// {"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}.
// The sessions are the SDK's WebStandardStreamableHTTPServerTransport (so the Streamable HTTP side is the SDK's own).
//
//   node http-front.mjs --port PORT [--json-response] [--error-status N] [--modern refuse|serve] -- COMMAND [ARGS…]
//
//   --json-response    answer each request POST with one JSON body (the SDK's enableJsonResponse) instead of an SSE
//                      stream; what the stdio server sends on its own (sampling/createMessage) then goes on the
//                      session's standalone GET stream, the only place a JSON-mode session has for it
//   --error-status N   the HTTP status of a POST whose JSON body is a JSON-RPC error (default: as the SDK wrote it,
//                      200); 400 is what servers that map JSON-RPC errors to HTTP statuses send
//   --modern refuse    (default) a 2026-07-28 client (no session, no initialize) gets the SDK example's 400
//   --modern serve     a 2026-07-28 POST (no session; server/discover, or the 2026-07-28 MCP-Protocol-Version header or
//                      _meta) is served statelessly: its one request goes to one shared stdio process (ids mapped, so
//                      concurrent clients never collide) and the response is the POST's JSON body
//   -- COMMAND…        the stdio MCP server started per session (and once for 2026-07-28 POSTs), e.g. a sampling
//                      relay that launches {{upstream.command}} itself
//
// Frames are copied, never changed (the SDK transport parses each JSON-RPC envelope, as every SDK-based gateway's
// does). A frame the stdio server sends on its own goes related to the newest request of that session still open
// (its POST's SSE stream), as supergateway does, unless --json-response.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

const MODERN = "2026-07-28";
const args = process.argv.slice(2);
const dashes = args.indexOf("--");
const own = dashes >= 0 ? args.slice(0, dashes) : args;
const command = dashes >= 0 ? args.slice(dashes + 1) : [];
const flag = (name) => (own.includes(name) ? own[own.indexOf(name) + 1] : undefined);
const port = Number(flag("--port"));
const jsonResponse = own.includes("--json-response");
const errorStatus = flag("--error-status") === undefined ? undefined : Number(flag("--error-status"));
const modernMode = flag("--modern") ?? "refuse";
if (!Number.isInteger(port) || command.length === 0 || !["refuse", "serve"].includes(modernMode)) {
  process.stderr.write(
    "usage: http-front.mjs --port PORT [--json-response] [--error-status N] [--modern refuse|serve] -- COMMAND…\n",
  );
  process.exit(2);
}

const children = new Set();
/** Starts the stdio MCP server; each line it writes goes to `onLine`; `onExit` when it ends. */
function startChild(onLine, onExit) {
  const child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  children.add(child);
  child.stdin.on("error", () => undefined);
  child.on("error", (error) =>
    process.stderr.write(`http-front: cannot start ${command[0]}: ${error.message}\n`),
  );
  child.on("exit", () => {
    children.delete(child);
    onExit();
  });
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (!line.trim()) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      process.stderr.write(`http-front: not JSON from the stdio server: ${line.slice(0, 200)}\n`);
      return;
    }
    onLine(message);
  });
  return { write: (message) => child.stdin.write(`${JSON.stringify(message)}\n`), kill: () => child.kill() };
}

const isRequest = (m) => typeof m?.method === "string" && m.id !== undefined && m.id !== null;
const isResponse = (m) => m?.method === undefined && m?.id !== undefined && ("result" in m || "error" in m);

// ── Legacy sessions: one SDK transport and one stdio process per Mcp-Session-Id ──────────────────────────────
const sessions = new Map();

async function openSession() {
  const open = []; // requests of the downstream still waiting for their response, oldest first
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: jsonResponse,
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  const child = startChild(
    (message) => {
      if (isResponse(message)) {
        const at = open.indexOf(message.id);
        if (at >= 0) open.splice(at, 1);
      }
      const related = isResponse(message) || jsonResponse ? undefined : open.at(-1);
      transport
        .send(message, related === undefined ? undefined : { relatedRequestId: related })
        .catch((error) => process.stderr.write(`http-front: send failed: ${error.message}\n`));
    },
    () => {
      // The stdio server is gone: fail what it left open, then end the session (as supergateway does).
      for (const id of open.splice(0))
        transport
          .send({ jsonrpc: "2.0", id, error: { code: -32603, message: "MCP server process failed" } })
          .catch(() => undefined);
      setTimeout(() => void transport.close().catch(() => undefined), 50);
    },
  );
  transport.onmessage = (message) => {
    if (isRequest(message)) open.push(message.id);
    child.write(message);
  };
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
    child.kill();
  };
  transport.onerror = () => undefined;
  await transport.start();
  return transport;
}

// ── 2026-07-28 (--modern serve): no session; one shared stdio process, ids mapped per POST ───────────────────
let modernChild;
let nextModernId = 0;
/** Our id toward the shared process → the POST waiting for its response, and the client's own id. */
const modernWaiting = new Map();

function modernProcess() {
  modernChild ??= startChild(
    (message) => {
      if (!isResponse(message)) {
        process.stderr.write(
          `http-front: 2026-07-28 has no server-to-client request: ${JSON.stringify(message).slice(0, 200)}\n`,
        );
        return;
      }
      const waiting = modernWaiting.get(message.id);
      if (!waiting) return;
      modernWaiting.delete(message.id);
      waiting.answer({ ...message, id: waiting.id });
    },
    () => {
      modernChild = undefined;
      for (const [key, waiting] of modernWaiting) {
        modernWaiting.delete(key);
        waiting.answer({
          jsonrpc: "2.0",
          id: waiting.id,
          error: { code: -32603, message: "MCP server process failed" },
        });
      }
    },
  );
  return modernChild;
}

function opensModern(req, body) {
  if (req.headers["mcp-protocol-version"] === MODERN) return true;
  if (body?.method === "server/discover") return true;
  return body?.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === MODERN;
}

function serveModern(res, message) {
  const child = modernProcess();
  if (!isRequest(message)) {
    // A notification (a cancellation names the client's id: ours goes to the process).
    const cancelled = message?.params?.requestId;
    if (message?.method === "notifications/cancelled" && cancelled !== undefined) {
      for (const [key, waiting] of modernWaiting)
        if (waiting.id === cancelled)
          child.write({ ...message, params: { ...message.params, requestId: key } });
    } else child.write(message);
    res.writeHead(202).end();
    return;
  }
  const key = `front-${++nextModernId}`;
  modernWaiting.set(key, {
    id: message.id,
    answer: (response) => {
      if (res.writableEnded) return;
      const status = response.error && errorStatus !== undefined ? errorStatus : 200;
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(response));
    },
  });
  res.once("close", () => modernWaiting.delete(key));
  child.write({ ...message, id: key });
}

// ── HTTP ─────────────────────────────────────────────────────────────────────────────────────────────────────
function jsonError(res, status, code, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

/** The SDK transport's answer, as a Node response; a JSON-RPC error body gets --error-status. */
async function reply(res, response, method) {
  let status = response.status;
  let body = response.body;
  const type = response.headers.get("content-type") ?? "";
  if (method === "POST" && errorStatus !== undefined && type.includes("application/json")) {
    const text = await response.text();
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const errors = (Array.isArray(parsed) ? parsed : [parsed]).filter((m) => m && typeof m === "object");
    if (errors.length > 0 && errors.every((m) => "error" in m && !("result" in m))) status = errorStatus;
    body = text;
  }
  res.writeHead(status, Object.fromEntries(response.headers));
  if (body === null || typeof body === "string") return void res.end(body ?? undefined);
  res.flushHeaders();
  const reader = body.getReader();
  res.once("close", () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // the stream was cancelled: the client went away
  }
  res.end();
}

const http = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/mcp") return void res.writeHead(404).end();
    const sessionId = req.headers["mcp-session-id"];
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    let body;
    let text;
    if (req.method === "POST") {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      text = Buffer.concat(chunks).toString("utf8");
      try {
        body = JSON.parse(text);
      } catch {
        return jsonError(res, 400, -32700, "Parse error: Invalid JSON");
      }
    }
    let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (typeof sessionId === "string" && !transport) return jsonError(res, 404, -32001, "Session not found");
    if (!transport) {
      if (req.method !== "POST") return void res.writeHead(400).end("Invalid or missing session ID");
      const messages = Array.isArray(body) ? body : [body];
      if (messages.some((m) => m?.method === "initialize")) transport = await openSession();
      else if (modernMode === "serve" && !Array.isArray(body) && opensModern(req, body))
        return serveModern(res, body);
      else return jsonError(res, 400, -32000, "Bad Request: No valid session ID provided");
    }
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers,
      ...(text !== undefined ? { body: text } : {}),
    });
    const response = await transport.handleRequest(
      request,
      body === undefined ? undefined : { parsedBody: body },
    );
    await reply(res, response, req.method);
  } catch (error) {
    process.stderr.write(`http-front: ${error instanceof Error ? error.stack : error}\n`);
    if (!res.headersSent) jsonError(res, 500, -32603, "gateway failure");
    else res.end();
  }
});
http.listen(port, "127.0.0.1");

function shutdown() {
  for (const child of children) child.kill();
  http.closeAllConnections();
  http.close();
  setTimeout(() => process.exit(0), 100).unref();
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
process.stdin.on("end", shutdown);
process.stdin.resume();
