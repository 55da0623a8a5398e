/**
 * One example per command, printed at the end of its `--help` and in docs/cli.md (scripts/gen-docs.ts), so the
 * two cannot differ. A command registered without one fails test/cli/help-docs.e2e.test.ts.
 */
export const COMMAND_EXAMPLES: Readonly<Record<string, string>> = {
  run: "mcpx-conform run --target mcpx/my-relay.yaml --era 2025-11-25 --out mcpx-conform-report",
  relay: "mcpx-conform relay --answer-timeout-ms 2000 -- node dist/server.js",
  validate: "mcpx-conform validate --era 2025-11-25 --request request.json",
  replay:
    "mcpx-conform replay mcpx-conform-report/evidence/sampling-relay-roundtrip/text-roundtrip@2025-11-25.json",
  list: "mcpx-conform list cases --json",
  gate: "mcpx-conform gate --results mcpx-conform-report/results.json --require sampling-relay-roundtrip@2025-11-25",
  evidence: "mcpx-conform evidence --results mcpx-conform-report/results.json --check",
  render: "mcpx-conform render --results mcpx-conform-report/results.json --reporter md,html --out report",
  init: "mcpx-conform init --name my-relay -- node dist/relay.js {{upstream.command}}",
  compare: "mcpx-conform compare a/results.json b/results.json --out compare --title 'Two relays'",
  merge: "mcpx-conform merge shard-1 shard-2 shard-3 shard-4 --out mcpx-conform-report",
  site: "mcpx-conform site --out site --results matrix/targets/reference matrix/targets/independent",
};

/** The text commander prints after a command's help. */
export function exampleHelp(example: string): string {
  return `\nExample:\n  $ ${example}`;
}
