/**
 * `mcpx-conform validate [--era E] (--request FILE | --result FILE [--for-request FILE]) [--capabilities FILE]
 * [--json]`: runs the reference validator on JSON files (`-`: standard input) and prints the verdict. The era
 * defaults to the newest legacy era (2025-11-25).
 *
 * Exit codes: 0 legal, 1 illegal, 2 bad input (missing/unreadable file, invalid JSON, unknown era, not exactly one
 * of --request/--result) — the last as an InputError naming the file and field.
 *
 * Accepted file shapes: a request file holds bare CreateMessageRequest params, a JSON-RPC request
 * `{jsonrpc, id, method, params}` or a 2026-07-28 embedded request `{method, params}`; a result file holds a bare
 * CreateMessageResult or a JSON-RPC response `{jsonrpc, id, result}`. Pointers in the output refer to the file
 * as written (e.g. `/params/messages/0` for a wrapped request).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { isModernEra } from "../protocol/eras.ts";
import {
  ERAS,
  type Era,
  type Finding,
  isEra,
  type SamplingCapabilities,
  type Verdict,
  validateEmbeddedRequest,
  validateRequest,
  validateResult,
} from "../validator/index.ts";
import { EXIT, InputError } from "./errors.ts";
import type { CliIo, SetExit } from "./io.ts";

export interface ValidateOptions {
  era?: string;
  request?: string;
  result?: string;
  forRequest?: string;
  capabilities?: string;
  json?: boolean;
}

/** Where the files come from: relative paths against `cwd`, and `-` is standard input (when it can be read). */
interface Sources {
  cwd: string;
  stdin?: (() => string) | undefined;
}

