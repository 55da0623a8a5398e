/**
 * Start-up of the deliberately broken *review* relays: the reference relay with its review surface, and ONE
 * decision of its review policy (src/relay/reviewed.ts) replaced. Usage from a target profile:
 *
 *   node ../run-ts.mjs relays/<name>.ts --answer-timeout-ms 1500 --review-port {{port}} -- {{upstream.command}}
 */

import { runRelay } from "../../../../src/relay/relay.ts";
import { REFERENCE_REVIEW, type ReviewPolicy } from "../../../../src/relay/reviewed.ts";

function parseArgs(argv: string[]): { answerTimeoutMs: number; reviewPort: number; upstream: string[] } {
  const split = argv.indexOf("--");
  const flags = argv.slice(0, split < 0 ? argv.length : split);
  const upstream = split < 0 ? [] : argv.slice(split + 1);
  const value = (name: string) => {
    const i = flags.indexOf(name);
    const n = i < 0 ? Number.NaN : Number(flags[i + 1]);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name}: a whole number is required`);
    return n;
  };
  if (upstream.length === 0) throw new Error("no upstream command after --");
  return { answerTimeoutMs: value("--answer-timeout-ms"), reviewPort: value("--review-port"), upstream };
}

export async function runBrokenReview(name: string, defect: Partial<ReviewPolicy>): Promise<void> {
  const { answerTimeoutMs, reviewPort, upstream } = parseArgs(process.argv.slice(2));
  await runRelay({
    upstream,
    answerTimeoutMs,
    reviewPort,
    reviewTimeoutMs: 2500,
    name: `mcpx-conform-broken-${name}`,
    reviewPolicy: { ...REFERENCE_REVIEW, ...defect },
  });
  process.exit(0);
}
