import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/model/errors.ts";
import { loadCases, loadRegister } from "../../src/model/load.ts";
import { type Register, type RegisterRow, rowCellSides, rowSeverity } from "../../src/model/register.ts";
import {
  formatProblems,
  quoteEraProblems,
  registerCoverageProblems,
} from "../../src/model/register-check.ts";
import { ERAS } from "../../src/protocol/eras.ts";
import { tempDir } from "../helpers/cli.ts";
import { ISSUE_256_ROWS } from "../helpers/issue-256.ts";

const register = loadRegister();
const byId = new Map(register.rows.map((r) => [r.id, r]));
const ALL = [...ERAS];

/** mcpx's catalogue (docs/spec/requirements.md @ a03494f, notes §1.4): every sampling-* id, reused as is. */
const MCPX_IDS = [
  "sampling-human-in-loop-can-deny",
  "sampling-app-review-ui",
  "sampling-app-view-edit-prompts",
  "sampling-app-review-responses",
  "sampling-client-declare-capability-at-initialize",
  "sampling-client-declare-capability-per-request-meta",
  "sampling-client-declare-tools-capability",
  "sampling-server-no-tools-without-capability",
  "sampling-client-error-on-tools-without-capability",
  "sampling-server-includecontext-only-with-context-capability",
  "sampling-server-avoid-includecontext-values",
  "sampling-deprecated-new-impls-should-not-adopt",
  "sampling-tool-result-message-only-tool-results",
  "sampling-tool-use-result-balance",
  "sampling-server-answer-every-tooluse",
  "sampling-toolresult-id-must-match-tooluse",
  "sampling-toolchoice-required-model-must-use-tool",
  "sampling-toolchoice-none-model-must-not-use-tools",
  "sampling-parallel-tool-toggle-extension-only",
  "sampling-tooluse-meta-preserve",
  "sampling-toolresult-structured-conform-outputschema",
  "sampling-message-must-have-role-and-content",
  "sampling-messages-not-retained-between-requests",
  "sampling-client-must-respect-maxtokens",
  "sampling-client-may-sample-fewer-tokens",
  "sampling-client-may-ignore-temperature-stop-metadata",
  "sampling-client-may-ignore-model-preferences",
  "sampling-client-may-modify-system-prompt",
  "sampling-client-may-ignore-includecontext",
  "sampling-hints-evaluated-in-order",
  "sampling-hints-over-priorities",
  "sampling-hint-name-substring",
  "sampling-hint-may-map-provider",
  "sampling-stopreason-custom-values",
  "sampling-client-errors-user-rejected",
  "sampling-client-errors-user-rejected-and-tool-shape",
  "sampling-client-user-approval-controls",
  "sampling-both-validate-message-content",
  "sampling-client-respect-hints",
  "sampling-client-rate-limit",
  "sampling-both-handle-sensitive-data",
  "sampling-both-iteration-limits-tool-loops",
];

/** Rows of mcpx's catalogue whose revs are not all five eras (everything else spans 2024-11-05..2026-07-28). */
const MCPX_ERAS: Record<string, string[]> = {
  "sampling-client-declare-capability-at-initialize": [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
  ],
  "sampling-client-errors-user-rejected": ["2024-11-05", "2025-03-26", "2025-06-18"],
  "sampling-client-errors-user-rejected-and-tool-shape": ["2025-11-25"],
};
for (const id of [
  "sampling-client-declare-capability-per-request-meta",
  "sampling-deprecated-new-impls-should-not-adopt",
  "sampling-message-must-have-role-and-content",
  "sampling-messages-not-retained-between-requests",
  "sampling-client-must-respect-maxtokens",
  "sampling-client-may-ignore-temperature-stop-metadata",
])
  MCPX_ERAS[id] = ["2026-07-28"];
for (const id of MCPX_IDS.filter(
  (i) => /tool|includecontext/.test(i) && !MCPX_ERAS[i] && i !== "sampling-client-may-ignore-includecontext",
))
  MCPX_ERAS[id] = ["2025-11-25", "2026-07-28"];

const DARWIN_256 = ISSUE_256_ROWS;
const RAISED_TO_FAILURE = [
  "sampling-both-validate-message-content",
  "sampling-client-errors-user-rejected-and-tool-shape",
  "sampling-human-in-loop-can-deny",
];

function row(over: Partial<RegisterRow> & Pick<RegisterRow, "id">): RegisterRow {
  return {
    title: "t",
    side: "client",
    level: "SHOULD",
    eras: ALL,
    quote: "Both parties **SHOULD** validate message content",
    url: "https://modelcontextprotocol.io/specification/2026-07-28/client/sampling#security-considerations",
    ...over,
  };
}

