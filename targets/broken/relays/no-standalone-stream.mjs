// Broken (Streamable HTTP upstream), two ways of losing the server's requests, each one defect. The reference relay
// reaches the harness upstream through this proxy:
// - default: never opens the standalone GET stream. Every GET is answered 405 (as if the relay had never asked), so
//   the relay reads only the response streams of its own POSTs. A sampling request the server sends tied to a call
//   arrives; one it sends on the standalone stream, unrelated to any request, goes nowhere and is never answered.
//   Real relays do this when their HTTP client posts requests but never issues the GET.
// - --response-only: reads a POST's event stream for that POST's response only. JSON-RPC requests the server sends
//   on it before the response (a sampling request related to the tool call) are dropped; the GET stream works.
//   Real relays do this when they wait on a POST's stream for the matching id and discard every other event.
//
// Usage: node no-standalone-stream.mjs [--response-only] UPSTREAM_URL -- RELAY_COMMAND…
// (the relay command gets --upstream-url PROXY_URL)
import { spawn } from "node:child_process";
import { createServer, request } from "node:http";

const argv = process.argv.slice(2);
const responseOnly = argv[0] === "--response-only";
const [upstreamUrl, dashes, ...relay] = responseOnly ? argv.slice(1) : argv;
if (!upstreamUrl || dashes !== "--" || relay.length === 0) {
  process.stderr.write("usage: no-standalone-stream.mjs UPSTREAM_URL -- RELAY_COMMAND…\n");
  process.exit(2);
}
const target = new URL(upstreamUrl);

/** --response-only: drops the SSE events of a POST's stream that carry a JSON-RPC request. */
function withoutRequests(answer, res) {
  let buffer = "";
  answer.setEncoding("utf8");
  answer.on("data", (chunk) => {
    buffer += chunk.replace(/\r\n/g, "\n");
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const event = buffer.slice(0, end + 2);
      buffer = buffer.slice(end + 2);
      const data = event
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart())
        .join("\n");
      let message;
      try {
        message = JSON.parse(data);
      } catch {}
      const isRequest = typeof message?.method === "string" && message.id !== undefined;
      if (!isRequest) res.write(event);
      end = buffer.indexOf("\n\n");
    }
  });
  answer.on("end", () => res.end(buffer));
}

const proxy = createServer((req, res) => {
  if (req.method === "GET" && !responseOnly) {
    res.writeHead(405, { allow: "POST, DELETE" }).end();
    return;
  }
  const forward = request(
    { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      const events = String(answer.headers["content-type"] ?? "").startsWith("text/event-stream");
      if (responseOnly && req.method === "POST" && events) withoutRequests(answer, res);
      else answer.pipe(res);
    },
  );
  forward.on("error", () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(forward);
});

proxy.listen(0, "127.0.0.1", () => {
  const { port } = proxy.address();
  const url = `http://127.0.0.1:${port}${target.pathname}${target.search}`;
  const child = spawn(relay[0], [...relay.slice(1), "--upstream-url", url], { stdio: "inherit" });
  const stop = () => child.kill("SIGTERM");
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  child.on("exit", (code, signal) => {
    proxy.close();
    process.exit(code ?? (signal ? 1 : 0));
  });
});
