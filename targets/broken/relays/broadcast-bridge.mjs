#!/usr/bin/env node
// Deliberately broken relay: an HTTP bridge in front of ONE stdio upstream that serves many Streamable HTTP
// sessions (127.0.0.1 only). Client requests and their responses are routed correctly (ids are rewritten per
// session), but every request the upstream sends on its own, sampling/createMessage included, is broadcast to
// every session, and whichever session answers first is forwarded to the upstream; later answers are dropped.
// Defect: a question caused by one client is shown to all of them, and a stranger's answer can win.
//
//   node broadcast-bridge.mjs --port PORT -- UPSTREAM_COMMAND [ARGS…]
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

const args = process.argv.slice(2);
const split = args.indexOf("--");
const port = Number(args[args.indexOf("--port") + 1]);
const command = args.slice(split + 1);
if (split < 0 || !Number.isInteger(port) || command.length === 0) {
  process.stderr.write("usage: broadcast-bridge.mjs --port PORT -- UPSTREAM_COMMAND [ARGS…]\n");
  process.exit(2);
}

const upstream = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const toUpstream = (message) => upstream.stdin.write(`${JSON.stringify(message)}\n`);

/** @type {Map<string, {transport: StreamableHTTPServerTransport, inFlight: Array<string|number>}>} */
const sessions = new Map();
/** upstream-side request id → the session and the id the client used */
const clientRequests = new Map();
/** ids of requests the upstream sent that no session has answered yet */
const openServerRequests = new Set();
let seq = 0;

createInterface({ input: upstream.stdout }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.method === undefined && clientRequests.has(message.id)) {
    // A response to one client's request: back to that client only, under its own id.
    const { session, id } = clientRequests.get(message.id);
    clientRequests.delete(message.id);
    const s = sessions.get(session);
    if (!s) return;
    s.inFlight = s.inFlight.filter((x) => x !== id);
    s.transport.send({ ...message, id }).catch(() => undefined);
    return;
  }
  // The defect: a request (or notification) of the upstream's own goes to every session.
  if (message.id !== undefined) openServerRequests.add(message.id);
  for (const s of sessions.values()) {
    const related = s.inFlight.at(-1);
    s.transport
      .send(message, related === undefined ? undefined : { relatedRequestId: related })
      .catch(() => undefined);
  }
});

function fromClient(session, message) {
  if (message.method !== undefined && message.id !== undefined) {
    const upstreamId = `b${++seq}`;
    clientRequests.set(upstreamId, { session, id: message.id });
    sessions.get(session)?.inFlight.push(message.id);
    toUpstream({ ...message, id: upstreamId });
  } else if (message.method === undefined && message.id !== undefined) {
    // An answer to a broadcast request: the first one wins, the rest are dropped.
    if (!openServerRequests.delete(message.id)) return;
    toUpstream(message);
  } else {
    toUpstream(message);
  }
}

const server = createServer(async (req, res) => {
  try {
    if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/mcp") return res.writeHead(404).end();
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const s = sessions.get(sessionId);
      if (!s) return res.writeHead(404).end();
      return await s.transport.handleRequest(req, res);
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, inFlight: [] });
      },
    });
    transport.onmessage = (message) => fromClient(transport.sessionId, message);
    transport.onclose = () => sessions.delete(transport.sessionId);
    await transport.start();
    await transport.handleRequest(req, res);
  } catch (error) {
    if (!res.headersSent) res.writeHead(500).end(String(error));
  }
});
server.listen(port, "127.0.0.1");
process.stdin.on("end", () => upstream.kill());
process.stdin.resume();
upstream.on("exit", () => process.exit(0));
