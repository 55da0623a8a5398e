/**
 * mcpx-conform's library API (the package's `exports["."]`, compiled to dist/lib/index.mjs with declarations in
 * dist/types/): the reference validator, the case, target-profile, evidence and results types with their zod
 * schemas, the gate, and `run`, the same pipeline as `mcpx-conform run`. The CLI contract is docs/cli.md's; this is
 * for scripts that would rather not parse a command's output.
 */

import { type RunOptions, resolveRunConfig } from "./run/config.ts";
import { type RunHooks, type RunOutcome, runPipeline } from "./run/pipeline.ts";

export { type Baseline, BaselineSchema } from "./matrix/baseline.ts";
export { gate, parseRequire } from "./matrix/gate.ts";
export { type Case, CaseSchema, type Expectation } from "./model/case.ts";
export { InputError } from "./model/errors.ts";
export { type Evidence, EvidenceSchema } from "./model/evidence.ts";
export { type Register, type RegisterRow, RegisterSchema } from "./model/register.ts";
export {
  type CaseResult,
  type CaseStatus,
  type Cell,
  type CellStatus,
  type Results,
  ResultsSchema,
} from "./model/results.ts";
export { type TargetProfile, TargetProfileSchema } from "./model/target.ts";
export {
  DEFAULT_OUT,
  DEFAULT_TARGET,
  type RunConfig,
  type RunOptions,
  resolveRunConfig,
} from "./run/config.ts";
export { type RunHooks, type RunOutcome, runPipeline } from "./run/pipeline.ts";
export * from "./validator/index.ts";

/**
 * Runs the case corpus against a target, as `mcpx-conform run` does with the same options (strings, as on the
 * command line; relative paths against `cwd`), writing results.json, the reports and the evidence. Resolves with the
 * exit code the CLI would give (0, 1 a cell failed, 3 only harness errors), the results and the output folder.
 * Bad input (a profile, a case file, an option) throws an `InputError` naming the file and field.
 */
export async function run(options: RunOptions = {}, hooks: RunHooks = {}): Promise<RunOutcome> {
  return runPipeline(resolveRunConfig(options), hooks);
}