describe("matrix/register.yaml", () => {
  it("loads through the zod schema with unique ids", () => {
    expect(register.rows.length).toBe(67);
    expect(new Set(register.rows.map((r) => r.id)).size).toBe(register.rows.length);
  });

  it("has every row of mcpx's catalogue, with its id, side and eras", () => {
    for (const id of MCPX_IDS) {
      const r = byId.get(id);
      expect(r, id).toBeDefined();
      expect(r!.eras, id).toEqual(MCPX_ERAS[id] ?? ALL);
    }
    expect(byId.get("sampling-both-validate-message-content")!.side).toBe("both");
    expect(byId.get("sampling-both-handle-sensitive-data")!.side).toBe("both");
    expect(byId.get("sampling-server-no-tools-without-capability")!.side).toBe("server");
  });

  it("tracks darwin-nix#256 on its rows, raising only three SHOULDs to failure", () => {
    for (const id of DARWIN_256) expect(byId.get(id)!.tracking, id).toEqual(["dezren39/darwin-nix#256"]);
    const tracked = register.rows
      .filter((r) => r.tracking?.includes("dezren39/darwin-nix#256"))
      .map((r) => r.id);
    expect(tracked.sort()).toEqual([...DARWIN_256].sort());
    for (const id of DARWIN_256) {
      const r = byId.get(id)!;
      expect(r.level, id).toBe("SHOULD");
      if (RAISED_TO_FAILURE.includes(id)) {
        expect(r.severity, id).toBe("failure");
        expect(r.severityWhy, id).toBe(
          "darwin-nix#256 makes this SHOULD an acceptance criterion for mcpx's relay",
        );
      } else {
        expect(r.severity, id).toBeUndefined();
        expect(rowSeverity(r), id).toBe("warning");
      }
    }
    expect(rowCellSides(byId.get("sampling-both-validate-message-content")!)).toEqual(["client", "server"]);
  });

  it("has the rows the harness needs beyond mcpx's list", () => {
    const expectRow = (id: string, side: string, eras: string[]) => {
      const r = byId.get(id);
      expect(r, id).toBeDefined();
      expect(r!.side, id).toBe(side);
      expect(r!.eras, id).toEqual(eras);
      expect(r!.na, id).toBeUndefined();
    };
    expectRow("sampling-request-params-schema", "client", ALL);
    expectRow("sampling-result-schema", "server", ALL);
    expectRow("sampling-result-no-tool-use-without-tools", "server", ["2025-11-25", "2026-07-28"]);
    for (const id of [
      "sampling-mrtr-carried-in-input-requests",
      "sampling-mrtr-input-request-keys-unique",
      "sampling-mrtr-client-constructs-inputs-before-retry",
      "sampling-mrtr-answer-in-input-responses",
      "sampling-mrtr-no-per-input-error",
    ])
      expect(byId.get(id)?.eras, id).toEqual(["2026-07-28"]);
    for (const id of [
      "sampling-relay-roundtrip",
      "sampling-relay-content-unchanged",
      "sampling-relay-answers-only-the-asker",
      "sampling-relay-adapts-to-downstream-era",
      "sampling-relay-validate-before-asking",
    ])
      expectRow(id, "intermediary", ALL);
    // No error path to the upstream for a sampling input in 2026-07-28.
    for (const id of ["sampling-relay-error-not-stacked", "sampling-relay-expiry-reported"])
      expectRow(id, "intermediary", ALL.slice(0, 4));
    expect(byId.get("sampling-relay-expiry-reported")!.level).toBe("SHOULD");
  });

  it("gives every row either a note saying what a case must show or an n/a reason, never both", () => {
    for (const r of register.rows) {
      expect(Boolean(r.na) !== Boolean(r.note), `${r.id}: exactly one of note / na`).toBe(true);
      expect(r.source, `${r.id}: source`).toBeTruthy();
    }
    for (const r of register.rows.filter((x) => x.side === "intermediary"))
      expect(r.derivation, `${r.id}: derivation`).toBeTruthy();
    const model = byId.get("sampling-hints-evaluated-in-order")!.na!;
    expect(model).toContain("a relay runs no model");
    expect(model).toContain("sampling-relay-content-unchanged");
  });

  it("links each row to a spec anchor, preferring the newest era's sampling page", () => {
    for (const r of register.rows) {
      expect(r.url, r.id).toMatch(/^https:\/\//);
      const page = r.url.match(/modelcontextprotocol\.io\/specification\/([0-9-]+)\/client\/sampling/);
      if (page) {
        expect(page[1], `${r.id}: url era`).toBe(r.eras[r.eras.length - 1]);
        if (!r.id.startsWith("sampling-deprecated")) expect(r.url, r.id).toMatch(/#[a-z-]+$/);
      }
    }
  });

  it("lists no era its quote does not exist in", () => {
    expect(formatProblems(register.rows.flatMap(quoteEraProblems))).toBe("");
  });

  it("refers, in na reasons and notes, only to rows that exist", () => {
    for (const r of register.rows)
      for (const ref of `${r.na ?? ""} ${r.note ?? ""}`.match(/sampling-[a-z0-9-]+[a-z0-9]/g) ?? []) {
        // "sampling-mrtr-*" names a family of rows.
        const known = byId.has(ref) || register.rows.some((x) => x.id.startsWith(`${ref}-`));
        expect(known, `${r.id} mentions ${ref}`).toBe(true);
      }
  });
});

describe("quoteEraProblems", () => {
  it("reports a tools quote that lists eras before 2025-11-25", () => {
    const bad = row({
      id: "sampling-bad-tools",
      quote:
        'When a user message contains tool results (type: "tool_result"), it **MUST** contain ONLY tool results.',
    });
    const problems = quoteEraProblems(bad);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.kind).toBe("quote-era");
    expect(problems[0]!.message).toContain("2024-11-05, 2025-03-26, 2025-06-18");
  });

  it("reports 2026-07-28-only statements listed in earlier eras, and handshake text listed in 2026-07-28", () => {
    const mrtr = row({
      id: "sampling-bad-mrtr",
      quote: "the client **MUST** construct the requested inputs (`inputRequests`)",
    });
    expect(quoteEraProblems(mrtr)[0]!.message).toContain("2025-11-25");
    const role = row({
      id: "sampling-bad-role",
      quote: 'Sampling messages **MUST** contain a `role` field of `"user"`',
    });
    expect(quoteEraProblems(role)).toHaveLength(1);
    const init = row({
      id: "sampling-bad-init",
      quote: "Clients that support sampling **MUST** declare the `sampling` capability during initialization",
    });
    expect(quoteEraProblems(init)[0]!.message).toMatch(/lists 2026-07-28/);
  });

  it("accepts a quote whose eras match, and does not read soft-deprecation as 2026-07-28 deprecation", () => {
    expect(
      quoteEraProblems(
        row({ id: "sampling-ok", eras: ["2025-11-25", "2026-07-28"], quote: "uses `tool_use`" }),
      ),
    ).toEqual([]);
    expect(
      quoteEraProblems(row({ id: "sampling-ok-audio", eras: ALL.slice(1), quote: "audio content" })),
    ).toEqual([]);
    expect(
      quoteEraProblems(
        row({ id: "sampling-soft", eras: ["2025-11-25"], quote: "values are soft-deprecated." }),
      ),
    ).toEqual([]);
    expect(quoteEraProblems(row({ id: "sampling-audio", quote: "AudioContent" }))[0]!.message).toContain(
      "2024-11-05",
    );
  });
});

describe("registerCoverageProblems", () => {
  const reg: Register = {
    rows: [
      row({ id: "sampling-covered" }),
      row({ id: "sampling-uncovered" }),
      row({ id: "sampling-not-applicable", na: "a relay runs no model" }),
      row({ id: "sampling-na-but-cased", na: "reason" }),
    ],
  };

  it("reports a row with no case and no n/a reason, and an n/a row that has cases", () => {
    const problems = registerCoverageProblems(reg, [
      { row: "sampling-covered", id: "a" },
      { row: "sampling-na-but-cased", id: "b" },
    ]);
    expect(problems.map((p) => [p.kind, p.row])).toEqual([
      ["uncovered", "sampling-uncovered"],
      ["na-with-cases", "sampling-na-but-cased"],
    ]);
    expect(formatProblems(problems)).toContain("sampling-uncovered: has no case");
  });

  it("reports a case naming a row the register lacks", () => {
    const problems = registerCoverageProblems(reg, [
      { row: "sampling-covered", id: "a" },
      { row: "sampling-uncovered", id: "b" },
      { row: "sampling-nowhere", id: "c" },
    ]);
    expect(problems.map((p) => [p.kind, p.row])).toEqual([["unknown-row", "sampling-nowhere"]]);
  });

  it("reports a row listing an era its quote does not exist in", () => {
    const problems = registerCoverageProblems(
      { rows: [row({ id: "sampling-mrtr-early", na: "x", quote: "answers travel in `inputResponses`" })] },
      [],
    );
    expect(problems.map((p) => p.kind)).toEqual(["quote-era"]);
  });

  it("finds nothing but uncovered rows in the real register", () => {
    const problems = registerCoverageProblems(register, []).filter((p) => p.kind !== "uncovered");
    expect(formatProblems(problems)).toBe("");
  });

  it("covers every row of the real register with cases, an n/a reason or a pending reason", () => {
    const problems = registerCoverageProblems(register, loadCases(register));
    expect(formatProblems(problems)).toBe("");
  });

  it("reports a pending row that has cases (the pending reason is stale)", () => {
    const problems = registerCoverageProblems({ rows: [row({ id: "sampling-done", pending: "needs x" })] }, [
      { row: "sampling-done", id: "a" },
    ]);
    expect(problems.map((p) => p.kind)).toEqual(["pending-with-cases"]);
  });
});

describe("loadCases against the register", () => {
  it("rejects a case naming an unknown row, naming the file and the field", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "sampling-nowhere"));
    writeFileSync(
      join(dir, "sampling-nowhere", "x.yaml"),
      [
        "id: x",
        "row: sampling-nowhere",
        "title: t",
        "why: w",
        "request: { messages: [], maxTokens: 1 }",
        "answer: { action: expire }",
        "expect: [{ outcome: withheld }]",
      ].join("\n"),
    );
    let error: unknown;
    try {
      loadCases(register, dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    const e = error as InputError;
    expect(e.file).toContain(join("sampling-nowhere", "x.yaml"));
    expect(e.field).toBe("row");
    expect(e.oneLine()).toMatch(/x\.yaml: row: unknown register row 'sampling-nowhere'/);
  });
});
