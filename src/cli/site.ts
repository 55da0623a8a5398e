import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { isRelativePath } from "../matrix/escape.ts";
import { type Previous, relaySlug, renderSite, type SiteRelay } from "../matrix/site.ts";
import { InputError } from "../model/errors.ts";
import { DEFAULT_REGISTER, loadRegister } from "../model/load.ts";
import { type Results, ResultsSchema } from "../model/results.ts";
import { EXIT } from "./errors.ts";
import type { CliIo, SetExit } from "./io.ts";
import { loadResults } from "./render.ts";

/**
 * `mcpx-conform site`: a static report site from committed results (default: every matrix/targets/<relay>/results.json
 * under the current folder). The pages are src/matrix/site.ts's; here, the files: which results, their previous
 * versions (git history or --previous), the evidence copied beside each relay's page, and where it is all written.
 */

interface SiteOptions {
  out: string;
  results?: string[];
  previous?: string;
  register?: string;
  title?: string;
}

/** Where the committed matrices live, relative to the folder the command runs in. */
export const DEFAULT_RESULTS_DIR = "matrix/targets";

/** A results.json path for each --results argument (a folder holding one, or the file), or the default set. */
export function resultsFiles(given: string[] | undefined, cwd: string): string[] {
  if (given && given.length > 0)
    return given.map((g) => {
      const path = resolve(cwd, g);
      return existsSync(path) && statSync(path).isDirectory() ? join(path, "results.json") : path;
    });
  const dir = resolve(cwd, DEFAULT_RESULTS_DIR);
  const found = existsSync(dir)
    ? readdirSync(dir)
        .sort()
        .map((name) => join(dir, name, "results.json"))
        .filter((f) => existsSync(f))
    : [];
  if (found.length === 0)
    throw new InputError(
      `no results found: ${DEFAULT_RESULTS_DIR}/*/results.json does not exist here; name folders with --results`,
      undefined,
      "--results",
    );
  return found;
}

/** Runs git in `cwd`; undefined when git is missing or says no. */
function git(args: string[], cwd: string): string | undefined {
  try {
    return execFileSync("git", args, {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      maxBuffer: 512 * 1024 * 1024,
    });
  } catch {
    return undefined;
  }
}

function parsePrevious(text: string, label: string): Previous {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { note: `no comparison: the results.json of ${label} is not valid JSON` };
  }
  const parsed = ResultsSchema.safeParse(data);
  return parsed.success
    ? { results: parsed.data, label }
    : { note: `no comparison: the results.json of ${label} is not one this version reads` };
}

/**
 * The results a relay's results.json replaced: when the file differs from the last commit that touched it (a refresh
 * not yet committed), that commit's version; otherwise the version at the commit before it. A note instead when there
 * is no such version (no git, a file never committed, or committed once).
 */
export function gitPrevious(file: string): Previous {
  const dir = dirname(file);
  const top = git(["rev-parse", "--show-toplevel"], dir)?.trim();
  if (!top) return { note: "no history: the results are not in a git repository" };
  const path = relative(top, file).split("\\").join("/");
  const commits = (git(["log", "--format=%H", "-n", "2", "--", path], top) ?? "").split("\n").filter(Boolean);
  if (commits.length === 0) return { note: "no history: this results.json has never been committed" };
  const committed = git(["show", `${commits[0]}:${path}`], top);
  const current = readFileSync(file, "utf8");
  const short = (sha: string) => sha.slice(0, 7);
  if (committed !== undefined && committed !== current)
    return parsePrevious(committed, `commit ${short(commits[0]!)}, the last commit that touched it`);
  if (commits.length < 2)
    return {
      note: `no history: this results.json was committed once (${short(commits[0]!)}), nothing before it`,
    };
  const before = git(["show", `${commits[1]}:${path}`], top);
  if (before === undefined)
    return { note: `no history: git could not show this results.json at ${short(commits[1]!)}` };
  return parsePrevious(
    before,
    `commit ${short(commits[1]!)}, the commit before the last one that touched it`,
  );
}

/**
 * The previous results of one relay from a --previous folder: <DIR>/<relay folder name>/results.json (named on the
 * site as given, so the pages hold no path of the machine that built them).
 */
function folderPrevious(given: string, cwd: string, name: string): Previous {
  const shown = join(given, name, "results.json");
  const file = resolve(cwd, shown);
  if (!existsSync(file)) return { note: `no previous results for this relay: ${shown} does not exist` };
  return parsePrevious(readFileSync(file, "utf8"), shown);
}

