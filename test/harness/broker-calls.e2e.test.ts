import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  BrokerFieldError,
  extractQuestion,
  pointerGet,
  renderCall,
  runCall,
} from "../../src/harness/broker-calls.ts";
import { judgeCase } from "../../src/judge/case.ts";
import { BrokerAnswererSchema } from "../../src/model/broker.ts";
import { InputError } from "../../src/model/errors.ts";
import type { Observation } from "../../src/model/evidence.ts";
import { loadTarget } from "../../src/model/load.ts";
import { tempDir } from "../helpers/cli.ts";

/**
 * The broker answerer's template and extraction layer (src/model/broker.ts, src/harness/broker-calls.ts): every
 * field by JSON pointer, a wrong pointer named with what was there instead, templates that express APIs unlike the
 * reference relay's (the action in the path or the body, the answer bare or wrapped, the id in the path, the query
 * or the body, a command line), and profile errors at load time.
 */

const profile = { port: "4100", tmp: "/tmp/x", "upstream.command": "/bin/up", "upstream.url": undefined };
const result = { role: "assistant", content: { type: "text", text: "hi" }, model: "m" };
const call = (c: unknown) => BrokerAnswererSchema.shape.accept.parse(c);

describe("pointerGet", () => {
  const doc = { a: { "b/c": [10, { "d~e": "x" }] }, s: "str" };
  it("follows RFC 6901 pointers, escapes and array indices included", () => {
    expect(pointerGet(doc, "", "f")).toBe(doc);
    expect(pointerGet(doc, "/a/b~1c/0", "f")).toBe(10);
    expect(pointerGet(doc, "/a/b~1c/1/d~0e", "f")).toBe("x");
  });
  it("names the field, the pointer and what was there instead when a step is missing", () => {
    expect(() => pointerGet(doc, "/a/messages", "show.messages")).toThrow(BrokerFieldError);
    expect(() => pointerGet(doc, "/a/messages", "show.messages")).toThrow(
      'show.messages: no value at JSON pointer "/a/messages" (/a is {"b/c":[10,{"d~e":"x"}]})',
    );
    expect(() => pointerGet(doc, "/a/b~1c/2", "list.id")).toThrow(
      'list.id: no value at JSON pointer "/a/b~1c/2" (/a/b~1c is [10,{"d~e":"x"}])',
    );
    expect(() => pointerGet([], "/0", "list.items")).toThrow("(the document is [])");
    expect(() => pointerGet(doc, "/s/length", "f")).toThrow("(/s is str)");
  });
});

describe("renderCall: APIs unlike the reference relay's", () => {
  it("id in the path (URL-encoded), action in the path, answer wrapped", () => {
    const r = renderCall(
      call({
        http: {
          method: "POST",
          url: "http://127.0.0.1:{{port}}/v1/questions/{{id}}/answer",
          body: '{"result": {{json result}}}',
        },
      }),
      { profile, id: "q 1/2", result },
    );
    expect(r).toEqual({
      kind: "http",
      method: "POST",
      url: "http://127.0.0.1:4100/v1/questions/q%201%2F2/answer",
      headers: { "content-type": "application/json" },
      body: `{"result": ${JSON.stringify(result)} }`,
    });
    expect(JSON.parse((r as { body: string }).body)).toEqual({ result });
  });
  it("id in the query, action in the body, answer bare", () => {
    const r = renderCall(
      call({
        http: {
          method: "PUT",
          url: "http://127.0.0.1:{{port}}/answers?id={{id}}&via={{url 'a b'}}",
          headers: { "x-answerer": "harness-{{port}}" },
          body: '{"id": {{json id}}, "action": "accept", "content": {{json result}}}',
        },
      }),
      { profile, id: "elc-1&x", result },
    );
    expect(r.kind === "http" && r.url).toBe("http://127.0.0.1:4100/answers?id=elc-1%26x&via=a%20b");
    expect(r.kind === "http" && r.headers["x-answerer"]).toBe("harness-4100");
    expect(JSON.parse((r as { body: string }).body)).toEqual({
      id: "elc-1&x",
      action: "accept",
      content: result,
    });
    const bare = renderCall(
      call({ http: { method: "POST", url: "http://h/{{id}}/accept", body: "{{json result}}" } }),
      { profile, id: "e", result },
    );
    expect(JSON.parse((bare as { body: string }).body)).toEqual(result);
  });
  it("an edit only when there is one", () => {
    const approve = call({
      http: {
        method: "POST",
        url: "http://h/{{id}}",
        body: '{{#if params}}{"params": {{json params}}}{{else}}{}{{/if}}',
      },
    });
    expect((renderCall(approve, { profile, id: "q" }) as { body: string }).body).toBe("{}");
    expect(
      JSON.parse(
        (renderCall(approve, { profile, id: "q", params: { maxTokens: 1 } }) as { body: string }).body,
      ),
    ).toEqual({
      params: { maxTokens: 1 },
    });
  });
  it("a command line: argv items filled, the id as it is", () => {
    const r = renderCall(call({ command: ["mcpx", "elicit", "answer", "{{id}}", "{{json result}}"] }), {
      profile,
      id: "elc-a/b",
      result,
    });
    expect(r).toEqual({
      kind: "command",
      argv: ["mcpx", "elicit", "answer", "elc-a/b", JSON.stringify(result)],
    });
  });
});

