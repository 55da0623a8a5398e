import { describe, expect, it } from "vitest";
import {
  type BrokenRelay,
  caseKills,
  checkReference,
  checkRelay,
  isKill,
  type KillMatrix,
  KillMatrixSchema,
  mergeResults,
  referenceRuns,
  relayRuns,
  selectCells,
  unlistedFailures,
} from "../../src/model/kill-matrix.ts";
import type { Cell, Results } from "../../src/model/results.ts";

const cell = (
  row: string,
  era: Cell["era"],
  status: Cell["status"],
  cases: Array<[string, Cell["cases"][number]["status"], string?]>,
  side: Cell["side"] = "client",
): Cell => ({
  row,
  era,
  side,
  status,
  cases: cases.map(([id, s, reason]) => ({ id, status: s, reason: reason ?? `${id} ${s}` })),
});
const results = (cells: Cell[]): Results => ({
  tool: { name: "mcpx-conform", version: "0" },
  target: { name: "t" },
  seed: 1,
  startedAt: "now",
  cells,
  summary: {},
});
const relay = (over: Partial<BrokenRelay>): BrokenRelay => ({
  name: "r",
  target: "targets/broken/r.yaml",
  defect: "d",
  mustFail: [{ row: "sampling-a" }],
  mustNotPass: [],
  mustPass: [],
  ...over,
});
const matrix = (relays: BrokenRelay[]): KillMatrix =>
  KillMatrixSchema.parse({
    eras: ["2025-11-25"],
    references: [{ target: "targets/reference.yaml", eras: ["2024-11-05", "2025-11-25"] }],
    relays,
  });

const run = results([
  cell("sampling-a", "2025-11-25", "fail", [
    ["a1", "fail"],
    ["a2", "pass"],
  ]),
  cell("sampling-b", "2025-11-25", "warn", [["b1", "warn"]], "server"),
  cell("sampling-c", "2025-11-25", "pass", [["c1", "pass"]]),
  cell("sampling-d", "2025-11-25", "not-run", []),
  cell("sampling-e", "2025-11-25", "error", [["e1", "error"]]),
]);

describe("kill matrix schema", () => {
  it("rejects a duplicate relay, a bad row and an unknown field", () => {
    expect(() => matrix([relay({}), relay({})])).toThrow(/duplicate relay 'r'/);
    expect(() => matrix([relay({ mustFail: [{ row: "nope" }] })])).toThrow();
    expect(() => KillMatrixSchema.parse({ ...matrix([relay({})]), extra: 1 })).toThrow();
    expect(matrix([relay({})]).unkillable).toEqual([]);
  });
});