/** Reads `file` (relative to `cwd`; `-`: standard input); errors name it as given (stdin as `-`). */
function readJson(file: string, field: string, from: Sources): unknown {
  let text: string;
  try {
    if (file === "-") {
      if (!from.stdin) throw new InputError("standard input cannot be read here", "-", field);
      text = from.stdin();
    } else text = readFileSync(resolve(from.cwd, file), "utf8");
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(
      code === "ENOENT" ? "no such file" : `cannot read (${code ?? String(error)})`,
      file,
      field,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(`invalid JSON (${(error as Error).message})`, file, field);
  }
}

/** `validate` without --era: the newest era before 2026-07-28, whose requests and results travel on their own. */
export const DEFAULT_VALIDATE_ERA: Era = ERAS.filter((e) => !isModernEra(e)).at(-1)!;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A request file's content: the params to validate and where they sit in the file. */
interface RequestDoc {
  kind: "params" | "jsonrpc" | "embedded";
  whole: unknown;
  params: unknown;
}

function requestDoc(value: unknown, file: string, era: Era): RequestDoc {
  if (isObject(value) && typeof value.method === "string" && "params" in value) {
    // 2026-07-28 embeds {method, params} in inputRequests: the embedded-request rules judge the method there.
    if (isModernEra(era) && !("jsonrpc" in value))
      return { kind: "embedded", whole: value, params: value.params };
    if (value.method !== "sampling/createMessage") {
      throw new InputError(
        `expected a sampling/createMessage request, got method '${value.method}'`,
        file,
        "method",
      );
    }
    return { kind: "jsonrpc", whole: value, params: value.params };
  }
  return { kind: "params", whole: value, params: value };
}

function resultDoc(value: unknown, file: string): { result: unknown; prefix: string } {
  if (isObject(value) && "jsonrpc" in value) {
    if ("error" in value && !("result" in value)) {
      throw new InputError("the file holds a JSON-RPC error response, not a result", file, "error");
    }
    if ("result" in value) return { result: value.result, prefix: "/result" };
  }
  return { result: value, prefix: "" };
}

function prefixed(verdict: Verdict, prefix: string): Verdict {
  if (!prefix) return verdict;
  const move = (f: Finding): Finding => ({ ...f, pointer: prefix + f.pointer });
  return { ...verdict, errors: verdict.errors.map(move), warnings: verdict.warnings.map(move) };
}

/** Runs the validation the options ask for (relative files are read from `cwd`); throws InputError on bad input. */
export function validateFiles(
  opts: ValidateOptions,
  cwd = process.cwd(),
  stdin?: () => string,
): { verdict: Verdict; subject: string } {
  const era = opts.era ?? DEFAULT_VALIDATE_ERA;
  const from: Sources = { cwd, stdin };
  const fromStdin = [opts.request, opts.result, opts.forRequest, opts.capabilities].filter((f) => f === "-");
  if (fromStdin.length > 1)
    throw new InputError("only one file can be read from standard input ('-')", undefined, "-");
  if (!isEra(era)) {
    throw new InputError(
      `unknown era '${era ?? ""}' (expected one of ${ERAS.join(", ")})`,
      undefined,
      "--era",
    );
  }
  if ((opts.request === undefined) === (opts.result === undefined)) {
    throw new InputError(
      "give exactly one of --request FILE or --result FILE",
      undefined,
      "--request/--result",
    );
  }
  if (opts.forRequest !== undefined && opts.result === undefined) {
    throw new InputError("--for-request goes with --result", undefined, "--for-request");
  }
  let capabilities: SamplingCapabilities | undefined;
  if (opts.capabilities !== undefined) {
    const caps = readJson(opts.capabilities, "--capabilities", from);
    // Accept ClientCapabilities itself, or initialize params / a 2026 _meta holding it under "capabilities".
    const inner = isObject(caps) && isObject(caps.capabilities) ? caps.capabilities : caps;
    if (!isObject(inner))
      throw new InputError("capabilities must be a JSON object", opts.capabilities, "capabilities");
    capabilities = inner as SamplingCapabilities;
  }

  if (opts.request !== undefined) {
    const doc = requestDoc(readJson(opts.request, "--request", from), opts.request, era);
    const ctx = { era: era as Era, ...(capabilities ? { capabilities } : {}) };
    const verdict =
      doc.kind === "embedded"
        ? validateEmbeddedRequest(doc.whole, ctx)
        : prefixed(validateRequest(doc.params, ctx), doc.kind === "jsonrpc" ? "/params" : "");
    return { verdict, subject: `request ${opts.request}` };
  }

  const resultFile = opts.result!;
  const { result, prefix } = resultDoc(readJson(resultFile, "--result", from), resultFile);
  let request: unknown;
  if (opts.forRequest !== undefined) {
    request = requestDoc(readJson(opts.forRequest, "--for-request", from), opts.forRequest, era).params;
  }
  const verdict = prefixed(validateResult(result, { era, request }), prefix);
  return { verdict, subject: `result ${resultFile}` };
}

/** Human rendering: a summary line, then `LEVEL rule at /pointer: message (code N) — source` per finding. */
export function formatVerdict(verdict: Verdict, era: Era, subject: string): string {
  const lines: string[] = [];
  const n = (k: number, what: string) => `${k} ${what}${k === 1 ? "" : "s"}`;
  lines.push(
    `${verdict.legal ? "legal" : "ILLEGAL"}: ${subject} (${era}): ${n(verdict.errors.length, "error")}, ${n(verdict.warnings.length, "warning")}${verdict.code !== null ? `, code ${verdict.code}` : ""}`,
  );
  for (const f of [...verdict.errors, ...verdict.warnings]) {
    const code = f.code !== null ? ` (code ${f.code})` : "";
    lines.push(
      `${f.level} ${f.rule} at ${f.pointer === "" ? "(root)" : f.pointer}: ${f.message}${code} — ${f.source}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

export function register(program: Command, setExit: SetExit, io: CliIo): void {
  program
    .command("validate")
    .description(
      "validate a sampling request or result against one protocol era with the reference validator",
    )
    .option(
      "--era <era>",
      `protocol era (${ERAS.join(", ")}; default ${DEFAULT_VALIDATE_ERA}, the newest before multi-round-trip)`,
    )
    .option(
      "--request <file>",
      "JSON file (- for stdin): CreateMessageRequest params, a JSON-RPC request or a 2026 embedded request",
    )
    .option(
      "--result <file>",
      "JSON file (- for stdin): CreateMessageResult or a JSON-RPC response holding one",
    )
    .option("--for-request <file>", "the request the --result answers (enables the result-vs-request rules)")
    .option("--capabilities <file>", "JSON file: the client's capabilities (enables the capability rules)")
    .option("--json", "print the verdict as JSON")
    .action((opts: ValidateOptions) => {
      const { verdict, subject } = validateFiles(opts, io.cwd, io.stdin);
      io.stdout(
        opts.json
          ? `${JSON.stringify(verdict, null, 2)}\n`
          : formatVerdict(verdict, (opts.era ?? DEFAULT_VALIDATE_ERA) as Era, subject),
      );
      setExit(verdict.legal ? EXIT.ok : EXIT.failed);
    });
}
