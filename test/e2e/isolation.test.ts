import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EvidenceSchema } from "../../src/model/evidence.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { cliInProcess, tempDir } from "../helpers/cli.ts";

const ROW = "sampling-relay-answers-only-the-asker";

/** `run` against a target on these rows, into a fresh folder. */
async function runRows(target: string, rows: string) {
  const out = tempDir();
  const r = await cliInProcess(["run", "--target", target, "--rows", rows, "--out", out, "--quiet"]);
  return { out, r };
}

function readResults(dir: string): Results {
  return ResultsSchema.parse(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")));
}

describe(`${ROW}: two downstream sessions on one relay`, () => {
  it("catches a bridge that broadcasts server requests to every session and forwards the first answer", async () => {
    const { out, r } = await runRows(
      "targets/broken/broadcast-bridge.yaml",
      `sampling-relay-roundtrip,${ROW}`,
    );
    expect(r.code, r.stderr).toBe(1);
    const results = readResults(out);
    // It relays a single client perfectly well: only the isolation row fails.
    for (const cell of results.cells.filter((c) => c.row === "sampling-relay-roundtrip"))
      expect(cell.status).toBe("pass");
    const cells = results.cells.filter((c) => c.row === ROW);
    expect(cells.map((c) => c.era)).toEqual(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]);
    for (const cell of cells) {
      expect(cell.status).toBe("fail");
      const [kase] = cell.cases;
      expect(kase?.reason).toMatch(/also reached session B/);
      expect(kase?.reason).toMatch(
        /\/content\/text changed \(sent "An answer\. [^"]*", received "An answer\. [^"]*-bystander"\)/,
      );
      const evidence = EvidenceSchema.parse(JSON.parse(readFileSync(join(out, kase!.evidence!), "utf8")));
      // B's decoy won the race and reached the upstream; both sessions were shown the request.
      expect(JSON.stringify(evidence.observation.upstream)).toContain(`${evidence.canary}-bystander`);
      const asked = evidence.frames.filter(
        (f) => f.end === "downstream" && (f.message as any)?.method === "sampling/createMessage",
      );
      expect(asked.map((f) => f.session).sort()).toEqual(["A", "B"]);
    }
  });

  it("2026-07-28: the reference relay over Streamable HTTP keeps two clients' calls apart under one input key", async () => {
    const { out, r } = await runRows("targets/reference-http.yaml", ROW);
    expect(r.code, r.stderr).toBe(0);
    const [cell] = readResults(out).cells.filter((c) => c.row === ROW);
    expect(cell?.era).toBe("2026-07-28");
    expect(cell?.status, cell?.cases[0]?.reason).toBe("pass");
    expect(cell!.cases.map((c) => c.id).sort()).toEqual([
      "two-calls-one-input-key",
      "two-calls-one-input-key-second-answers-first",
    ]);
    const kase = cell!.cases.find((c) => c.id === "two-calls-one-input-key");
    const evidence = EvidenceSchema.parse(JSON.parse(readFileSync(join(out, kase!.evidence!), "utf8")));
    const checks = new Map(evidence.verdict.checks.map((c) => [c.id, c]));
    expect(checks.get("only-the-asker-asked")?.ok).toBe(true);
    expect(checks.get("answer-to-its-own-call")?.ok).toBe(true);
    // Two calls really were open at once, under the same input key and each with its own requestState.
    const required = evidence.frames
      .filter((f) => f.end === "upstream" && (f.message as any)?.result?.resultType === "input_required")
      .map((f) => (f.message as any).result);
    expect(required).toHaveLength(2);
    expect(new Set(required.map((x) => Object.keys(x.inputRequests).join())).size).toBe(1);
    expect(new Set(required.map((x) => x.requestState)).size).toBe(2);
    const [b] = evidence.observation.bystanders!;
    expect(b?.asked).toHaveLength(1);
    expect(JSON.stringify(b?.upstream)).toContain(b!.token!);
    expect(JSON.stringify(evidence.observation.upstream)).not.toContain(b!.token!);
  });

  it("2026-07-28: catches a relay that files pending exchanges by input key, so the first answer continues the second call", async () => {
    const { out, r } = await runRows(
      "targets/broken/mrtr-state-by-input-key.yaml",
      `sampling-relay-roundtrip,${ROW}`,
    );
    expect(r.code, r.stderr).toBe(1);
    const results = readResults(out);
    // One call at a time it relays correctly: only the isolation row fails.
    const [roundtrip] = results.cells.filter((c) => c.row === "sampling-relay-roundtrip");
    expect(roundtrip?.status).toBe("pass");
    const [cell] = results.cells.filter((c) => c.row === ROW);
    expect(cell?.status).toBe("fail");
    const reason = cell!.cases.find((c) => c.id === "two-calls-one-input-key")!.reason;
    expect(reason).toMatch(/the upstream call of session B received the answer of session A/);
    expect(reason).toMatch(/session A's answer went upstream under the requestState of session B's call/);
  });

  it("2026-07-28: catches a relay that continues the oldest exchange filed under a key, when the second caller answers first", async () => {
    const { out, r } = await runRows(
      "targets/broken/mrtr-state-oldest-by-input-key.yaml",
      `sampling-relay-roundtrip,${ROW}`,
    );
    expect(r.code, r.stderr).toBe(1);
    const [cell] = readResults(out).cells.filter((c) => c.row === ROW);
    const byId = new Map(cell!.cases.map((c) => [c.id, c]));
    // The first order cannot see it (the oldest exchange is the one that answers); the other order does.
    expect(byId.get("two-calls-one-input-key")?.status).toBe("pass");
    expect(byId.get("two-calls-one-input-key-second-answers-first")?.status).toBe("fail");
    expect(byId.get("two-calls-one-input-key-second-answers-first")?.reason).toMatch(
      /the upstream call of session A received the answer of session B/,
    );
  });

  it("on a stdio downstream (one client per process): the two-session case is skipped saying why, the row rests on the id cases", async () => {
    const out = tempDir();
    const r = await cliInProcess(["run", "--rows", ROW, "--era", "2025-11-25", "--out", out, "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const [cell] = readResults(out).cells.filter((c) => c.row === ROW);
    const twoSessions = cell?.cases.find((c) => c.id === "asker-session-only");
    expect(twoSessions?.status).toBe("skip");
    expect(twoSessions?.reason).toMatch(
      /n\/a on a stdio downstream: "the client launches the MCP server as a subprocess"/,
    );
    // The upstream's request under odd JSON-RPC ids (issue #32) runs on any downstream: the row is judged on those.
    const idCases = cell?.cases.filter((c) => c.id.startsWith("id-")) ?? [];
    expect(idCases.length).toBeGreaterThan(0);
    expect(idCases.every((c) => c.status === "pass")).toBe(true);
    expect(cell?.status).toBe("pass");
  });
});