describe("checkRelay", () => {
  it("accepts fail and warn as kills, and a listed case must itself fail", () => {
    expect(isKill("fail") && isKill("warn") && !isKill("pass") && !isKill("error")).toBe(true);
    expect(
      checkRelay(
        relay({
          mustFail: [
            { row: "sampling-a", cases: ["a1"] },
            { row: "sampling-b", side: "server" },
          ],
        }),
        run,
      ),
    ).toEqual([]);
    expect(checkRelay(relay({ mustFail: [{ row: "sampling-a", cases: ["a2"] }] }), run)).toEqual([
      "survived case a2 in sampling-a/client@2025-11-25: pass (a2 pass)",
    ]);
  });

  it("reports survivors, errors, stale selectors and false reds", () => {
    expect(checkRelay(relay({ mustFail: [{ row: "sampling-c" }, { row: "sampling-e" }] }), run)).toEqual([
      "survived sampling-c/client@2025-11-25: the cell is pass — c1: pass (c1 pass)",
      "survived sampling-e/client@2025-11-25: the cell is error — e1: error (e1 error)",
    ]);
    expect(
      checkRelay(
        relay({
          mustFail: [
            { row: "sampling-d" },
            { row: "sampling-a", era: "2024-11-05" },
            { row: "sampling-a", cases: ["zz"] },
          ],
        }),
        run,
      ),
    ).toEqual([
      "must fail sampling-d, but no such cell was exercised (stale kill matrix, or the cases are gone)",
      "must fail sampling-a @2024-11-05, but no such cell was exercised (stale kill matrix, or the cases are gone)",
      "must fail case zz in sampling-a cases zz, but it did not run",
    ]);
    expect(
      checkRelay(
        relay({
          mustPass: [
            { row: "sampling-b" },
            { row: "sampling-c", cases: ["c1", "c9"] },
            { row: "sampling-z" },
          ],
        }),
        run,
      ),
    ).toEqual([
      "false red: sampling-b/server@2025-11-25 is warn, but this defect must not fail it — b1: warn (b1 warn)",
      "must pass case c9 in sampling-c cases c1, c9, but it did not run",
      "must pass sampling-z, but no such cell was exercised (stale kill matrix, or the cases are gone)",
    ]);
  });

  it('"*" selects every exercised cell', () => {
    expect(selectCells(run, { row: "*" }).map((c) => c.row)).toEqual([
      "sampling-a",
      "sampling-b",
      "sampling-c",
      "sampling-e",
    ]);
    expect(checkRelay(relay({ mustFail: [{ row: "*" }] }), run)).toHaveLength(2);
    expect(unlistedFailures(relay({ mustFail: [{ row: "sampling-a" }] }), run)).toEqual([
      "sampling-b/server@2025-11-25",
    ]);
  });
});

describe("mustNotPass: a relay the harness cannot drive (hostile) must never earn a pass", () => {
  const partial = cell("sampling-f", "2025-11-25", "partial", [
    ["f1", "pass"],
    ["f2", "skip"],
  ]);
  const hostileRun = results([...run.cells, partial]);

  it("accepts error, fail and warn cells; a pass or partial cell, or a listed case that passed, is a problem", () => {
    const nonPassing = [{ row: "sampling-a" }, { row: "sampling-b" }, { row: "sampling-e", cases: ["e1"] }];
    expect(checkRelay(relay({ mustFail: [], mustNotPass: nonPassing }), hostileRun)).toEqual([]);
    expect(
      checkRelay(
        relay({
          mustFail: [],
          mustNotPass: [
            { row: "sampling-c" },
            { row: "sampling-f" },
            { row: "sampling-a", cases: ["a2", "a9"] },
            { row: "sampling-d" },
          ],
        }),
        hostileRun,
      ),
    ).toEqual([
      "passed sampling-c/client@2025-11-25: the cell is pass, but this relay must never pass it",
      "passed sampling-f/client@2025-11-25: the cell is partial, but this relay must never pass it",
      "case a2 in sampling-a/client@2025-11-25 is pass, but this relay must never pass it",
      "must not pass case a9 in sampling-a cases a2, a9, but it did not run",
      "must not pass sampling-d, but no such cell was exercised (stale kill matrix, or the cases are gone)",
    ]);
    // "*" selects every exercised cell, so one pass anywhere is caught.
    expect(checkRelay(relay({ mustFail: [], mustNotPass: [{ row: "*" }] }), hostileRun)).toHaveLength(2);
  });

  it("runs the rows it names, counts as listed, and a broken relay needs mustFail or mustNotPass", () => {
    const r = relay({ mustFail: [], mustNotPass: [{ row: "sampling-e" }] });
    expect(relayRuns(matrix([r]), r)).toEqual([{ eras: ["2025-11-25"], rows: ["sampling-e"] }]);
    expect(unlistedFailures(relay({ mustFail: [], mustNotPass: [{ row: "sampling-b" }] }), run)).toEqual([
      "sampling-a/client@2025-11-25",
    ]);
    expect(() => matrix([relay({ mustFail: [] })])).toThrow(/at least one mustFail or mustNotPass/);
    const m = KillMatrixSchema.parse({
      eras: ["2025-11-25"],
      references: [{ target: "targets/reference.yaml" }],
      relays: [relay({})],
      hostile: [
        { name: "h", target: "targets/hostile/h.yaml", defect: "d", mustNotPass: [{ row: "sampling-a" }] },
      ],
    });
    expect(m.hostile[0]!.mustFail).toEqual([]);
    expect(() => KillMatrixSchema.parse({ ...m, hostile: [{ ...m.hostile[0]!, name: "r" }] })).toThrow(
      /duplicate relay 'r'/,
    );
  });
});

