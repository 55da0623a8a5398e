import { resolve } from "node:path";
import type { Command } from "commander";
import { type Baseline, BaselineSchema } from "../matrix/baseline.ts";
import { gate, parseRequire } from "../matrix/gate.ts";
import { InputError } from "../model/errors.ts";
import { DEFAULT_REGISTER, loadDataFile, loadRegister } from "../model/load.ts";
import type { CliIo, SetExit } from "./io.ts";
import { loadResults } from "./render.ts";

/** Reads and validates a baseline (YAML or JSON); problems are one-line InputErrors (exit 2). */
export function loadBaseline(file: string, cwd = process.cwd()): Baseline {
  return loadDataFile(resolve(cwd, file), BaselineSchema, file);
}

interface GateCliOptions {
  results: string;
  require: string[];
  baseline?: string;
  today?: string;
  allowNa?: boolean;
  register?: string;
}

/** `gate`: prints one line per reason and returns 0 (pass) or 1 (fail). */
export function runGate(
  opts: GateCliOptions,
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  cwd = process.cwd(),
): 0 | 1 {
  const require = parseRequire(opts.require);
  if (opts.today !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(opts.today))
    throw new InputError(`expected a date YYYY-MM-DD, got '${opts.today}'`, undefined, "--today");
  const results = loadResults(opts.results, cwd);
  const baseline = opts.baseline ? loadBaseline(opts.baseline, cwd) : undefined;
  // A row the register does not have is a typo, not a requirement that was not run.
  const known = new Set(
    loadRegister(opts.register ? resolve(cwd, opts.register) : DEFAULT_REGISTER).rows.map((r) => r.id),
  );
  for (const r of require)
    if (!known.has(r.row))
      throw new InputError(
        `unknown register row '${r.row}' (mcpx-conform list rows shows them)`,
        undefined,
        "--require",
      );
  const verdict = gate(results, {
    require,
    ...(baseline ? { baseline } : {}),
    ...(opts.today ? { today: opts.today } : {}),
    ...(opts.allowNa ? { allowNa: true } : {}),
  });
  for (const line of verdict.lines) out(line.text);
  return verdict.exitCode;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function register(program: Command, setExit: SetExit, io: CliIo): void {
  program
    .command("gate")
    .description(
      "fail unless the required rows pass in a results file (baselined failures allowed until they expire)",
    )
    .requiredOption("--results <file>", "results.json of a run")
    .requiredOption(
      "--require <rows>",
      "ROW[@ERA][,…]: rows that must pass (every era in the results, or one)",
      collect,
    )
    .option(
      "--baseline <file>",
      "expected failures: {expectedFailures: [{row, era?, side?, reason, issue, expires}]}",
    )
    .option("--today <date>", "judge expiry as of this date (YYYY-MM-DD, default today UTC)")
    .option(
      "--allow-na",
      "accept a required row whose cells are all n/a (by default it fails: nothing was judged)",
    )
    .option("--register <file>", "register file the required rows must be in (default matrix/register.yaml)")
    .action((opts: GateCliOptions) => {
      setExit(runGate(opts, (l) => io.stdout(`${l}\n`), io.cwd));
    });
}
