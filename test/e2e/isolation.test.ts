import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EvidenceSchema } from "../../src/model/evidence.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { cliInProcess, tempDir } from "../helpers/cli.ts";

const ROW = "sampling-relay-answers-only-the-asker";

function readResults(dir: string): Results {
  return ResultsSchema.parse(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")));
}

describe(`${ROW}: two downstream sessions on one relay`, () => {
  it("catches a bridge that broadcasts server requests to every session and forwards the first answer", async () => {
    const out = tempDir();
    const r = await cliInProcess([
      "run",
      "--target",
      "targets/broken/broadcast-bridge.yaml",
      "--rows",
      `sampling-relay-roundtrip,${ROW}`,
      "--out",
      out,
      "--quiet",
    ]);
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
      expect(kase?.reason).toMatch(/differs at \/content\/text/);
      const evidence = EvidenceSchema.parse(JSON.parse(readFileSync(join(out, kase!.evidence!), "utf8")));
      // B's decoy won the race and reached the upstream; both sessions were shown the request.
      expect(JSON.stringify(evidence.observation.upstream)).toContain(`${evidence.canary}-bystander`);
      const asked = evidence.frames.filter(
        (f) => f.end === "downstream" && (f.message as any)?.method === "sampling/createMessage",
      );
      expect(asked.map((f) => f.session).sort()).toEqual(["A", "B"]);
    }
  });

  it("is n/a against a relay whose downstream is stdio (one client per process), and says why in the cell note", async () => {
    const out = tempDir();
    const r = await cliInProcess(["run", "--rows", ROW, "--era", "2025-11-25", "--out", out, "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const [cell] = readResults(out).cells.filter((c) => c.row === ROW);
    expect(cell?.status).toBe("n/a");
    expect(cell?.note).toMatch(
      /n\/a on a stdio downstream: "the client launches the MCP server as a subprocess"/,
    );
  });
});
