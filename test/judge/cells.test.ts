import { describe, expect, it } from "vitest";
import { buildCells, caseSide, cellStatus, type JudgedCase, summarize } from "../../src/judge/cells.ts";
import type { Register, RegisterRow } from "../../src/model/register.ts";
import type { CaseResult } from "../../src/model/results.ts";

const row = (over: Partial<RegisterRow> & Pick<RegisterRow, "id" | "side">): RegisterRow => ({
  title: "t",
  level: "MUST",
  eras: ["2024-11-05", "2025-11-25"],
  quote: "q",
  url: "https://example.com/",
  ...over,
});
const result = (id: string, status: CaseResult["status"]): CaseResult => ({
  id,
  status,
  reason: `${id} ${status}`,
});

describe("caseSide", () => {
  it("uses the case's own side, else the row's; a both-sided row defaults to client", () => {
    expect(caseSide(row({ id: "sampling-a", side: "server" }), undefined)).toBe("server");
    expect(caseSide(row({ id: "sampling-a", side: "intermediary" }), undefined)).toBe("intermediary");
    expect(caseSide(row({ id: "sampling-a", side: "both" }), undefined)).toBe("client");
    expect(caseSide(row({ id: "sampling-a", side: "both" }), "server")).toBe("server");
    expect(caseSide(row({ id: "sampling-a", side: "client" }), "server")).toBe("server");
  });
});

describe("cellStatus", () => {
  it("lets the worst case win: fail > error > warn > pass; a skipped case makes a pass partial", () => {
    expect(cellStatus([result("a", "pass"), result("b", "fail"), result("c", "error")])).toBe("fail");
    expect(cellStatus([result("a", "pass"), result("c", "error"), result("d", "warn")])).toBe("error");
    expect(cellStatus([result("a", "pass"), result("d", "warn")])).toBe("warn");
    expect(cellStatus([result("a", "pass"), result("s", "skip")])).toBe("partial");
    expect(cellStatus([result("a", "pass"), result("s", "skip"), result("b", "fail")])).toBe("fail");
    expect(cellStatus([result("s", "skip")])).toBe("not-run");
    expect(cellStatus([])).toBe("not-run");
  });
});

describe("buildCells", () => {
  const register: Register = {
    rows: [
      row({ id: "sampling-one", side: "intermediary" }),
      row({ id: "sampling-both", side: "both", eras: ["2025-11-25"] }),
      row({ id: "sampling-na", side: "client", na: "not for relays" }),
      row({ id: "sampling-empty", side: "server" }),
    ],
  };
  const judged: JudgedCase[] = [
    { row: "sampling-one", era: "2024-11-05", side: "intermediary", result: result("x", "pass") },
    { row: "sampling-one", era: "2025-11-25", side: "intermediary", result: result("x", "fail") },
    { row: "sampling-one", era: "2025-11-25", side: "intermediary", result: result("y", "pass") },
    { row: "sampling-both", era: "2025-11-25", side: "server", result: result("z", "warn") },
    // Judged cases of other eras or sides never leak into a cell.
    { row: "sampling-one", era: "2026-07-28", side: "intermediary", result: result("w", "fail") },
  ];

  it("makes one cell per row × selected era × side with its cases and status", () => {
    const cells = buildCells(register, judged, ["2024-11-05", "2025-11-25"]);
    expect(cells.map((c) => `${c.row}@${c.era}/${c.side}:${c.status}`)).toEqual([
      "sampling-one@2024-11-05/intermediary:pass",
      "sampling-one@2025-11-25/intermediary:fail",
      "sampling-both@2025-11-25/client:not-run",
      "sampling-both@2025-11-25/server:warn",
      "sampling-na@2024-11-05/client:n/a",
      "sampling-na@2025-11-25/client:n/a",
      "sampling-empty@2024-11-05/server:not-run",
      "sampling-empty@2025-11-25/server:not-run",
    ]);
    const one = cells.find((c) => c.row === "sampling-one" && c.era === "2025-11-25")!;
    expect(one.cases.map((c) => c.id)).toEqual(["x", "y"]);
    expect(one.note).toBeUndefined();
    expect(cells.find((c) => c.row === "sampling-na")!).toMatchObject({ note: "not for relays", cases: [] });
    expect(cells.find((c) => c.row === "sampling-empty")!.note).toBe(
      "no case in the corpus exercises this cell",
    );
  });

  it("gives a pending row's reason to its not-run cells", () => {
    const pendingRegister = {
      rows: register.rows.map((r) => (r.id === "sampling-empty" ? { ...r, pending: "needs bursts" } : r)),
    };
    const cells = buildCells(pendingRegister, [], ["2025-11-25"]);
    expect(cells.find((c) => c.row === "sampling-empty")).toMatchObject({
      status: "not-run",
      note: "pending: needs bursts",
    });
  });

  it("keeps only the selected eras and rows", () => {
    const cells = buildCells(register, judged, ["2025-11-25"], new Set(["sampling-one"]));
    expect(cells.map((c) => `${c.row}@${c.era}`)).toEqual(["sampling-one@2025-11-25"]);
    expect(buildCells(register, judged, [])).toEqual([]);
  });

  it("says why a cell did not run: the reason its skipped cases give, else the default", () => {
    const skipped = (row: string, side: "client" | "server"): JudgedCase => ({
      row,
      era: "2025-11-25",
      side,
      result: { id: "s", status: "skip", reason: "needs two sessions" },
    });
    const cells = buildCells(register, [skipped("sampling-both", "server")], ["2024-11-05", "2025-11-25"]);
    const note = (id: string, era: string, side?: string) =>
      cells.find((c) => c.row === id && c.era === era && (!side || c.side === side))!.note;
    expect(note("sampling-empty", "2025-11-25")).toBe("no case in the corpus exercises this cell");
    expect(note("sampling-both", "2025-11-25", "server")).toBe(
      "1 of 1 cases not run against this target: needs two sessions",
    );
    expect(note("sampling-na", "2024-11-05")).toBe("not for relays");
  });
});

