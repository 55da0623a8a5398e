import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { splitCommand } from "../../src/cli/init.ts";
import { foundEras } from "../../src/cli/init-eras.ts";
import { loadTarget } from "../../src/model/load.ts";
import { cliInProcess, ROOT, tempDir } from "../helpers/cli.ts";

const RELAY = [
  "node",
  join(ROOT, "bin/mcpx-conform.js"),
  "relay",
  "--answer-timeout-ms",
  "1500",
  "--",
  "{{upstream.command}}",
];

describe("mcpx-conform init: a commented profile, checked by one case", () => {
  it("writes a profile with its JSON Schema, loads it, and passes the smoke check against the reference relay", async () => {
    const dir = tempDir();
    const r = await cliInProcess(["init", "--out", "relay.yaml", "--name", "mine", "--", ...RELAY], {
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(join(dir, "relay.yaml"), "utf8");
    const schema = /^# yaml-language-server: \$schema=(.+)$/m.exec(text)?.[1];
    expect(schema && existsSync(resolve(dir, schema)), `schema ${schema}`).toBe(true);
    expect(loadTarget(join(dir, "relay.yaml"))).toMatchObject({ name: "mine", command: RELAY });
    expect(text).toMatch(/^# Your relay's own deadline/m);
    expect(r.stderr).toMatch(/smoke check \(sampling-relay-roundtrip @2025-11-25\): pass/);
    // One round trip per era: the reference relay reaches every era at both ends, and the profile lists all five.
    for (const era of ["2024-11-05", "2025-03-26", "2025-06-18", "2026-07-28"])
      expect(r.stderr).toContain(`smoke check (sampling-relay-roundtrip @${era}): pass`);
    expect(loadTarget(join(dir, "relay.yaml")).eras).toEqual([
      "2024-11-05",
      "2025-03-26",
      "2025-06-18",
      "2025-11-25",
      "2026-07-28",
    ]);
    // One line per era in the comment above `eras:`, with the version each end of the relay spoke.
    expect(text).toContain("# What init's smoke check found, one round trip per era:\n");
    expect(text).toContain(
      "#   2026-07-28: pass (its client side spoke 2026-07-28, its upstream side 2026-07-28)\neras: [",
    );
  });

  it("reports a relay the harness cannot drive: the smoke check fails, exit 1, with its evidence folder", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "silent.mjs"),
      "process.stdin.on('data', (c) => { for (const l of String(c).split('\\n')) if (l.includes('\"initialize\"')) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(l).id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } }) + '\\n'); else if (l.includes('tools/list')) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(l).id, result: { tools: [{ name: 'conformance_probe', inputSchema: { type: 'object' } }] } }) + '\\n'); else if (l.includes('tools/call')) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(l).id, result: { content: [] } }) + '\\n'); });\n",
    );
    const r = await cliInProcess(["init", "--out", "p.yaml", "--", "node", "silent.mjs"], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/smoke check \(sampling-relay-roundtrip @2025-11-25\): fail/);
    expect(r.stderr).toMatch(/evidence: mcpx-conform-report\/init-check-p/);
  });

  it("refuses without a command off a terminal, an existing file without --force, and a bad transport (exit 2)", async () => {
    const dir = tempDir();
    const none = await cliInProcess(["init", "--out", "p.yaml"], { cwd: dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/command: expected the relay's command after --/);
    writeFileSync(join(dir, "p.yaml"), "name: x\n");
    const exists = await cliInProcess(["init", "--out", "p.yaml", "--", "node", "r.js"], { cwd: dir });
    expect(exists.code).toBe(2);
    expect(exists.stderr).toMatch(/--out: expected a new file/);
    const bad = await cliInProcess(["init", "--out", "q.yaml", "--downstream", "tcp", "--", "node", "r.js"], {
      cwd: dir,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--downstream: expected one of stdio, streamable-http, sse, got 'tcp'/);
    expect(existsSync(join(dir, "q.yaml"))).toBe(false);
    expect(dirname(join(dir, "p.yaml"))).toBe(dir);
  });

  it("lists the eras whose round trip was judged, and says why each other era was left out", () => {
    const both = (v: string) => ({ upstream: v, downstream: v });
    const found = foundEras([
      { era: "2024-11-05", status: "pass", reason: "ok", negotiated: both("2024-11-05") },
      { era: "2025-03-26", status: "fail", reason: "changed the request", negotiated: both("2025-03-26") },
      { era: "2025-06-18", status: "error", reason: "the relay session could not start:\n timed out" },
      { era: "2025-11-25", status: "partial", reason: "ok" },
      { era: "2026-07-28", status: "n/a", reason: "the relay's upstream side does not speak 2026-07-28: …" },
    ]);
    // A failed round trip still reached the relay at both ends: that era is judged, the failure is the run's to show.
    expect(found?.eras).toEqual(["2024-11-05", "2025-03-26", "2025-11-25"]);
    expect(found?.comment).toEqual([
      "What init's smoke check found, one round trip per era (to try an era left out anyway: run --era):",
      "  2024-11-05: pass (its client side spoke 2024-11-05, its upstream side 2024-11-05)",
      "  2025-03-26: fail (its client side spoke 2025-03-26, its upstream side 2025-03-26)",
      "  2025-06-18: left out (error): the relay session could not start: timed out",
      "  2025-11-25: partial (its client side spoke ?, its upstream side ?)",
      "  2026-07-28: left out (n/a): the relay's upstream side does not speak 2026-07-28: …",
    ]);
    // Reaching no era at all leaves the profile's eras out (every era, the default): the smoke check's lines say why.
    expect(foundEras([{ era: "2025-11-25", status: "error", reason: "x" }])).toBeUndefined();
  });

  it("splits a typed command line, quotes grouping words", () => {
    expect(splitCommand(`node "my relay.js" --x 'a b' {{upstream.command}}`)).toEqual([
      "node",
      "my relay.js",
      "--x",
      "a b",
      "{{upstream.command}}",
    ]);
  });
});
