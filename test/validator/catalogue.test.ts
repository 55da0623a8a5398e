/** The rule catalogue: well-formed, documented, and the README's rule table in sync with it. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CHANNEL_CODE, ERAS, RULE_IDS, RULES, ruleTable, sourceFor } from "../../src/validator/index.ts";

describe("RULES", () => {
  it("every entry is well-formed", () => {
    for (const id of RULE_IDS) {
      const r = RULES[id];
      expect(r.id).toBe(id);
      expect(id).toMatch(/^(request|message|content|result|input)\.[a-z0-9-]+$/);
      expect(["MUST", "SHOULD"]).toContain(r.level);
      expect(r.summary.length).toBeGreaterThan(10);
      expect(r.eras.length).toBeGreaterThan(0);
      expect([...r.eras].sort()).toEqual(r.eras.filter((e) => ERAS.includes(e)));
      expect(r.channels.length).toBeGreaterThan(0);
      for (const ch of r.channels) expect(r.codes[ch]).toBe(r.level === "MUST" ? CHANNEL_CODE[ch] : null);
      for (const era of r.eras) {
        const url = sourceFor(id, era);
        expect(url).toMatch(/^https:\/\/[^#\s]+#[A-Za-z0-9-]+$/);
        expect(url).toContain(era >= "2026-07-28" || url.includes("mrtr") ? "2026-07-28" : era);
      }
      expect(r.source).toBe(sourceFor(id, r.eras[r.eras.length - 1]!));
    }
  });
  it("codes: -32602 on requests and inputResponses, -32603 on results", () => {
    expect(CHANNEL_CODE).toEqual({ request: -32602, result: -32603, "input-response": -32602 });
  });
});

/** Table rows as trimmed cells (the formatter may pad cells and separator lines). */
function normalize(table: string): string[][] {
  return table
    .trim()
    .split("\n")
    .filter((line) => !/^\|[\s|:-]+\|$/.test(line))
    .map((line) => line.split(/(?<!\\)\|/).map((cell) => cell.trim()));
}

describe("src/validator/README.md", () => {
  it("holds the generated rule table", () => {
    const readme = readFileSync(new URL("../../src/validator/README.md", import.meta.url), "utf8");
    const begin = readme.indexOf("\n", readme.indexOf("<!-- rule-table:begin")) + 1;
    const end = readme.indexOf("<!-- rule-table:end -->");
    // On failure: regenerate the block with `npx tsx -e 'import {ruleTable} from "./src/validator/rules.ts"; process.stdout.write(ruleTable())'`.
    expect(normalize(readme.slice(begin, end))).toEqual(normalize(ruleTable()));
  });
});