/**
 * Copies every evidence transcript a relay's results name into `dest` (same relative paths), checking the sha256 that
 * results.json records; returns the paths copied. A missing transcript is reported and not linked.
 */
function copyEvidence(
  file: string,
  results: Results,
  dest: string,
  warn: (line: string) => void,
): Set<string> {
  const base = dirname(file);
  const copied = new Set<string>();
  for (const [ci, cell] of results.cells.entries())
    for (const [ki, c] of cell.cases.entries()) {
      if (!c.evidence || copied.has(c.evidence)) continue;
      if (!isRelativePath(c.evidence) || c.evidence.split(/[\\/]/).includes(".."))
        throw new InputError(
          `evidence path '${c.evidence}' must be relative to results.json, without '..'`,
          file,
          `cells[${ci}].cases[${ki}].evidence`,
        );
      const source = join(base, c.evidence);
      if (!existsSync(source)) {
        warn(`mcpx-conform: warning: evidence file ${source} is missing; the site does not link it`);
        continue;
      }
      if (c.evidenceSha256) {
        const sha = createHash("sha256").update(readFileSync(source)).digest("hex");
        if (sha !== c.evidenceSha256.toLowerCase())
          throw new InputError(
            `sha256 ${sha} does not match ${c.evidenceSha256} recorded in results.json`,
            source,
          );
      }
      mkdirSync(dirname(join(dest, c.evidence)), { recursive: true });
      copyFileSync(source, join(dest, c.evidence));
      copied.add(c.evidence);
    }
  return copied;
}

/** `site`: builds the site into --out and returns the paths written (evidence copies not listed). */
export function site(opts: SiteOptions, io: CliIo): string[] {
  const out = resolve(io.cwd, opts.out);
  const register = loadRegister(opts.register ? resolve(io.cwd, opts.register) : DEFAULT_REGISTER);
  const warn = (line: string) => io.stderr(`${line}\n`);
  const taken = new Set<string>();
  const relays: SiteRelay[] = resultsFiles(opts.results, io.cwd).map((file) => {
    const results = loadResults(relative(io.cwd, file) || file, io.cwd);
    const name = basename(dirname(file));
    const slug = relaySlug(name, taken);
    const dest = join(out, "relays", slug);
    const copied = copyEvidence(file, results, dest, warn);
    const matrixMd = join(dirname(file), "matrix.md");
    const hasMatrix = existsSync(matrixMd);
    if (hasMatrix) {
      mkdirSync(dest, { recursive: true });
      copyFileSync(matrixMd, join(dest, "matrix.md"));
    }
    const previous = opts.previous ? folderPrevious(opts.previous, io.cwd, name) : gitPrevious(file);
    return { name, slug, results, previous, copied, matrixMd: hasMatrix };
  });
  const pages = renderSite(relays, register, opts.title ?? "mcpx-conform: sampling relays");
  const written: string[] = [];
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    written.push(path);
  };
  write(join(out, "index.html"), pages.index);
  for (const [slug, page] of Object.entries(pages.relays)) write(join(out, "relays", `${slug}.html`), page);
  for (const [slug, badge] of Object.entries(pages.badges))
    write(join(out, "badges", `${slug}.json`), `${JSON.stringify(badge)}\n`);
  write(join(out, "changes.json"), `${JSON.stringify(pages.changes.json, null, 2)}\n`);
  write(join(out, "changes.md"), pages.changes.markdown);
  return written;
}

export function register(program: Command, setExit: SetExit, io: CliIo): void {
  program
    .command("site")
    .description(
      "a static report site from committed results: an index of relays × rows × eras with filters, a page per relay linking every cell's evidence, what changed since the previous refresh, a shields.io badge per relay",
    )
    .requiredOption("--out <dir>", "output folder")
    .option(
      "--results <dir...>",
      `folders holding a results.json, one per relay (default every ${DEFAULT_RESULTS_DIR}/*/results.json)`,
    )
    .option(
      "--previous <dir>",
      "previous results to compare with, <dir>/<relay>/results.json (default: each results.json's previous version in git)",
    )
    .option("--register <file>", "register file (default matrix/register.yaml)")
    .option("--title <text>", "the site's title")
    .action((opts: SiteOptions) => {
      const written = site(opts, io);
      const out = relative(io.cwd, resolve(io.cwd, opts.out)) || ".";
      const pages = written.filter((p) => p.endsWith(".html")).length;
      io.stderr(
        `wrote ${out}/: index.html, ${pages - 1} relay pages, ${written.filter((p) => p.includes(`${join("badges", "")}`)).length} badges, changes.json, changes.md\n`,
      );
      setExit(EXIT.ok);
    });
}
