// Broken broker: the reference relay with its review surface, reached through a broker API in mcpx's manner (mcpx
// elicit: the request kept as `requestedSchema`, the action and the answer in the body, the id in the query) whose
// question shows the request as a JSON Schema with no messages and offers `{}` to answer with — what mcpx's
// renderQuestion shows of a sampling request today (internal/cli/elicit.go renderQuestion: describeSchema finds no `properties`, so no
// messages are shown, and exampleFor gives '{}'). The person at the broker answers blind.
//
//   node ../run-ts.mjs relays/broker-shows-schema.ts --answer-timeout-ms 1500 --broker-port {{port}} -- {{upstream.command}}
//
//   GET  /v1/elicit                 pending questions: {id, stage, mode, server, message, requestedSchema, example}
//   GET  /v1/elicit/show?id=ID      one question
//   POST /v1/elicit/respond         {"id", "action": accept|decline|cancel|approve, "content"?: result, "params"?: edit}
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { runRelay } from "../../../src/relay/relay.ts";

function parseArgs(argv: string[]): { answerTimeoutMs: number; brokerPort: number; upstream: string[] } {
  const split = argv.indexOf("--");
  const flags = argv.slice(0, split < 0 ? argv.length : split);
  const value = (name: string) => {
    const i = flags.indexOf(name);
    const n = i < 0 ? Number.NaN : Number(flags[i + 1]);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name}: a whole number is required`);
    return n;
  };
  const upstream = split < 0 ? [] : argv.slice(split + 1);
  if (upstream.length === 0) throw new Error("no upstream command after --");
  return { answerTimeoutMs: value("--answer-timeout-ms"), brokerPort: value("--broker-port"), upstream };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const address = server.address();
  await new Promise<void>((r) => server.close(() => r()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

type Question = Record<string, any>;

/** The defect: the question as mcpx renders a sampling request — a schema without messages, and `{}` to fill in. */
function rendered(q: Question): Record<string, unknown> {
  const server = String(q.server?.name ?? "");
  return {
    id: q.id,
    stage: q.stage,
    mode: "sample",
    server,
    message: q.show?.systemPrompt ?? `${server} asks for a model completion`,
    requestedSchema: { type: "object", properties: {} },
    example: {},
    ...(q.stage === "response" ? { response: q.response } : {}),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.on("data", (c) => {
      text += c;
    });
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

async function facade(inner: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const list = async (): Promise<Question[]> =>
    (await (await fetch(`${inner}/questions`)).json()) as Question[];
  if (req.method === "GET" && url.pathname === "/v1/elicit") return send(200, (await list()).map(rendered));
  if (req.method === "GET" && url.pathname === "/v1/elicit/show") {
    const q = (await list()).find((x) => x.id === url.searchParams.get("id"));
    return q ? send(200, rendered(q)) : send(404, { error: "no such question" });
  }
  if (req.method === "POST" && url.pathname === "/v1/elicit/respond") {
    const body = JSON.parse((await readBody(req)) || "{}") as Record<string, unknown>;
    const id = encodeURIComponent(String(body.id));
    const [path, payload] =
      body.action === "accept"
        ? ["answer", { result: body.content }]
        : body.action === "approve"
          ? ["approve", body.params === undefined ? {} : { params: body.params }]
          : body.action === "decline" || body.action === "cancel"
            ? ["decline", {}]
            : [undefined, undefined];
    if (!path) return send(400, { error: `unknown action ${String(body.action)}` });
    const r = await fetch(`${inner}/questions/${id}/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payload),
    });
    return send(r.status, await r.json());
  }
  return send(404, { error: "not found" });
}

const { answerTimeoutMs, brokerPort, upstream } = parseArgs(process.argv.slice(2));
const reviewPort = await freePort();
const inner = `http://127.0.0.1:${reviewPort}/v1`;
const server = createServer((req, res) => {
  facade(inner, req, res).catch((error: unknown) => {
    if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: String(error) }));
  });
});
await new Promise<void>((r) => server.listen(brokerPort, "127.0.0.1", () => r()));
server.unref();
await runRelay({
  upstream,
  answerTimeoutMs,
  reviewPort,
  reviewTimeoutMs: 2500,
  name: "mcpx-conform-broken-broker-shows-schema",
});
process.exit(0);
