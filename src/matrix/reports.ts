import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../model/errors.ts";
import type { Register } from "../model/register.ts";
import type { Results } from "../model/results.ts";
import { renderGithub } from "./github.ts";
import { type EvidenceSource, renderHtml } from "./html.ts";
import { renderJunit } from "./junit.ts";
import { renderMarkdown, renderPrComment } from "./markdown.ts";
import { renderMcpx } from "./mcpx.ts";

/** Reporter names for `--reporter`. results.json is always written by the caller, so `json` is accepted and ignored. */
export const REPORTERS = ["md", "pr-comment", "html", "junit", "github", "mcpx"] as const;
export type ReporterName = (typeof REPORTERS)[number];

/** What `run` writes when no `--reporter` is given. */
export const DEFAULT_REPORTERS: readonly ReporterName[] = ["md", "pr-comment", "html", "junit"];

/** The file each reporter writes into the report directory. */
export const REPORT_FILES: Record<Exclude<ReporterName, "github">, string> = {
  md: "matrix.md",
  "pr-comment": "pr-comment.md",
  html: "matrix.html",
  junit: "junit.xml",
  // mcpx's own formats (src/matrix/mcpx.ts): its register's status cells, and its Gap entries beside them.
  mcpx: "mcpx.md",
};
export const MCPX_GAPS_FILE = "mcpx-gaps.go.txt";

/** Parses `md,html` (or a list of such) into reporter names; unknown names are an InputError (exit 2). */
export function parseReporters(spec: string | readonly string[]): ReporterName[] {
  const names = (Array.isArray(spec) ? spec : [spec])
    .flatMap((s: string) => s.split(","))
    .map((s: string) => s.trim())
    .filter((s: string) => s !== "");
  const out: ReporterName[] = [];
  for (const name of names) {
    if (name === "json") continue;
    if (!(REPORTERS as readonly string[]).includes(name))
      throw new InputError(
        `unknown reporter '${name}' (expected ${[...REPORTERS, "json"].join(", ")})`,
        undefined,
        "--reporter",
      );
    if (!out.includes(name as ReporterName)) out.push(name as ReporterName);
  }
  return out;
}

/** Where the github reporter sends its output; defaults to the process's environment and stdout. */
export interface ReportIo {
  env?: Record<string, string | undefined>;
  stdout?: (text: string) => void;
  /** Where the markdown reports' evidence links point (an https URL or a folder); default relative to results.json. */
  linkBase?: string;
}

/**
 * Writes the selected reports into `dir` (created if needed) and returns the paths written.
 * - md → matrix.md (the full matrix), pr-comment → pr-comment.md (a pull-request comment within GitHub's
 *   size limit), html → matrix.html (with `evidences` embedded), junit → junit.xml;
 * - github → the step summary appended to $GITHUB_STEP_SUMMARY when set (else github-summary.md in `dir`),
 *   and one workflow-command annotation per line on stdout.
 * `evidences` is keyed by the evidence path as written in results.json.
 */
export function writeReports(
  dir: string,
  results: Results,
  register: Register,
  evidences: EvidenceSource,
  reporters: readonly string[],
  io: ReportIo = {},
): string[] {
  const selected = parseReporters(reporters);
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    written.push(path);
  };
  for (const reporter of selected) {
    switch (reporter) {
      case "md":
        write(REPORT_FILES.md, renderMarkdown(results, register, { linkBase: io.linkBase }));
        break;
      case "pr-comment":
        write(REPORT_FILES["pr-comment"], renderPrComment(results, register, { linkBase: io.linkBase }));
        break;
      case "html":
        write(REPORT_FILES.html, renderHtml(results, register, evidences));
        break;
      case "junit":
        write(REPORT_FILES.junit, renderJunit(results));
        break;
      case "mcpx": {
        const mcpx = renderMcpx(results, register, { linkBase: io.linkBase });
        write(REPORT_FILES.mcpx, mcpx.register);
        write(MCPX_GAPS_FILE, mcpx.gaps);
        break;
      }
      case "github": {
        const { summary, annotations } = renderGithub(results);
        const env = io.env ?? process.env;
        const stepSummary = env.GITHUB_STEP_SUMMARY;
        if (stepSummary) {
          appendFileSync(stepSummary, `${summary}\n`);
          written.push(stepSummary);
        } else {
          write("github-summary.md", summary);
        }
        const out = io.stdout ?? ((text: string) => process.stdout.write(text));
        if (annotations.length > 0) out(`${annotations.join("\n")}\n`);
        break;
      }
    }
  }
  return written;
}
