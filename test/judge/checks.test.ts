import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CHECK_CATALOGUE,
  CHECK_FAMILIES,
  type CheckId,
  CREDITED_CHECKS,
  countedElsewhere,
  countsOf,
} from "../../src/judge/checks/index.ts";
import { InputError } from "../../src/model/errors.ts";
import { loadCases, loadRegister } from "../../src/model/load.ts";
import { knownChecks } from "../../src/run/config.ts";

const SRC = resolve(import.meta.dirname, "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs|js)$/.test(name) ? [path] : [];
  });
}

const files = sourceFiles(SRC).map((f) => ({ file: relative(SRC, f), text: readFileSync(f, "utf8") }));
const ids = Object.keys(CHECK_CATALOGUE) as CheckId[];

/**
 * Check ids the code writes: `id: "x"` and `id: \`…\`` (a check built by hand, or declared), and `.id === "x"`
 * (a check looked up by hand). Tool-use ids (`toolu_…`) and JSON-RPC ids are not check ids.
 */
function idsWritten(text: string): { literal: string[]; templated: string[] } {
  const literal = [
    ...text.matchAll(/\bid: "([a-z][a-z0-9-]*)"/g),
    ...text.matchAll(/\.id === "([a-z][a-z0-9-]*)"/g),
  ].map((m) => m[1]!);
  const templated = [...text.matchAll(/\bid: `([^`]*\$\{[^`]*)`/g)].map((m) => m[1]!);
  return { literal, templated };
}

describe("the check table (src/judge/checks/)", () => {
  it("declares every check id the judge and the fuzzer write as a literal of the table, and builds none from a template", () => {
    const outside: string[] = [];
    const templated: string[] = [];
    for (const { file, text } of files) {
      if (!/^(judge|fuzz)\//.test(file)) continue;
      const found = idsWritten(text);
      templated.push(...found.templated.map((t) => `${file}: \`${t}\``));
      const declaring = file.startsWith("judge/checks/");
      outside.push(
        ...found.literal
          .filter((id) => !declaring || !(id in CHECK_CATALOGUE))
          .map((id) => `${file}: "${id}"`),
      );
    }
    expect(templated).toEqual([]);
    expect(outside).toEqual([]);
  });

  it("has each id on one line of the code: its entry (grep an id from a report and land there)", () => {
    const where = new Map<string, string[]>(ids.map((id) => [id, []]));
    for (const { file, text } of files)
      text.split("\n").forEach((line, i) => {
        for (const m of line.matchAll(/"([a-z][a-z0-9-]*)"/g)) where.get(m[1]!)?.push(`${file}:${i + 1}`);
      });
    for (const [id, at] of where) {
      expect(at, id).toHaveLength(1);
      expect(at[0], id).toMatch(/^judge\/checks\//);
    }
  });

  it("finds a templated or hand-built id (the checks above can fail)", () => {
    const templated = `review-${"$"}{stage}`;
    const found = idsWritten(`checks.push({ id: \`${templated}\`, ok });\nc.id === "prerequisite";`);
    expect(found).toEqual({ literal: ["prerequisite"], templated: [templated] });
  });

  it("says what each check proves and which rule it rests on; each is judged by the table or recorded beside its entry", () => {
    for (const [id, entry] of Object.entries(CHECK_CATALOGUE)) {
      expect(entry.proves.length, id).toBeGreaterThan(10);
      expect(entry.rule.length, id).toBeGreaterThan(3);
    }
    // The checks recorded outside judgeCase, each by a function beside its entry (recorded()).
    const unjudged = CHECK_FAMILIES.flatMap((f) => f.checks.filter((c) => !c.judge).map((c) => c.id));
    expect(unjudged.sort()).toEqual([
      "fuzz-request-fidelity",
      "fuzz-response-id-unchanged",
      "fuzz-result-fidelity",
      "prerequisite",
    ]);
    const tableText = files.filter((f) => f.file.startsWith("judge/checks/")).map((f) => f.text);
    expect(tableText.filter((t) => t.includes("recorded(")).length).toBeGreaterThanOrEqual(2);
    expect(ids).toHaveLength(new Set(ids).size);
  });

  it("is the only place cases' `checks:` ids come from: a run refuses a case naming another, by file and field", () => {
    const register = loadRegister();
    expect(() => knownChecks(loadCases(register))).not.toThrow();
    const bad = { ...loadCases(register)[0]!, checks: ["review-stage"], file: "cases/x/y.yaml" };
    const error = (() => {
      try {
        knownChecks([bad]);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).oneLine()).toBe(
      "cases/x/y.yaml: checks: unknown check 'review-stage' (a check id of src/judge/checks/)",
    );
  });
});

describe("the rows a check counts toward (`counts`)", () => {
  const rows = new Map(loadRegister().rows.map((r) => [r.id, r]));

  it("are register rows, and the credited checks are exactly those marked credited", () => {
    for (const id of ids)
      for (const row of countsOf(id)?.rows ?? []) expect(rows.has(row), `${id}: ${row}`).toBe(true);
    expect([...CREDITED_CHECKS].sort()).toEqual(["review-request", "review-response"]);
  });

  it("send a check with fixed rows to its first row from any other case's cell, and keep it in a case of its rows", () => {
    const side = "client" as const;
    expect(countedElsewhere("mrtr-request-state-echoed", { row: "sampling-relay-roundtrip", side })).toEqual({
      row: "sampling-mrtr-request-state-echoed",
      side,
    });
    expect(
      countedElsewhere("mrtr-retry-arguments-unchanged", { row: "sampling-mrtr-retry-new-id", side }),
    ).toBeUndefined();
    expect(
      countedElsewhere("review-request", { row: "sampling-app-view-edit-prompts", side }),
    ).toBeUndefined();
    expect(countedElsewhere("review-request", { row: "sampling-human-in-loop-can-deny", side })).toEqual({
      row: "sampling-app-review-ui",
      side,
    });
    // A check without fixed rows counts toward the case's own cell, wherever it was judged.
    expect(
      countedElsewhere("upstream-got-result", { row: "sampling-relay-roundtrip", side }),
    ).toBeUndefined();
    expect(countedElsewhere("review-request", undefined)).toBeUndefined();
  });
});
