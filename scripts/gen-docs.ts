/**
 * `npm run docs:gen`: rewrites the generated blocks of docs/ (the CLI reference of docs/cli.md, the field table of
 * docs/profiles.md) from the code that defines them; the text around each block is left as written.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expectedText, GENERATED } from "./docs-reference.ts";

const ROOT = resolve(import.meta.dirname, "..");
for (const entry of GENERATED) {
  const path = join(ROOT, entry.file);
  const committed = readFileSync(path, "utf8");
  const fresh = expectedText(committed, entry);
  if (fresh === committed) console.log(`${entry.file}: up to date`);
  else {
    writeFileSync(path, fresh);
    console.log(`${entry.file}: regenerated`);
  }
}