describe("runCall", () => {
  it("runs a command and reads its stdout as JSON (exit code as status)", async () => {
    const ok = await runCall(
      { kind: "command", argv: [process.execPath, "-e", 'console.log(JSON.stringify([{id:"a"}]))'] },
      { timeoutMs: 5000, cwd: process.cwd(), env: { PATH: process.env.PATH ?? "" } },
    );
    expect(ok).toEqual({ ok: true, status: 0, json: [{ id: "a" }] });
    const bad = await runCall(
      { kind: "command", argv: [process.execPath, "-e", 'console.log("refused"); process.exit(3)'] },
      { timeoutMs: 5000, cwd: process.cwd(), env: {} },
    );
    expect(bad).toEqual({ ok: false, status: 3, json: "refused" });
  });
  it("makes an HTTP call and reads the status and the JSON body", async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        seen.push(`${req.method} ${req.url} ${req.headers["content-type"]} ${body}`);
        res.writeHead(409, { "content-type": "application/json" });
        res.end('{"error":"already answered"}');
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const port = (server.address() as { port: number }).port;
    try {
      const out = await runCall(
        {
          kind: "http",
          method: "POST",
          url: `http://127.0.0.1:${port}/x`,
          headers: { "content-type": "application/json" },
          body: "{}",
        },
        { timeoutMs: 5000, cwd: process.cwd(), env: {} },
      );
      expect(out).toEqual({ ok: false, status: 409, json: { error: "already answered" } });
      expect(seen).toEqual(["POST /x application/json {}"]);
    } finally {
      server.close();
    }
  });
});

describe("extractQuestion: each field by pointer, and what was not shown", () => {
  const show = BrokerAnswererSchema.shape.show.parse({
    server: "/server",
    systemPrompt: "/message",
    messages: "/requestedSchema/messages",
    request: "/requestedSchema",
    skeleton: "/example",
    stage: "/stage",
    response: "/response",
  });
  it("fills the review surface's shape from an mcpx-style question", () => {
    const request = { messages: [{ role: "user", content: { type: "text", text: "t" } }], maxTokens: 5 };
    const doc = {
      id: "elc-1",
      server: "srv",
      message: "sys",
      requestedSchema: request,
      example: result,
      stage: "request",
    };
    expect(extractQuestion("elc-1", doc, show)).toEqual({
      id: "elc-1",
      stage: "request",
      server: { name: "srv" },
      show: { systemPrompt: "sys", messages: request.messages },
      request,
      resultSkeleton: result,
      shown: doc,
    });
    const response = extractQuestion("elc-1", { ...doc, stage: "response", response: result }, show);
    expect(response.stage).toBe("response");
    expect(response.response).toEqual(result);
    expect(response.resultSkeleton).toBeUndefined();
  });
  it("records every declared field the broker did not show, with what was there", () => {
    const doc = {
      id: "elc-2",
      server: "srv",
      message: "m",
      requestedSchema: { type: "object", properties: {} },
      example: {},
    };
    const q = extractQuestion("elc-2", doc, show);
    expect(q.show).toEqual({ systemPrompt: "m", messages: undefined });
    expect(q.resultSkeleton).toEqual({});
    expect(q.notShown).toEqual({
      messages:
        'show.messages: no value at JSON pointer "/requestedSchema/messages" (/requestedSchema is {"type":"object","properties":{}})',
      stage:
        'show.stage: no value at JSON pointer "/stage" (the document is {"id":"elc-2","server":"srv","message":"m","requestedSchema":{"type":"object","properties":{}},"example":{}})',
    });
  });
});

