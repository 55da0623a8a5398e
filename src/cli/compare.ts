import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { Command } from "commander";
import {
  type CompareTarget,
  compareView,
  renderCompareHtml,
  renderCompareMarkdown,
} from "../matrix/compare.ts";
import { DEFAULT_REGISTER, loadRegister } from "../model/load.ts";
import { EXIT } from "./errors.ts";
import type { CliIo, SetExit } from "./io.ts";
import { loadResults } from "./render.ts";

interface CompareOptions {
  out: string;
  register?: string;
  title?: string;
}

/** Targets named by their results, a repeated name numbered so that each column is told apart. */
function named(files: string[], cwd: string, out: string): CompareTarget[] {
  const seen = new Map<string, number>();
  return files.map((file) => {
    const results = loadResults(file, cwd);
    const n = (seen.get(results.target.name) ?? 0) + 1;
    seen.set(results.target.name, n);
    // Each target links its own matrix: the page when there is one, else the markdown (committed matrices).
    const folder = dirname(resolve(cwd, file));
    const matrix = ["matrix.html", "matrix.md"].map((f) => join(folder, f)).find((f) => existsSync(f));
    return {
      name: n === 1 ? results.target.name : `${results.target.name} (${n})`,
      results,
      ...(matrix ? { matrixHref: relative(out, matrix) } : {}),
    };
  });
}

/** `compare RESULTS…`: writes compare.md and compare.html into --out. */
export function compare(files: string[], opts: CompareOptions, io: CliIo): string[] {
  const out = resolve(io.cwd, opts.out);
  const register = loadRegister(opts.register ? resolve(io.cwd, opts.register) : DEFAULT_REGISTER);
  const view = compareView(
    named(files, io.cwd, out),
    register,
    opts.title ?? "mcpx-conform: targets compared",
  );
  mkdirSync(out, { recursive: true });
  const written = [join(out, "compare.md"), join(out, "compare.html")];
  writeFileSync(written[0]!, renderCompareMarkdown(view));
  writeFileSync(written[1]!, renderCompareHtml(view));
  return written;
}

export function register(program: Command, setExit: SetExit, io: CliIo): void {
  program
    .command("compare")
    .description("several targets side by side (rows × targets, per era): compare.md and compare.html")
    .argument("<results...>", "results.json files, one per target (each folder's matrix.html is linked)")
    .option("--out <dir>", "output folder", ".")
    .option("--register <file>", "register file (default matrix/register.yaml)")
    .option("--title <text>", "the page's title")
    .action((files: string[], opts: CompareOptions) => {
      for (const path of compare(files, opts, io)) io.stderr(`wrote ${relative(io.cwd, path) || path}\n`);
      setExit(EXIT.ok);
    });
}
