import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compactEras, table } from "../../src/cli/list.ts";
import { DEFAULT_REGISTER, loadCases, loadRegister } from "../../src/model/load.ts";
import { cliInProcess, tempDir } from "../helpers/cli.ts";

const GOOD_CASE = [
  "id: ok",
  "row: sampling-relay-roundtrip",
  "title: A plain round trip",
  "why: the prerequisite",
  "request: { messages: [{ role: user, content: { type: text, text: 'hi {{canary}}' } }], maxTokens: 8 }",
  "answer: { action: accept, result: { role: assistant, content: { type: text, text: x }, model: m } }",
  "expect: [{ outcome: delivered }]",
].join("\n");

/** A temp corpus: the real register, one good case, plus whatever `extra` adds. */
function corpus(extra: (dir: string) => void = () => {}): { register: string; cases: string } {
  const root = tempDir("mcpx-conform-list-");
  const register = join(root, "register.yaml");
  copyFileSync(DEFAULT_REGISTER, register);
  const cases = join(root, "cases");
  mkdirSync(join(cases, "sampling-relay-roundtrip"), { recursive: true });
  writeFileSync(join(cases, "sampling-relay-roundtrip", "ok.yaml"), GOOD_CASE);
  extra(cases);
  return { register, cases };
}

describe("compactEras / table", () => {
  it("joins runs of consecutive eras", () => {
    expect(compactEras(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])).toBe(
      "2024-11-05..2026-07-28",
    );
    expect(compactEras(["2025-11-25"])).toBe("2025-11-25");
    expect(compactEras(["2026-07-28", "2024-11-05", "2025-03-26"])).toBe("2024-11-05..2025-03-26,2026-07-28");
  });

  it("pads every column but the last", () => {
    expect(table(["a", "bb"], [["ccc", "d"]])).toBe("a    bb\nccc  d");
  });
});

describe("mcpx-conform list", () => {
  it("list rows --json prints every register row with its case count or n/a reason", async () => {
    const { code, stdout, stderr } = await cliInProcess(["list", "rows", "--json"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as Array<{
      id: string;
      eras: string[];
      cases: number;
      na?: string;
      severity: string;
    }>;
    const register = loadRegister();
    expect(rows.map((r) => r.id)).toEqual(register.rows.map((r) => r.id));
    const hints = rows.find((r) => r.id === "sampling-hints-evaluated-in-order")!;
    expect(hints.na).toContain("a relay runs no model");
    expect(hints.cases).toBe(0);
    expect(rows.find((r) => r.id === "sampling-human-in-loop-can-deny")!.severity).toBe("failure");
  });

  it("list rows prints a table with compact eras and n/a reasons", async () => {
    const { register, cases } = corpus();
    const { code, stdout } = await cliInProcess(["list", "rows", "--register", register, "--cases", cases]);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^id\s+side\s+level\s+eras\s+cases$/);
    expect(lines).toHaveLength(loadRegister(register).rows.length + 1);
    expect(stdout).toMatch(/sampling-relay-roundtrip\s+intermediary\s+MUST\s+2024-11-05\.\.2026-07-28\s+1\n/);
    expect(stdout).toMatch(
      /sampling-client-errors-user-rejected-and-tool-shape\s+client\s+SHOULD\s+2025-11-25\s+0\n/,
    );
    expect(stdout).toMatch(
      /sampling-hint-name-substring\s+client\s+SHOULD\s+\S+\s+n\/a: a relay runs no model/,
    );
  });

  it("reads relative --register and --cases from the folder it runs in", async () => {
    const { register, cases } = corpus();
    const cwd = join(register, "..");
    const { code, stdout, stderr } = await cliInProcess(
      ["list", "cases", "--register", "register.yaml", "--cases", "cases"],
      { cwd },
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(cases).toBe(join(cwd, "cases"));
    expect(stdout.trimEnd().split("\n")).toHaveLength(2);
  });

  it("list cases prints row/case id, eras, side and title", async () => {
    const { register, cases } = corpus();
    const text = await cliInProcess(["list", "cases", "--register", register, "--cases", cases]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /sampling-relay-roundtrip\/ok\s+2024-11-05\.\.2026-07-28\s+intermediary\s+A plain round trip/,
    );
    const json = await cliInProcess(["list", "cases", "--json"]);
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as Array<{ row: string; id: string }>;
    expect(listed.map((c) => `${c.row}/${c.id}`)).toEqual(
      loadCases(loadRegister()).map((c) => `${c.row}/${c.id}`),
    );
  });

  it("a bad case file exits 2 with one line naming the file and the field", async () => {
    const { register, cases } = corpus((dir) =>
      writeFileSync(
        join(dir, "sampling-relay-roundtrip", "bad.yaml"),
        GOOD_CASE.replace("id: ok", "id: bad").replace(
          "answer: { action: accept,",
          "answer: { action: maybe,",
        ),
      ),
    );
    const { code, stdout, stderr } = await cliInProcess([
      "list",
      "rows",
      "--json",
      "--register",
      register,
      "--cases",
      cases,
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    const lines = stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(join("sampling-relay-roundtrip", "bad.yaml"));
    expect(lines[0]).toMatch(/: answer\.action: /);
  });

  it("list targets lists the shipped profiles; a bad profile prints an error line and exits 2", async () => {
    const shipped = await cliInProcess(["list", "targets", "--json"]);
    expect(shipped.code).toBe(0);
    const names = (JSON.parse(shipped.stdout) as Array<{ name: string }>).map((t) => t.name);
    expect(names).toContain("reference");

    const dir = tempDir("mcpx-conform-targets-");
    mkdirSync(join(dir, "nested"));
    writeFileSync(
      join(dir, "nested", "good.yaml"),
      "name: good\ndescription: a fine relay\ncommand: [relay]\ndownstream: { transport: stdio }\nupstream: { transport: stdio }\n",
    );
    writeFileSync(
      join(dir, "bad.json"),
      JSON.stringify({ name: "bad", command: [], downstream: { transport: "stdio" } }),
    );
    writeFileSync(join(dir, "notes.txt"), "not a profile");
    const { code, stdout, stderr } = await cliInProcess(["list", "targets", "--targets", dir]);
    expect(code).toBe(2);
    expect(stdout).toMatch(/^name\s+file\s+description\ngood\s+\S*good\.yaml\s+a fine relay\n$/);
    const lines = stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/bad\.json: command: /);
  });

  it("rejects an unknown listing with exit 2", async () => {
    const { code } = await cliInProcess(["list", "widgets"]);
    expect(code).toBe(2);
  });
});
