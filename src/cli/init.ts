import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { ROUNDTRIP_ROW } from "../model/case-key.ts";
import { InputError } from "../model/errors.ts";
import { EvidenceSchema } from "../model/evidence.ts";
import { loadTarget, PROJECT_ROOT } from "../model/load.ts";
import type { Cell } from "../model/results.ts";
import { ERAS, type Era } from "../protocol/eras.ts";
import { resolveRunConfig } from "../run/config.ts";
import { runPipeline } from "../run/pipeline.ts";
import { EXIT } from "./errors.ts";
import { type EraProbe, type FoundEras, foundEras, smokeExit } from "./init-eras.ts";
import type { CliIo, SetExit } from "./io.ts";

/**
 * `mcpx-conform init [options] [-- RELAY_COMMAND…]`: writes a commented target profile (with the JSON Schema editors
 * use, `# yaml-language-server: $schema=…`), loads it back through the real schema, and runs a smoke check (the round
 * trip once per era, the eras side by side) so the user learns at once whether the harness can drive the relay, and in
 * which eras: the profile gets `eras:` with the eras the relay reached at both ends, and a comment naming why each
 * other era was left out (the relay does not serve that era's clients, or its upstream side cannot reach that era's
 * upstream), so a first `run` judges what the relay does instead of what it cannot reach.
 * Values not given as flags are asked on a terminal; elsewhere a missing command is an error (exit 2).
 */
const TRANSPORTS = ["stdio", "streamable-http", "sse"] as const;
type Transport = (typeof TRANSPORTS)[number];

interface InitOptions {
  out: string;
  name?: string;
  downstream?: string;
  url?: string;
  upstream?: string;
  force?: boolean;
  check?: boolean;
}

/** Splits a command line typed at the prompt into argv (double or single quotes group words). */
export function splitCommand(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

function transport(value: string | undefined, flag: string): Transport | undefined {
  if (value === undefined) return undefined;
  if ((TRANSPORTS as readonly string[]).includes(value)) return value as Transport;
  throw new InputError(`expected one of ${TRANSPORTS.join(", ")}, got '${value}'`, undefined, flag);
}

const yamlString = (s: string) => JSON.stringify(s);

/** The profile's text: every key with a comment saying what it is for. */
export function profileText(p: {
  schema: string;
  name: string;
  command: string[];
  downstream: Transport;
  url: string | undefined;
  upstream: Transport;
  /** The eras the smoke check found the relay reaches, and the comment saying what it found. */
  eras?: FoundEras;
}): string {
  const downstream =
    p.downstream === "stdio"
      ? "{ transport: stdio }"
      : `{ transport: ${p.downstream}, url: ${yamlString(p.url ?? "http://127.0.0.1:{{port}}/mcp")} }`;
  return [
    `# yaml-language-server: $schema=${p.schema}`,
    "# A target profile for mcpx-conform (written by `mcpx-conform init`; every key: docs/profiles.md of the mcpx-conform package).",
    "# Run it with: npx mcpx-conform run --target " + "<this file>",
    `name: ${p.name}`,
    "# Your relay's argv. {{upstream.command}} is the harness upstream on stdio ({{upstream.url}} for an HTTP upstream);",
    "# {{port}} is a free loopback port, {{tmp}} a fresh folder. Relative paths are relative to this file.",
    `command: [${p.command.map(yamlString).join(", ")}]`,
    "# How the harness answerer reaches your relay: stdio, or streamable-http / sse with the url it listens at.",
    `downstream: ${downstream}`,
    "# How your relay reaches the harness upstream: stdio (it launches {{upstream.command}}) or an HTTP url.",
    `upstream: { transport: ${p.upstream} }`,
    "# Who answers sampling: the harness's MCP client (client), or a person at your relay's review surface (review).",
    "answerer: { kind: client }",
    ...(p.eras ? [...p.eras.comment.map((line) => `# ${line}`), `eras: [${p.eras.eras.join(", ")}]`] : []),
    "# The whole start-up (spawn, listening, initialize, tools/list) must end within this.",
    "startupTimeoutMs: 15000",
    "# Your relay's own deadline for an unanswered sampling question (the expiry cases wait it out).",
    "answerTimeoutMs: 2000",
    "# The most one case may take once the relay is up.",
    "caseTimeoutMs: 10000",
    "",
  ].join("\n");
}

/** Asks for what the flags did not give, on a terminal. */
async function ask(question: string, fallback: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`${question} [${fallback}] `)).trim();
    return answer === "" ? fallback : answer;
  } finally {
    rl.close();
  }
}

