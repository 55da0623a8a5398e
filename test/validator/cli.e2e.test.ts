/** `mcpx-conform validate` as a user runs it: a real process on fixture files. */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolResult, toolUse } from "./helpers.ts";

const BIN = new URL("../../bin/mcpx-conform.js", import.meta.url).pathname;
let dir: string;

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, "validate", ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
};

const weatherTool = { name: "get_weather", inputSchema: { type: "object" } };
const loopParams = {
  messages: [
    { role: "user", content: { type: "text", text: "Weather in Paris and London?" } },
    { role: "assistant", content: [toolUse("call_abc123"), toolUse("call_def456")] },
    { role: "user", content: [toolResult("call_abc123", "18°C"), toolResult("call_def456", "18°C")] },
  ],
  tools: [weatherTool],
  maxTokens: 1000,
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mcpx-validate-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("mcpx-conform validate", () => {
  it.concurrent("legal JSON-RPC request → exit 0", async () => {
    const req = file("legal.json", {
      jsonrpc: "2.0",
      id: 2,
      method: "sampling/createMessage",
      params: loopParams,
    });
    const caps = file("caps.json", { sampling: { tools: {} } });
    const r = await run(["--era", "2025-11-25", "--request", req, "--capabilities", caps]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^legal: request .*legal\.json \(2025-11-25\): 0 errors, 0 warnings/);
  });

  it.concurrent("illegal request (2 tool_use, 1 tool_result) → exit 1, rule, pointer, code and source printed", async () => {
    const params = structuredClone(loopParams);
    params.messages[2]!.content = [toolResult("call_abc123")];
    const req = file("missing.json", params);
    const r = await run(["--era", "2025-11-25", "--request", req]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'MUST message.tool-result-missing at /messages/1/content/1: tool_use "call_def456" has no tool_result in the next message (/messages/2) (code -32602) — https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#tool-use-and-result-balance',
    );
  });

  it.concurrent("the same request is illegal in 2025-06-18 (array content, tool blocks); --json prints the verdict", async () => {
    const req = file("old.json", loopParams);
    const r = await run(["--era", "2025-06-18", "--request", req, "--json"]);
    expect(r.code).toBe(1);
    const verdict = JSON.parse(r.stdout);
    expect(verdict.legal).toBe(false);
    expect(verdict.code).toBe(-32602);
    expect(verdict.errors.map((f: { rule: string }) => f.rule)).toContain("content.array-before-2025-11-25");
  });

  it.concurrent("result with tool_use for a tools-less request → exit 1 with -32603; pointers into the JSON-RPC response", async () => {
    const forReq = file("plain.json", {
      messages: [{ role: "user", content: { type: "text", text: "hi" } }],
      maxTokens: 5,
    });
    const res = file("res.json", {
      jsonrpc: "2.0",
      id: 1,
      result: { role: "assistant", content: [toolUse("x")], model: "m", stopReason: "toolUse" },
    });
    const r = await run(["--era", "2026-07-28", "--result", res, "--for-request", forReq]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("MUST result.tool-use-without-tools at /result/content/0:");
    expect(r.stdout).toContain("(code -32603)");
  });

  it.concurrent("legal result → exit 0; a 2026 embedded request → exit 0", async () => {
    const res = file("ok-res.json", {
      role: "assistant",
      content: { type: "text", text: "Paris" },
      model: "m",
    });
    const r1 = await run(["--era", "2024-11-05", "--result", res]);
    expect(r1.code).toBe(0);
    const emb = file("embedded.json", { method: "sampling/createMessage", params: loopParams });
    const r2 = await run(["--era", "2026-07-28", "--request", emb]);
    expect(r2.stdout).toContain("legal");
    expect(r2.code).toBe(0);
  });

  it.concurrent("bad input → exit 2 with one line naming the file", async () => {
    const missing = join(dir, "nope.json");
    const r1 = await run(["--era", "2025-11-25", "--request", missing]);
    expect(r1.code).toBe(2);
    expect(r1.stderr.trim().split("\n")).toHaveLength(1);
    expect(r1.stderr).toContain(missing);

    const broken = file("broken.json", "{ not json");
    const r2 = await run(["--era", "2025-11-25", "--request", broken]);
    expect(r2.code).toBe(2);
    expect(r2.stderr.trim().split("\n")).toHaveLength(1);
    expect(r2.stderr).toContain(broken);
    expect(r2.stderr).toContain("invalid JSON");
  });

  it.concurrent("bad usage → exit 2: unknown era, both or neither of --request/--result", async () => {
    const req = file("u.json", loopParams);
    const unknownEra = await run(["--era", "2025-01-01", "--request", req]);
    expect(unknownEra.code).toBe(2);
    expect(unknownEra.stderr).toContain("--era");
    const both = await run(["--era", "2025-11-25", "--request", req, "--result", req]);
    expect(both.code).toBe(2);
    expect(both.stderr.trim().split("\n")).toHaveLength(1);
    const neither = await run(["--era", "2025-11-25"]);
    expect(neither.code).toBe(2);
  });
});
