import { describe, expect, it } from "vitest";
import { EvidenceSchema, type Frame } from "../../src/model/evidence.ts";
import { frameContexts, officialSchemaOf } from "../../src/model/wire-schema.ts";
import { schemaProvenance } from "../../src/protocol/mcp-schema.ts";

type F = Omit<Frame, "t">;
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { sampling: {} },
};

/** A 2026-07-28 downstream: the harness lists tools, the relay answers without ttlMs/cacheScope; a legacy upstream. */
const FRAMES: F[] = [
  {
    end: "downstream",
    dir: "to-relay",
    message: { jsonrpc: "2.0", id: "d1", method: "tools/list", params: { _meta: meta } },
  },
  {
    end: "downstream",
    dir: "from-relay",
    message: { jsonrpc: "2.0", id: "d1", result: { resultType: "complete", tools: [] } },
  },
  {
    end: "upstream",
    dir: "from-relay",
    message: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "p" } },
  },
  // The harness's own frame is not the relay's: never checked here, however wrong.
  { end: "upstream", dir: "to-relay", message: { jsonrpc: "2.0", id: 1, result: { content: "nope" } } },
  { end: "review", dir: "from-relay", message: { anything: true } },
  { end: "downstream", dir: "from-relay", raw: "not json" },
];

describe("the official schema on the relay's frames (evidence officialSchema)", () => {
  it("who sent each frame, in which era, and what each response answers", () => {
    const contexts = frameContexts(FRAMES, { upstream: "2025-06-18", downstream: "2026-07-28" });
    expect(contexts).toEqual([
      { era: "2026-07-28", from: "client" },
      { era: "2026-07-28", from: "server", answers: "tools/list" },
      { era: "2025-06-18", from: "client" },
      { era: "2025-06-18", from: "server", answers: "tools/call" },
      undefined,
      undefined,
    ]);
  });

  it("records each finding with its frame, end and era; the harness's frames, review and raw frames are not checked", () => {
    const recorded = officialSchemaOf(FRAMES, { upstream: "2025-06-18", downstream: "2026-07-28" });
    expect(recorded).toEqual({
      commit: schemaProvenance().commit,
      checked: 2,
      findings: [
        {
          frame: 1,
          end: "downstream",
          era: "2026-07-28",
          definition: "ListToolsResultResponse",
          pointer: "/result",
          message: "must have required property 'cacheScope'",
        },
        {
          frame: 1,
          end: "downstream",
          era: "2026-07-28",
          definition: "ListToolsResultResponse",
          pointer: "/result",
          message: "must have required property 'ttlMs'",
        },
      ],
    });
    // The field is part of the evidence contract.
    expect(EvidenceSchema.shape.officialSchema.safeParse(recorded).success).toBe(true);
  });

  it("a version probe is judged in the revision it asks about, not the one its end speaks", () => {
    const probes: F[] = [
      {
        end: "upstream",
        dir: "from-relay",
        message: { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } },
      },
      {
        end: "upstream",
        dir: "to-relay",
        message: { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "no" } },
      },
      {
        end: "downstream",
        dir: "to-relay",
        message: {
          jsonrpc: "2.0",
          id: 2,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "c", version: "1" },
          },
        },
      },
    ];
    expect(frameContexts(probes, { upstream: "2025-03-26", downstream: "2026-07-28" })).toEqual([
      { era: "2026-07-28", from: "client" },
      { era: "2025-03-26", from: "server", answers: "server/discover" },
      { era: "2025-06-18", from: "client" },
    ]);
    expect(officialSchemaOf(probes, { upstream: "2025-03-26", downstream: "2026-07-28" })?.findings).toEqual(
      [],
    );
  });

  it("no frame of the relay: no field", () => {
    expect(
      officialSchemaOf(FRAMES.slice(3), { upstream: "2025-06-18", downstream: "2025-06-18" }),
    ).toBeUndefined();
  });
});