// Long: the flags, the questions for what they left out, the file and its check, in the order a user meets them.
export async function init(opts: InitOptions, relayCommand: string[], io: CliIo): Promise<number> {
  const file = resolve(io.cwd, opts.out);
  if (existsSync(file) && !opts.force)
    throw new InputError("expected a new file (it exists; --force overwrites it)", opts.out, "--out");
  const interactive = process.stdin.isTTY === true && io.isTTY;
  let command = relayCommand;
  if (command.length === 0) {
    if (!interactive)
      throw new InputError(
        "expected the relay's command after -- (e.g. init -- node relay.js {{upstream.command}}), or a terminal to ask on",
        undefined,
        "command",
      );
    command = splitCommand(await ask("Your relay's command line", "node relay.js {{upstream.command}}"));
  }
  const name = opts.name ?? (interactive ? await ask("Target name", "my-relay") : "my-relay");
  const downstream =
    transport(opts.downstream, "--downstream") ??
    (interactive
      ? transport(await ask("Downstream transport (stdio, streamable-http, sse)", "stdio"), "downstream")
      : "stdio")!;
  const upstream =
    transport(opts.upstream, "--upstream") ??
    (interactive
      ? transport(await ask("Upstream transport (stdio, streamable-http, sse)", "stdio"), "upstream")
      : "stdio")!;
  const schema = relative(dirname(file), join(PROJECT_ROOT, "dist/schemas/target.schema.json"));
  const profile = { schema, name, command, downstream, url: opts.url, upstream };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, profileText(profile));
  // Loaded back through the real schema: a bad name, transport or placeholder is found now, not at the first run.
  loadTarget(file);
  io.stderr(`wrote ${relative(io.cwd, file) || file}\n`);
  if (opts.check === false) return EXIT.ok;
  const { code, eras } = await smokeCheck(file, io);
  if (eras) {
    writeFileSync(file, profileText({ ...profile, eras }));
    loadTarget(file);
    io.stderr(`eras: [${eras.eras.join(", ")}] written to ${relative(io.cwd, file) || file}\n`);
  }
  return code;
}

/** The round trip once in every era, the eras side by side: can the harness drive this relay, and in which eras? */
async function smokeCheck(file: string, io: CliIo): Promise<{ code: number; eras: FoundEras | undefined }> {
  const out = join(io.cwd, "mcpx-conform-report", `init-check-${basename(file).replace(/\.ya?ml$/, "")}`);
  const config = resolveRunConfig({
    target: file,
    era: ERAS.join(","),
    rows: ROUNDTRIP_ROW,
    out,
    reporter: "json",
    quiet: true,
    cwd: io.cwd,
  });
  const outcome = await runPipeline(config);
  const cellOf = (era: Era): Cell | undefined =>
    outcome.results.cells.find((c) => c.row === ROUNDTRIP_ROW && c.era === era);
  const probes: EraProbe[] = ERAS.map((era) => {
    const cell = cellOf(era);
    const reason = cell?.cases[0]?.reason ?? "no round trip ran";
    const negotiated = negotiatedIn(outcome.outDir, cell);
    return { era, status: cell?.status ?? "not-run", reason, ...(negotiated ? { negotiated } : {}) };
  });
  for (const p of probes) io.stderr(`smoke check (${ROUNDTRIP_ROW} @${p.era}): ${p.status} — ${p.reason}\n`);
  const code = smokeExit(probes);
  io.stderr(
    code === EXIT.ok
      ? `next: npx mcpx-conform run --target ${relative(io.cwd, file) || file}\n`
      : `evidence: ${relative(io.cwd, outcome.outDir)}\n`,
  );
  return { code, eras: foundEras(probes) };
}

/** The versions each end of the relay spoke in a round trip, from its evidence (undefined when it has none). */
function negotiatedIn(outDir: string, cell: Cell | undefined): EraProbe["negotiated"] {
  const file = cell?.cases[0]?.evidence;
  if (!file) return undefined;
  try {
    return EvidenceSchema.parse(JSON.parse(readFileSync(join(outDir, file), "utf8"))).negotiated;
  } catch {
    return undefined;
  }
}

export function register(program: Command, setExit: SetExit, io: CliIo): void {
  program
    .command("init")
    .description("write a commented target profile for your relay and run a one-case smoke check")
    .argument("[command...]", "your relay's command (after --); asked on a terminal when left out")
    .option("--out <file>", "the profile to write", "mcpx-conform.yaml")
    .option("--name <name>", "the target's name (default my-relay)")
    .option("--downstream <transport>", `how the answerer reaches the relay: ${TRANSPORTS.join(", ")}`)
    .option(
      "--url <url>",
      "the relay's downstream URL (HTTP transports; default http://127.0.0.1:{{port}}/mcp)",
    )
    .option("--upstream <transport>", `how the relay reaches the harness upstream: ${TRANSPORTS.join(", ")}`)
    .option("--force", "overwrite an existing profile")
    .option("--no-check", "write the profile only, without the smoke check")
    .action(async (command: string[], opts: InitOptions) => {
      setExit(await init(opts, command, io));
    });
}