describe("summarize", () => {
  it("counts cells by status, with every usual status present", () => {
    expect(summarize([])).toEqual({ pass: 0, fail: 0, warn: 0, error: 0, "not-run": 0, "n/a": 0 });
    const cells = buildCells(
      {
        rows: [
          row({ id: "sampling-one", side: "client" }),
          row({ id: "sampling-na", side: "client", na: "x" }),
        ],
      },
      [{ row: "sampling-one", era: "2024-11-05", side: "client", result: result("a", "pass") }],
      ["2024-11-05", "2025-11-25"],
    );
    expect(summarize(cells)).toEqual({ pass: 1, fail: 0, warn: 0, error: 0, "not-run": 1, "n/a": 2 });
    expect(
      summarize([{ row: "r", era: "2024-11-05", side: "client", status: "partial", cases: [] }]),
    ).toMatchObject({
      partial: 1,
      pass: 0,
    });
  });
});

describe("buildCells: a case that does not apply to the target", () => {
  const reg = {
    rows: [row({ id: "sampling-a", side: "client", eras: ["2025-11-25"] })],
  } as unknown as Register;
  const na = (id: string): CaseResult => ({
    id,
    status: "skip",
    reason: "n/a on a stdio upstream",
    na: true,
  });
  const judged = (results: CaseResult[]): JudgedCase[] =>
    results.map((r) => ({ row: "sampling-a", era: "2025-11-25", side: "client", result: r }));

  it("makes the cell n/a with the reason when every case of it is n/a here", () => {
    const [cell] = buildCells(reg, judged([na("x"), na("y")]), ["2025-11-25"]);
    expect(cell).toMatchObject({ status: "n/a", note: "n/a on a stdio upstream" });
    expect(cell!.cases.map((c) => c.id)).toEqual(["x", "y"]);
  });

  it("leaves a plain skip not-run, and a cell with a case that ran judged on it", () => {
    expect(buildCells(reg, judged([result("x", "skip")]), ["2025-11-25"])[0]!.status).toBe("not-run");
    expect(buildCells(reg, judged([na("x"), result("y", "fail")]), ["2025-11-25"])[0]!.status).toBe("fail");
  });

  it("does not make a cell partial: a case that does not apply leaves the rule no less exercised", () => {
    expect(buildCells(reg, judged([na("x"), result("y", "pass")]), ["2025-11-25"])[0]!.status).toBe("pass");
    // a case that could not run (a plain skip) still does
    expect(
      buildCells(reg, judged([result("x", "skip"), result("y", "pass")]), ["2025-11-25"])[0]!.status,
    ).toBe("partial");
  });
});
