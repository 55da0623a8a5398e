import { relative } from "node:path";
import type { Command } from "commander";
import { replayCase } from "../run/replay.ts";
import { EXIT } from "./errors.ts";
import { type CliIo, processIo, type SetExit } from "./io.ts";

/**
 * `replay EVIDENCE`: re-runs the one case an evidence bundle records (src/run/replay.ts: a run of that case through
 * the pipeline), says whether the verdict is the same and where the fresh transcript is (`….replay.json`, beside the
 * recorded one). Exit 0 when the case now passes (or warns), 1 when it fails, 3 when the harness could not drive it.
 */
export async function replay(
  file: string,
  opts: { target?: string; register?: string },
  io: CliIo = processIo(),
): Promise<number> {
  const { recorded, now, transcript, target } = await replayCase(file, { ...opts, cwd: io.cwd });
  const before = recorded.verdict.status;
  const status = now.verdict.status;
  const same = before === status;
  io.stdout(
    `${same ? "same verdict" : "DIFFERENT verdict"}: ${recorded.case.row}/${recorded.case.id} @${recorded.era} against ${target}: ${status} (recorded: ${before})\n`,
  );
  if (!same || status !== "pass")
    io.stdout(`  now: ${now.verdict.reason}\n  recorded: ${recorded.verdict.reason}\n`);
  io.stdout(`  transcript: ${relative(io.cwd, transcript) || transcript}\n`);
  // The case's verdict now decides, as in a run: a case that still fails is a failure, whatever was recorded.
  return status === "fail" ? EXIT.failed : status === "error" || status === "skip" ? EXIT.harness : EXIT.ok;
}

export function register(program: Command, setExit: SetExit, io: CliIo): void {
  program
    .command("replay")
    .description(
      "re-run the case of one evidence file (fresh transcript beside it as .replay.json); exit 1 when it fails",
    )
    .argument("<evidence>", "an evidence/<row>/<case>@<era>.json file")
    .option("--target <file>", "target profile (default: the one recorded in the evidence)")
    .option("--register <file>", "register file (default matrix/register.yaml)")
    .action(async (file: string, opts: { target?: string; register?: string }) => {
      setExit(await replay(file, opts, io));
    });
}
