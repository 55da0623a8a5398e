import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * No function in src/ runs over 60 lines unless a comment right above it says why ("Long: …"): long functions are
 * where the next change goes wrong, so each one is either split or justified where a reader meets it.
 */
const SRC = resolve(import.meta.dirname, "../../src");
const LIMIT = 60;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs|js)$/.test(name) ? [path] : [];
  });
}

/** Functions over the limit in one source text, without a "Long:" reason in their leading comments. */
function unjustifiedLongFunctions(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart()).line;
      const lines = sf.getLineAndCharacterOfPosition(node.getEnd()).line - start + 1;
      // The comment may sit on the function or on the statement that holds it (const x = () => …).
      let holder: ts.Node = node;
      while (
        holder.parent &&
        !ts.isSourceFile(holder.parent) &&
        !ts.isBlock(holder.parent) &&
        !ts.isClassLike(holder.parent)
      )
        holder = holder.parent;
      const leading = [node, holder]
        .flatMap((n) => ts.getLeadingCommentRanges(text, n.getFullStart()) ?? [])
        .map((r) => text.slice(r.pos, r.end))
        .join("\n");
      if (lines > LIMIT && !/\bLong:/.test(leading)) {
        const name = (node as { name?: ts.Node }).name?.getText(sf) ?? "(anonymous)";
        found.push(`${relative(SRC, file)}:${start + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe("function length", () => {
  it(`no function in src/ is over ${LIMIT} lines without a "Long:" reason`, () => {
    const found = sourceFiles(SRC).flatMap((f) => unjustifiedLongFunctions(f, readFileSync(f, "utf8")));
    expect(found).toEqual([]);
  });

  it("catches a long function and accepts one with a reason", () => {
    const body = Array.from({ length: LIMIT + 2 }, (_, i) => `  const x${i} = ${i};`).join("\n");
    expect(unjustifiedLongFunctions(join(SRC, "x.ts"), `function big() {\n${body}\n}\n`)).toHaveLength(1);
    expect(
      unjustifiedLongFunctions(join(SRC, "x.ts"), `/** Long: a table. */\nfunction big() {\n${body}\n}\n`),
    ).toEqual([]);
  });
});
