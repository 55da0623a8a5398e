/**
 * Shared start-up of the deliberately broken relays that are the reference relay with ONE policy decision
 * replaced (see src/relay/policy.ts). Usage from a target profile:
 *
 *   node --import tsx relays/<name>.ts --answer-timeout-ms 1500 -- {{upstream.command}}
 */
import { REFERENCE_POLICY, type RelayPolicy } from "../../../../src/relay/policy.ts";
import { runRelay } from "../../../../src/relay/relay.ts";
import type { Finding, Verdict } from "../../../../src/validator/types.ts";

function parseArgs(argv: string[]): { answerTimeoutMs: number; upstream: string[] } {
  let answerTimeoutMs = 60_000;
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      i++;
      break;
    }
    if (arg === "--answer-timeout-ms") answerTimeoutMs = Number(argv[++i]);
    else throw new Error(`unknown argument ${arg} (usage: --answer-timeout-ms MS -- UPSTREAM_COMMAND…)`);
  }
  const upstream = argv.slice(i);
  if (!Number.isInteger(answerTimeoutMs) || answerTimeoutMs <= 0)
    throw new Error("--answer-timeout-ms: a positive whole number");
  if (upstream.length === 0) throw new Error("no upstream command after --");
  return { answerTimeoutMs, upstream };
}

/** Runs the reference relay with `defect` replacing part of its policy; exits when the relay closes. */
export async function runBroken(name: string, defect: Partial<RelayPolicy>): Promise<void> {
  const { answerTimeoutMs, upstream } = parseArgs(process.argv.slice(2));
  await runRelay({
    upstream,
    answerTimeoutMs,
    name: `mcpx-conform-broken-${name}`,
    policy: { ...REFERENCE_POLICY, ...defect },
  });
  process.exit(0);
}

/** A verdict rebuilt from a subset of another's findings (legal when no error is left). */
export function verdictOf(errors: Finding[], warnings: Finding[] = []): Verdict {
  const first = errors[0];
  return { legal: errors.length === 0, errors, warnings, code: first ? first.code : null };
}
