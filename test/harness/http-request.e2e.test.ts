import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestText } from "../../src/harness/http-request.ts";

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      if (req.url === "/slow") return; // never answers
      res.setHeader("x-questions-version", "7");
      res.statusCode = req.method === "POST" ? 201 : 200;
      res.end(JSON.stringify({ method: req.method, url: req.url, type: req.headers["content-type"], body }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe("requestText (the reviewer's HTTP requests)", () => {
  it("gives the status, the body as text and a header; sends the body and headers", async () => {
    const r = await requestText(`${base}/q?x=1`, {
      method: "POST",
      body: '{"a":"é"}',
      headers: { "content-type": "application/json" },
      timeoutMs: 2000,
    });
    expect(r.status).toBe(201);
    expect(JSON.parse(r.text)).toEqual({
      method: "POST",
      url: "/q?x=1",
      type: "application/json",
      body: '{"a":"é"}',
    });
    expect(r.header("x-questions-version")).toBe("7");
    expect(r.header("x-absent")).toBeNull();
  });

  it("rejects when nothing answers in time, when aborted, and when refused", async () => {
    await expect(requestText(`${base}/slow`, { method: "GET", timeoutMs: 100 })).rejects.toThrow(/100 ms/);
    const abort = new AbortController();
    const pending = requestText(`${base}/slow`, { method: "GET", signal: abort.signal, timeoutMs: 5000 });
    abort.abort(new Error("stopped"));
    await expect(pending).rejects.toThrow("stopped");
    await expect(requestText("http://127.0.0.1:1/", { method: "GET", timeoutMs: 2000 })).rejects.toThrow();
  });
});