describe("checkReference and caseKills", () => {
  it("the reference must pass every exercised cell", () => {
    expect(checkReference(results([cell("sampling-c", "2025-11-25", "pass", [["c1", "pass"]])]))).toEqual([]);
    expect(checkReference(run)).toEqual([
      "sampling-a/client@2025-11-25 is fail: a1: a1 fail",
      "sampling-b/server@2025-11-25 is warn: b1: b1 warn",
      "sampling-e/client@2025-11-25 is error: e1: e1 error",
    ]);
  });

  it("counts a case killed when it failed on its own, not through the round-trip prerequisite alone", () => {
    const pre =
      "Prerequisite not met: no round trip, so this case proves nothing (it would otherwise have been pass)";
    const r2 = results([
      cell("sampling-a", "2025-11-25", "fail", [
        ["a1", "fail", pre],
        ["a3", "fail", pre],
      ]),
    ]);
    const kills = caseKills(
      new Map([
        ["x", run],
        ["y", r2],
      ]),
      (relayName, _c, k) => relayName === "y" && k.id === "a3",
    );
    expect([...kills.entries()].map(([k, v]) => `${k}:${[...v].join("+")}`)).toEqual([
      "sampling-a/a1:x",
      "sampling-b/b1:x",
      "sampling-a/a3:y",
    ]);
  });
});

describe("planning runs", () => {
  it("runs each era only on the rows its selectors name, grouping eras with the same rows", () => {
    const r = relay({
      eras: ["2024-11-05", "2025-11-25", "2026-07-28"],
      mustFail: [{ row: "sampling-a", era: "2024-11-05" }, { row: "sampling-b" }],
      mustPass: [{ row: "sampling-c", era: "2026-07-28" }],
    });
    expect(relayRuns(matrix([r]), r)).toEqual([
      { eras: ["2024-11-05"], rows: ["sampling-a", "sampling-b"] },
      { eras: ["2025-11-25"], rows: ["sampling-b"] },
      { eras: ["2026-07-28"], rows: ["sampling-b", "sampling-c"] },
    ]);
    const star = relay({ eras: ["2024-11-05", "2025-11-25"], mustFail: [{ row: "*" }] });
    expect(relayRuns(matrix([star]), star)).toEqual([
      { eras: ["2024-11-05", "2025-11-25"], rows: undefined },
    ]);
    const none = relay({
      eras: ["2024-11-05", "2025-11-25"],
      mustFail: [{ row: "sampling-a", era: "2025-11-25" }],
    });
    expect(relayRuns(matrix([none]), none)).toEqual([{ eras: ["2025-11-25"], rows: ["sampling-a"] }]);
  });

  it("runs a reference on every era and row its relays use", () => {
    const a = relay({ name: "a", mustFail: [{ row: "sampling-a" }] });
    const b = relay({ name: "b", eras: ["2024-11-05"], mustFail: [{ row: "sampling-b" }] });
    const m = matrix([a, b]);
    expect(referenceRuns(m, m.references[0]!, [a, b])).toEqual([
      { eras: ["2024-11-05"], rows: ["sampling-b"] },
      { eras: ["2025-11-25"], rows: ["sampling-a"] },
    ]);
    const star = relay({ name: "s", mustFail: [{ row: "*" }] });
    expect(referenceRuns(m, m.references[0]!, [a, star])).toEqual([
      { eras: ["2025-11-25"], rows: undefined },
    ]);
    expect(() => mergeResults([])).toThrow();
    expect(mergeResults([run, results([cell("sampling-z", "2024-11-05", "pass", [])])]).cells).toHaveLength(
      6,
    );
  });
});
