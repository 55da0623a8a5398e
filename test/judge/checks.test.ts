import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { countedElsewhere } from "../../src/judge/attribution.ts";
import {
  CHECK_CATALOGUE,
  type CheckId,
  CREDITED_CHECKS,
  countsOf,
  isCheckId,
} from "../../src/model/checks.ts";
import { loadRegister } from "../../src/model/load.ts";

/** Every check id written in the judge and the fuzzer is in the catalogue, and every catalogue entry is used. */
const SRC = resolve(import.meta.dirname, "../../src");
const files = ["judge", "fuzz"].flatMap((d) => readdirSync(join(SRC, d)).map((f) => join(SRC, d, f)));
const text = files.map((f) => readFileSync(f, "utf8")).join("\n");

/** Literal ids (`id: "x"`) and template ids (`id: \`review-${stage}\``), expanded over their known values. */
function idsInSource(): string[] {
  const literal = [...text.matchAll(/\bid: "([a-z][a-z-]+)"/g)].map((m) => m[1]!);
  const templates = [...text.matchAll(/\bid(?: =|:) `([a-z-]*)\$\{[^}]+\}([a-z-]*)`/g)];
  const expand: Record<string, string[]> = {
    "review-": ["request", "response"],
    "error-message-means-": ["expiry"],
    "valid-": ["request", "result"],
    "fuzz-": ["request", "result"],
    "": ["request", "result"],
  };
  const expanded = templates.flatMap((m) => (expand[m[1]!] ?? ["?"]).map((v) => `${m[1]}${v}${m[2]}`));
  return [...literal, ...expanded].filter((id) => !id.startsWith("toolu"));
}

describe("check catalogue", () => {
  it("names every check the judge and the fuzzer record", () => {
    const unknown = idsInSource().filter((id) => !isCheckId(id));
    expect(unknown).toEqual([]);
  });

  it("lists no check nobody records, and says what each proves and which rule it rests on", () => {
    const used = new Set(idsInSource());
    for (const [id, entry] of Object.entries(CHECK_CATALOGUE)) {
      expect(used.has(id), id).toBe(true);
      expect(entry.proves.length, id).toBeGreaterThan(10);
      expect(entry.rule.length, id).toBeGreaterThan(3);
    }
  });
});

describe("the rows a check counts toward (catalogue `counts`)", () => {
  const rows = new Map(loadRegister().rows.map((r) => [r.id, r]));
  const ids = Object.keys(CHECK_CATALOGUE) as CheckId[];

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
