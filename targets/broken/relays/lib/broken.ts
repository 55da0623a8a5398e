/**
 * Shared start-up of the deliberately broken relays that are the reference relay with ONE policy decision
 * replaced (see src/relay/policy.ts). Usage from a target profile:
 *
 *   node ../run-ts.mjs relays/<name>.ts --answer-timeout-ms 1500 -- {{upstream.command}}
 *
 * or over Streamable HTTP, as the reference relay's `--listen PORT` (downstream) and `--upstream-url URL` (upstream):
 *
 *   node ../run-ts.mjs relays/<name>.ts --answer-timeout-ms 1500 --listen {{port}} --upstream-url {{upstream.url}}
 */
import { REFERENCE_POLICY, type RelayPolicy } from "../../../../src/relay/policy.ts";
import { runRelay } from "../../../../src/relay/relay.ts";
import type { Finding, Verdict } from "../../../../src/validator/types.ts";

interface BrokenArgs {
  answerTimeoutMs: number;
  upstream: string[];
  listen?: number;
  upstreamUrl?: string;
}

function parseArgs(argv: string[]): BrokenArgs {
  let answerTimeoutMs = 60_000;
  let listen: number | undefined;
  let upstreamUrl: string | undefined;
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      i++;
      break;
    }
    if (arg === "--answer-timeout-ms") answerTimeoutMs = Number(argv[++i]);
    else if (arg === "--listen") listen = Number(argv[++i]);
    else if (arg === "--upstream-url") upstreamUrl = argv[++i];
    else
      throw new Error(
        `unknown argument ${arg} (usage: --answer-timeout-ms MS [--listen PORT] (--upstream-url URL | -- UPSTREAM_COMMAND…))`,
      );
  }
  const upstream = argv.slice(i);
  if (!Number.isInteger(answerTimeoutMs) || answerTimeoutMs <= 0)
    throw new Error("--answer-timeout-ms: a positive whole number");
  if (listen !== undefined && (!Number.isInteger(listen) || listen <= 0))
    throw new Error("--listen: a port number");
  if (upstream.length === 0 && !upstreamUrl)
    throw new Error("no upstream command after -- (or --upstream-url)");
  return {
    answerTimeoutMs,
    upstream,
    ...(listen !== undefined ? { listen } : {}),
    ...(upstreamUrl ? { upstreamUrl } : {}),
  };
}

/** Runs the reference relay with `defect` replacing part of its policy; exits when the relay closes. */
export async function runBroken(name: string, defect: Partial<RelayPolicy>): Promise<void> {
  const { answerTimeoutMs, upstream, listen, upstreamUrl } = parseArgs(process.argv.slice(2));
  await runRelay({
    upstream,
    answerTimeoutMs,
    ...(listen !== undefined ? { listen } : {}),
    ...(upstreamUrl ? { upstreamUrl } : {}),
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
