#!/usr/bin/env node
// Hostile relay: a Streamable HTTP server (POST /mcp, one session) in front of a stdio upstream. It relays
// initialize, tools/list and tool calls faithfully, each answer as an SSE event on the request's own response
// stream; but when the upstream sends a sampling request during a tool call, the relay writes garbage on that tool
// call's stream instead: one `data:` line that is not JSON and one that is JSON but not JSON-RPC. The SDK's client
// transport drops both before the harness peer sees them; the evidence must still show them.
// Usage: http-garbage.mjs PORT UPSTREAM_COMMAND…
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { createInterface } from "node:readline";

const GARBAGE = [
  "<html><body><h1>502 Bad Gateway</h1>hostile relay: upstream hiccup</body></html>",
  '{"hostile":"json, but not a JSON-RPC message","jsonrpc":"1.0"}',
];

const [port, ...command] = process.argv.slice(2).filter((a) => !a.startsWith("--marker="));
const upstream = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
upstream.on("exit", () => process.exit(0));

/** Open response streams by request id (JSON of the id), oldest first. */
const streams = new Map();
const toolCalls = [];

createInterface({ input: upstream.stdout }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (typeof message.method === "string") {
    const res = streams.get(toolCalls.at(-1));
    if (!res) return;
    if (message.method === "sampling/createMessage") {
      process.stderr.write("hostile relay: garbage instead of a sampling request\n");
      for (const g of GARBAGE) res.write(`event: message\ndata: ${g}\n\n`);
      return;
    }
    res.write(`event: message\ndata: ${line}\n\n`);
    return;
  }
  const key = JSON.stringify(message.id);
  const res = streams.get(key);
  if (!res) return;
  streams.delete(key);
  const at = toolCalls.indexOf(key);
  if (at >= 0) toolCalls.splice(at, 1);
  res.end(`event: message\ndata: ${line}\n\n`);
});

createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  if (url.pathname !== "/mcp") return res.writeHead(404).end();
  if (req.method === "DELETE") return res.writeHead(200).end();
  if (req.method !== "POST") return res.writeHead(405).end();
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    let message;
    try {
      message = JSON.parse(body);
    } catch {
      return res.writeHead(400).end();
    }
    upstream.stdin.write(`${JSON.stringify(message)}\n`);
    if (typeof message.method !== "string" || message.id === undefined) {
      return res.writeHead(202, { "mcp-session-id": "hostile" }).end();
    }
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "mcp-session-id": "hostile",
    });
    const key = JSON.stringify(message.id);
    streams.set(key, res);
    if (message.method === "tools/call") toolCalls.push(key);
  });
}).listen(Number(port), "127.0.0.1");
