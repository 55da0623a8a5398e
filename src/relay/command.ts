import { type Command, InvalidArgumentError } from "commander";

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number");
  return n;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError("expected a port number (0-65535)");
  return n;
}

function httpUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return value;
  } catch {}
  throw new InvalidArgumentError("expected an http:// or https:// URL");
}

interface RelayCliOptions {
  answerTimeoutMs: number;
  review?: boolean;
  reviewPort?: number;
  reviewTimeoutMs?: number;
  listen?: number;
  upstreamUrl?: string;
  maxOpenSampling?: number;
  maxToolRounds?: number;
}

/**
 * `mcpx-conform relay`: the reference relay's own command, declared here so the CLI never imports the relay (the
 * program's entry, src/main.ts, adds it to the CLI's commands; src/relay/main.ts runs it alone). The relay speaks MCP
 * on the process's own stdin/stdout: it has no in-process form, so it takes no CLI io.
 */
// Long: the relay command's whole surface (every option with its help) in one declaration, as commander reads it.
export function register(program: Command, setExit: (code: number) => void): void {
  program
    .command("relay")
    .description(
      "run the reference sampling relay: relay [options] -- UPSTREAM_COMMAND… (or --upstream-url URL); stdio, or --listen PORT",
    )
    .option(
      "--answer-timeout-ms <ms>",
      "how long a sampling question may stay unanswered",
      positiveInt,
      60_000,
    )
    .option(
      "--review",
      "put every sampling request and response in front of a person (review surface on loopback)",
    )
    .option(
      "--review-port <port>",
      "port of the review surface (default: any free port; implies --review)",
      port,
    )
    .option("--review-timeout-ms <ms>", "how long a reviewed question may stay undecided", positiveInt)
    .option("--listen <port>", "serve the downstream over Streamable HTTP at http://127.0.0.1:PORT/mcp", port)
    .option("--upstream-url <url>", "reach the upstream MCP server over Streamable HTTP at this URL", httpUrl)
    .option(
      "--max-open-sampling <n>",
      "rate limit: sampling requests of the upstream open at once; the excess is refused without asking (default 16)",
      positiveInt,
    )
    .option(
      "--max-tool-rounds <n>",
      "tool-loop iteration limit: tool rounds one sampling request may carry (default 10)",
      positiveInt,
    )
    .argument("[upstream...]", "the upstream MCP server command (after --), unless --upstream-url")
    .action(async (upstream: string[], opts: RelayCliOptions) => {
      if (upstream.length > 0 === (opts.upstreamUrl !== undefined)) {
        process.stderr.write(
          "mcpx-conform relay: give either an upstream command (after --) or --upstream-url, not both\n",
        );
        setExit(2);
        return;
      }
      // Loaded on demand: the other commands of the program need none of the relay.
      const { runRelay } = await import("./relay.ts");
      const reviewPort = opts.reviewPort ?? (opts.review ? 0 : undefined);
      await runRelay({
        upstream,
        answerTimeoutMs: opts.answerTimeoutMs,
        ...(reviewPort !== undefined ? { reviewPort } : {}),
        ...(opts.reviewTimeoutMs !== undefined ? { reviewTimeoutMs: opts.reviewTimeoutMs } : {}),
        ...(opts.listen !== undefined ? { listen: opts.listen } : {}),
        ...(opts.upstreamUrl !== undefined ? { upstreamUrl: opts.upstreamUrl } : {}),
        limits: {
          ...(opts.maxOpenSampling !== undefined ? { maxPendingSampling: opts.maxOpenSampling } : {}),
          ...(opts.maxToolRounds !== undefined ? { maxToolRounds: opts.maxToolRounds } : {}),
        },
      });
      setExit(0);
    });
}