describe("judging what a broker showed", () => {
  const C = "cnry-b-1";
  const sent = {
    systemPrompt: `be brief ${C}`,
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: `weather? ${C}` },
          { type: "text", text: "in Lisbon" },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "t1", name: "get_weather", input: { city: `Lisbon ${C}` } }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", toolUseId: "t1", content: [{ type: "text", text: `18C ${C}` }] }],
      },
    ],
    maxTokens: 20,
    tools: [{ name: "get_weather", inputSchema: { type: "object" } }],
  };
  const skeleton = { role: "assistant", content: { type: "text", text: "" }, model: "" };
  const question = (over: Record<string, unknown>) => ({
    id: "q",
    stage: "request",
    server: { name: "srv" },
    show: { systemPrompt: sent.systemPrompt, messages: sent.messages },
    request: sent,
    resultSkeleton: skeleton,
    shown: {},
    ...over,
  });
  const judge = (q: Record<string, unknown>, expect: "reviewed" | "refused" = "reviewed") => {
    const o: Observation = {
      sent,
      asked: [],
      reviews: [{ stage: "request", question: q, decision: { action: "decline" } }],
      upstream: { kind: "error", error: { code: -1, message: "User rejected sampling request" } },
    };
    return judgeCase({
      expect: [
        expect === "reviewed"
          ? { outcome: "error", reviewed: ["request"] }
          : { outcome: "error", asked: false },
      ],
      era: "2025-11-25",
      severity: "failure",
      observation: o,
      canary: C,
    });
  };
  it("finds every message's text by canary wherever the broker put it: array content, tool_use input, tool_result", () => {
    const transcript = [
      `user: weather? ${C} in Lisbon`,
      `assistant: get_weather({"city":"Lisbon ${C}"})`,
      `tool: 18C ${C}`,
    ];
    expect(
      judge(question({ show: { systemPrompt: `System: be brief ${C}`, messages: transcript } })).status,
    ).toBe("pass");
    const dropped = judge(
      question({ show: { systemPrompt: sent.systemPrompt, messages: transcript.slice(0, 2) } }),
    );
    expect(dropped.status).toBe("fail");
    expect(dropped.reason).toContain(
      `he broker showed the request without every message's text (not shown: "18C ${C}" of message 3; messages shown: [`,
    );
  });
  it("fails {} as an answer skeleton, and a skeleton the validator refuses for this request", () => {
    expect(judge(question({ resultSkeleton: {} })).reason).toContain(
      "an answer skeleton the reference validator accepts (offered {}: result.role at /role: role is required)",
    );
    expect(judge(question({ resultSkeleton: undefined })).reason).toContain(
      "an answer skeleton (none offered)",
    );
  });
  it("counts a question opened in the broker as asking: a refusal case fails though no client was asked", () => {
    const v = judge(question({}), "refused");
    expect(v.status).toBe("fail");
    expect(v.reason).toContain("he answerer was asked 1× about a request that had to be refused first");
  });
});

describe("broker profiles: errors at load time, naming the field", () => {
  const dir = tempDir("mcpx-conform-test-broker-");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const load = (answerer: string) => {
    const sub = join(dir, `p${n++}`);
    mkdirSync(sub);
    const file = join(sub, "p.yaml");
    writeFileSync(
      file,
      `name: b\ncommand: [node, x.mjs]\ndownstream: { transport: stdio }\nupstream: { transport: stdio }\nanswerer:\n${answerer}`,
    );
    return () => {
      try {
        return loadTarget(file);
      } catch (error) {
        if (error instanceof InputError) throw new Error(error.oneLine());
        throw error;
      }
    };
  };
  const GOOD = `  kind: broker
  list: { http: { url: "http://127.0.0.1:{{port}}/v1/elicit" } }
  show: { server: /server, messages: /requestedSchema/messages, request: /requestedSchema }
  accept: { http: { method: POST, url: "http://127.0.0.1:{{port}}/v1/elicit/{{id}}/accept", body: "{{json result}}" } }
  decline: { command: [mcpx, elicit, decline, "{{id}}"] }
`;
  it("loads a good profile", () => {
    const p = load(GOOD)();
    expect(p.answerer.kind).toBe("broker");
  });
  it.each([
    [
      "an unknown key",
      GOOD.replace("kind: broker", "kind: broker\n  retries: 3"),
      /p\.yaml: answerer: expected Unrecognized key: "retries"/,
    ],
    [
      "an unknown key in a call",
      GOOD.replace("method: POST,", "method: POST, verb: x,"),
      /p\.yaml: answerer\.accept\.http: expected Unrecognized key: "verb"/,
    ],
    [
      "neither http nor command",
      GOOD.replace('decline: { command: [mcpx, elicit, decline, "{{id}}"] }', "decline: {}"),
      /answerer\.decline: expected exactly one of http or command/,
    ],
    [
      "a template that does not parse",
      GOOD.replace('"{{json result}}"', '"{{json result"'),
      /answerer\.accept\.http\.body: expected a handlebars template, got one that does not parse/,
    ],
    [
      "a value the operation does not have",
      GOOD.replace('decline, "{{id}}"', 'decline, "{{result}}"'),
      /answerer\.decline\.command\[3\]: expected a value decline has \(.*\), got \{\{result\}\}/,
    ],
    [
      "an unknown helper",
      GOOD.replace("{{json result}}", "{{yaml result}}"),
      /answerer\.accept\.http\.body: expected a known helper \(json, url, if, unless\), got \{\{yaml …\}\}/,
    ],
    [
      "a bad pointer",
      GOOD.replace("server: /server", "server: server"),
      /answerer\.show\.server: expected a JSON pointer/,
    ],
    [
      "the wrong upstream placeholder",
      GOOD.replace('/v1/elicit" } }', '/v1/elicit?u={{upstream.url}}" } }'),
      /answerer\.list\.http\.url: expected an HTTP upstream/,
    ],
  ])("%s", (_what, text, message) => {
    expect(load(text)).toThrow(message);
  });
});
