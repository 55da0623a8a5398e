import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTarget } from "../../src/model/load.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { cliInProcess, ROOT, tempDir } from "../helpers/cli.ts";

/**
 * A relay whose upstream side speaks only the handshake eras: the sampling pass-through on the official MCP Python SDK
 * (targets/foreign/sdk-python.yaml, mcp 2.3.0: its ClientSession offers 2025-11-25 at initialize) and its wire shape in
 * Node (targets/foreign/legacy-upstream-client.yaml), each refused by the 2026-07-28 harness upstream with -32022. That
 * era's cells are n/a, quoting what was sent and answered, never `error`; the legacy eras are judged; `init` leaves
 * 2026-07-28 out of the profile's eras and says why. The Python relay needs `npm run test:setup`
 * (.venv-relays/sdk-python) and is skipped without it; its Node twin always runs.
 */

const VENV_MISSING = !existsSync(join(ROOT, ".venv-relays/sdk-python/bin/python"));
const WHY = " (skipped: no .venv-relays/sdk-python; `npm run test:setup` needs python3)";
const REFUSAL =
  /^the relay's upstream side does not speak 2026-07-28: its client sent initialize \{"protocolVersion":"2025-11-25",.*\} and the 2026-07-28 upstream answered error \{"code":-32022,.*"data":\{"supported":\["2026-07-28"\],"requested":"2025-11-25"\}\}/;
/** The round trip, and the bridges between eras (a 2026-07-28 client in a legacy era among them). */
const ROWS = "sampling-relay-roundtrip,sampling-relay-adapts-to-downstream-era";
const LEGACY = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

const targets = [
  {
    name: "sdk-python",
    skipped: VENV_MISSING,
    why: VENV_MISSING ? WHY : "",
    command: [
      join(ROOT, ".venv-relays/sdk-python/bin/python"),
      join(ROOT, "targets/foreign/sdk-python/relay.py"),
      "{{upstream.command}}",
    ],
  },
  {
    name: "legacy-upstream-client",
    skipped: false,
    why: "",
    command: [
      "node",
      join(ROOT, "targets/foreign/relays/legacy-upstream-client.mjs"),
      "--",
      "{{upstream.command}}",
    ],
  },
];

for (const target of targets)
  describe.skipIf(target.skipped)(
    `${target.name}: its upstream side speaks only older eras${target.why}`,
    () => {
      it("run in every era: no error cell, the 2026-07-28 cells n/a with the -32022 refusal quoted, exit 0 or 1", async () => {
        const out = tempDir();
        const profile = `targets/foreign/${target.name}.yaml`;
        const r = await cliInProcess([
          "run",
          "--target",
          profile,
          "--rows",
          ROWS,
          "--out",
          out,
          "--seed",
          "1",
        ]);
        expect([0, 1], r.stderr).toContain(r.code);
        const results: Results = ResultsSchema.parse(
          JSON.parse(readFileSync(join(out, "results.json"), "utf8")),
        );
        expect(results.cells.filter((c) => c.status === "error").map((c) => `${c.row}@${c.era}`)).toEqual([]);
        const modern = results.cells.filter((c) => c.era === "2026-07-28");
        expect(modern.length).toBeGreaterThan(0);
        for (const cell of modern)
          for (const c of cell.cases) expect(c.reason, `${cell.row}/${c.id}`).toMatch(/-32022/);
        const roundtrip = modern.find((c) => c.row === "sampling-relay-roundtrip")!;
        expect(roundtrip.status).toBe("n/a");
        expect(roundtrip.cases[0]?.reason).toMatch(REFUSAL);
        // The legacy eras are judged (the relay reaches them at both ends), the bridges among them too.
        const legacy = results.cells.filter(
          (c) => c.era !== "2026-07-28" && c.row === "sampling-relay-roundtrip",
        );
        expect(legacy.map((c) => c.status)).toEqual(["pass", "pass", "pass", "pass"]);
        const bridge = results.cells.find(
          (c) => c.row === "sampling-relay-adapts-to-downstream-era" && c.era === "2025-11-25",
        );
        expect(["pass", "fail", "warn", "partial"]).toContain(bridge?.status);
      });

      it("init writes eras: without 2026-07-28, and says why", async () => {
        const dir = tempDir();
        const r = await cliInProcess(["init", "--out", "p.yaml", "--", ...target.command], { cwd: dir });
        expect(r.code, r.stderr).toBe(0);
        expect(loadTarget(join(dir, "p.yaml")).eras).toEqual(LEGACY);
        const text = readFileSync(join(dir, "p.yaml"), "utf8");
        expect(text).toMatch(
          /^# {3}2026-07-28: left out \(n\/a\): the relay's upstream side does not speak 2026-07-28: its client sent initialize .*-32022/m,
        );
        // The eras it reached, with the version each end spoke.
        expect(text).toContain(
          "#   2025-11-25: pass (its client side spoke 2025-11-25, its upstream side 2025-11-25)\n",
        );
        expect(r.stderr).toMatch(
          /smoke check \(sampling-relay-roundtrip @2026-07-28\): n\/a — the relay's upstream side/,
        );
      });
    },
  );

describe("legacy-upstream-client --silent-discover: a relay too slow to answer server/discover", () => {
  it("is n/a for its upstream's refusal, not for refusing 2026-07-28 clients", async () => {
    const dir = tempDir();
    const relay = join(ROOT, "targets/foreign/relays/legacy-upstream-client.mjs");
    const profile = join(dir, "silent.yaml");
    writeFileSync(
      profile,
      `name: silent-discover\ncommand: ["node", ${JSON.stringify(relay)}, "--silent-discover", "--", "{{upstream.command}}"]\ndownstream: { transport: stdio }\nupstream: { transport: stdio }\nanswerer: { kind: client }\n`,
    );
    const out = join(dir, "out");
    const args = [
      "run",
      "--target",
      profile,
      "--era",
      "2026-07-28",
      "--rows",
      "sampling-relay-roundtrip",
      "--out",
      out,
    ];
    const r = await cliInProcess(args);
    expect(r.code, r.stderr).toBe(0);
    const results: Results = ResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
    const roundtrip = results.cells.find((c) => c.row === "sampling-relay-roundtrip")!;
    // It serves 2026-07-28 clients (tools/list was refused for its upstream, which it could not reach): that is the reason.
    expect(roundtrip.status).toBe("n/a");
    expect(roundtrip.cases[0]?.reason).toMatch(REFUSAL);
  });
});
