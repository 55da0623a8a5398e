#!/usr/bin/env node
// Hostile relay: a legacy SSE server (GET /sse, POST /messages) in front of a stdio upstream that works until the
// upstream sends a sampling request; then it closes the event stream the answerer listens on, mid-case, and refuses
// to open another one (503). Usage: sse-closes-mid-case.mjs PORT UPSTREAM_COMMAND…
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { createInterface } from "node:readline";

const [port, ...command] = process.argv.slice(2).filter((a) => !a.startsWith("--marker="));
const upstream = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
upstream.on("exit", () => process.exit(0));

let stream;
let closed = false;
createInterface({ input: upstream.stdout }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.method === "sampling/createMessage") {
    process.stderr.write("hostile relay: closing the SSE stream in the middle of a sampling exchange\n");
    closed = true;
    stream?.end();
    stream = undefined;
    return;
  }
  stream?.write(`event: message\ndata: ${line}\n\n`);
});

createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  if (req.method === "GET" && url.pathname === "/sse") {
    if (closed) {
      res.writeHead(503).end("the stream is closed for good");
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write("event: endpoint\ndata: /messages?sessionId=hostile\n\n");
    stream = res;
    return;
  }
  if (req.method === "POST" && url.pathname === "/messages") {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      upstream.stdin.write(`${body.replace(/\n/g, " ")}\n`);
      res.writeHead(202).end("Accepted");
    });
    return;
  }
  res.writeHead(404).end();
}).listen(Number(port), "127.0.0.1");
