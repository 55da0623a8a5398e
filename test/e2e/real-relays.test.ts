import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  MATRIX_TARGETS,
  missingRelay,
  ROOT,
  realTargets,
  runArgs,
  statusDifferences,
} from "../../scripts/real-matrices.ts";
import { type Evidence, EvidenceSchema } from "../../src/model/evidence.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { cli, tempDir } from "../helpers/cli.ts";

/**
 * The committed matrices of the real relays are current: a fresh run of every targets/real profile (fixed seed)
 * gives the same status in every cell (row × era × side) as matrix/targets/<name>/results.json. Timestamps,
 * reasons and evidence bytes are not compared. When a case or the harness changes on purpose, `npm run
 * matrix:refresh` rewrites the committed matrices.
 *
 * Each target also carries what the relay was seen to do at the trust boundary (read off the transcripts), so a
 * refresh that flips one of these is caught here and not just rubber-stamped.
 */

const ISOLATION = "sampling-relay-answers-only-the-asker";

/** What every one of these relays does: relays faithfully, validates nothing, has no deadline. */
const PASS_THROUGH: Record<string, string> = {
  "sampling-relay-roundtrip/intermediary": "pass",
  "sampling-relay-content-unchanged/intermediary": "pass",
  "sampling-relay-error-not-stacked/intermediary": "pass",
  // A denial reaches the upstream as -1; the person-at-a-review-surface case cannot run: no review surface.
  "sampling-human-in-loop-can-deny/client": "partial",
  "sampling-app-review-ui/client": "partial",
  "sampling-client-errors-user-rejected/client": "pass",
  "sampling-both-validate-message-content/client": "fail",
  "sampling-both-validate-message-content/server": "fail",
  "sampling-result-schema/server": "fail",
  "sampling-relay-expiry-reported/intermediary": "warn",
};

/**
 * FastMCP's proxy rebuilds each sampling request and result (docs/real-relays.md, with the source lines): it relays,
 * validates the request schema and the result shape, rewrites `model`, drops fields both ways, maps every error
 * from the answerer to -32603, declares fixed capabilities upstream, has no deadline, and its fresh backend client per
 * request reuses the call's id 1 for the 2026-07-28 retry over HTTP.
 */
const FASTMCP: Record<string, string> = {
  "sampling-relay-roundtrip/intermediary": "pass",
  "sampling-relay-content-unchanged/intermediary": "fail",
  "sampling-result-schema/server": "pass",
  "sampling-request-params-schema/client": "fail",
  "sampling-both-validate-message-content/client": "fail",
  "sampling-client-errors-user-rejected-and-tool-shape/client": "fail",
  // The answerer's message reaches the upstream word for word: its -32603 is the code row's failure, not this one's.
  "sampling-relay-error-not-stacked/intermediary": "pass",
  // A task-augmented request gets the answerer's CreateMessageResult (rewritten: content-unchanged's failure); the
  // tool-enabled one does not apply, as FastMCP declares no sampling.tools upstream.
  "sampling-task-augmented-processed-normally/client": "pass",
  // No sampling.context declared upstream, includeContext never passed on: both hops keep the SHOULD NOT.
  "sampling-server-includecontext-only-with-context-capability/server@2025-11-25": "pass",
  "sampling-client-declare-tools-capability/client": "fail",
  "sampling-relay-expiry-reported/intermediary": "warn",
  "sampling-mrtr-request-state-echoed/client": "pass",
  "sampling-mrtr-retry-new-id/client": "fail",
  // It does not bridge eras: a 2026-07-28 client in front of a legacy upstream lists no tools.
  "sampling-relay-adapts-to-downstream-era/intermediary@2026-07-28": "n/a",
};

/**
 * ToolHive's `thv proxy` over Streamable HTTP, run in 2025-11-25 and 2026-07-28: a pipe like the first four (the -1 row
 * of PASS_THROUGH ends at 2025-06-18), and in 2026-07-28 the input_required result and its retry pass through whole.
 */
const TOOLHIVE_PROXY_MODERN: Record<string, string> = {
  ...Object.fromEntries(
    Object.entries(PASS_THROUGH).filter(([key]) => key !== "sampling-client-errors-user-rejected/client"),
  ),
  "sampling-mrtr-request-state-echoed/client@2026-07-28": "pass",
  "sampling-mrtr-retry-new-id/client@2026-07-28": "pass",
};

/**
 * Keys are `row/side` (every era of the run in which the row exists) or `row/side@era` (that era only). A stdio
 * downstream has one client per relay process, so the isolation row's two-session case does not apply there; its id
 * cases (an upstream request under an odd JSON-RPC id, issue #32) do, so that row is judged on them alone.
 */
const EXPECTED: Record<string, Record<string, string>> = {
  // Isolation row: its two-session case is n/a (a stdio downstream), and an upstream request id beginning
  // "mcp-remote-" is refused with -32600 (dist/chunk-KJCT2FXL.js:32482-32490): id-shaped-like-mcp-remote fails.
  "mcp-remote": { ...PASS_THROUGH, [`${ISOLATION}/intermediary`]: "fail" },
  "mcp-remote-sse": { ...PASS_THROUGH, [`${ISOLATION}/intermediary`]: "fail" },
  // --protocol auto (docs/real-relays.md): a 2026-07-28 upstream's input_required becomes sampling requests to a legacy
  // client (the round trip bridges), each waited on up to 10 minutes (the expiry case fails), params forwarded raw;
  // a client without sampling is still asked in 2025-11-25, as with the plain pipe.
  "mcp-remote-auto": {
    "sampling-relay-roundtrip/intermediary": "pass",
    "sampling-relay-content-unchanged/intermediary": "pass",
    "sampling-both-validate-message-content/client": "fail",
    "sampling-mrtr-request-state-echoed/client@2026-07-28": "pass",
    "sampling-mrtr-retry-new-id/client@2026-07-28": "pass",
    "sampling-mrtr-no-per-input-error/client@2026-07-28": "pass",
    "sampling-relay-adapts-to-downstream-era/intermediary@2026-07-28": "fail",
    "sampling-only-negotiated-capabilities/server@2025-11-25": "fail",
    "sampling-relay-unrelated-requests/client@2025-11-25": "pass",
    // As mcp-remote: the id "mcp-remote-1" is refused with -32600; 2026-07-28 has only two-session cases (n/a).
    [`${ISOLATION}/intermediary@2025-11-25`]: "fail",
    [`${ISOLATION}/intermediary@2026-07-28`]: "n/a",
  },
  // One upstream process shared by every SSE session, and every frame it writes goes to every session.
  "supergateway-stdio-sse": { ...PASS_THROUGH, [`${ISOLATION}/intermediary`]: "fail" },
  // One upstream process per Mcp-Session-Id: sessions cannot see each other's requests.
  "supergateway-stdio-streamable-stateful": { ...PASS_THROUGH, [`${ISOLATION}/intermediary`]: "pass" },
  // An upstream process per request. Legacy eras: it answers the upstream's sampling request itself (-32601), so
  // nothing of the era can pass; 2026-07-28: a raw pipe of input_required, its requestState swapped for a handle and
  // restored upstream, a retry on the process that issued the handle.
  "supergateway-stdio-streamable-stateless": {
    "sampling-relay-roundtrip/intermediary@2025-11-25": "fail",
    "sampling-client-declare-capability-at-initialize/client@2025-11-25": "fail",
    // The round trip failed, so no other case of the era ran: each row at its own severity (SHOULD: warn).
    "sampling-task-augmented-processed-normally/client@2025-11-25": "fail",
    "sampling-client-rate-limit/client@2025-11-25": "warn",
    "sampling-relay-expiry-reported/intermediary@2025-11-25": "warn",
    "sampling-relay-error-not-stacked/intermediary@2025-11-25": "warn",
    "sampling-both-iteration-limits-tool-loops/client@2025-11-25": "warn",
    "sampling-relay-roundtrip/intermediary@2026-07-28": "pass",
    "sampling-relay-content-unchanged/intermediary@2026-07-28": "pass",
    "sampling-mrtr-request-state-echoed/client@2026-07-28": "pass",
    "sampling-mrtr-retry-new-id/client@2026-07-28": "pass",
    "sampling-both-validate-message-content/client@2026-07-28": "fail",
    [`${ISOLATION}/intermediary@2026-07-28`]: "pass",
  },
  // A pipe that stamps its own `_meta` keys on what it forwards, stacks error prefixes and validates nothing.
  "civic-passthrough": {
    "sampling-relay-roundtrip/intermediary": "pass",
    "sampling-relay-content-unchanged/intermediary": "fail",
    "sampling-relay-error-not-stacked/intermediary": "warn",
    "sampling-client-errors-user-rejected/client": "pass",
    "sampling-both-validate-message-content/client": "fail",
    "sampling-both-validate-message-content/server": "fail",
    // Its deadline is the SDK's 60 s, then -32001 "Request timed out": expiry named, in time, but not -32603.
    "sampling-relay-expiry-reported/intermediary": "warn",
    // Silence is not approval: the unanswered question ends in that error, never a result (the review cases cannot run).
    "sampling-client-user-approval-controls/client": "partial",
    // The id-space cases pass (ids through unchanged); the two-session case is n/a on its stdio downstream.
    [`${ISOLATION}/intermediary`]: "pass",
  },
  "fastmcp-url-stdio": {
    ...FASTMCP,
    [`${ISOLATION}/intermediary@2025-11-25`]: "pass",
    [`${ISOLATION}/intermediary@2026-07-28`]: "n/a",
  },
  // Each front session proxies with backend sessions of its own: the sessions stay apart.
  "fastmcp-http-http": { ...FASTMCP, [`${ISOLATION}/intermediary`]: "pass" },
  // ToolHive's `thv proxy`: an HTTP reverse proxy, each client's session the upstream's own session (docs/real-relays.md).
  "toolhive-proxy-sse": { ...PASS_THROUGH, [`${ISOLATION}/intermediary`]: "pass" },
  "toolhive-proxy-http": {
    ...TOOLHIVE_PROXY_MODERN,
    [`${ISOLATION}/intermediary`]: "pass",
  },
  // ToolHive's vmcp gateway rebuilds each sampling request and result (docs/real-relays.md, with the source lines):
  // it relays text, keeps the -1 code with a prefixed message, drops _meta and tools, refuses tool results and arrays
  // with code 0, has no deadline, and keeps each client's sampling on its own session.
  "toolhive-vmcp": {
    "sampling-relay-roundtrip/intermediary": "pass",
    "sampling-relay-content-unchanged/intermediary": "fail",
    "sampling-relay-error-not-stacked/intermediary": "warn",
    "sampling-client-errors-user-rejected/client": "pass",
    "sampling-client-declare-tools-capability/client": "fail",
    "sampling-client-errors-user-rejected-and-tool-shape/client": "fail",
    "sampling-both-validate-message-content/client": "fail",
    "sampling-result-schema/server": "fail",
    "sampling-relay-expiry-reported/intermediary": "warn",
    [`${ISOLATION}/intermediary`]: "pass",
  },
  // PyPI relays of issue #31 (docs/real-relays.md, "Survey: PyPI").
  // mcp-stdio 0.45.2 --transport sse: a line pipe (every SSE event to stdout, every stdin line POSTed), read like mcp-remote-sse.
  "mcp-stdio-0.45.2-sse": { ...PASS_THROUGH, [`${ISOLATION}/intermediary`]: "pass" },
  // mcp-stdio 0.45.2 --protocol-era modern: input_required and its retry pass through to a 2026-07-28 client; in
  // front of a legacy client each inputRequests entry becomes a sampling/createMessage and the answers one retry, but
  // a minted request nobody answers is never given up (no deadline), so the bridging row fails on its expiry case.
  "mcp-stdio-0.45.2-modern": {
    "sampling-relay-roundtrip/intermediary": "pass",
    "sampling-relay-content-unchanged/intermediary": "pass",
    "sampling-mrtr-request-state-echoed/client": "pass",
    "sampling-mrtr-retry-new-id/client": "pass",
    "sampling-both-validate-message-content/client": "fail",
    "sampling-relay-adapts-to-downstream-era/intermediary": "fail",
    [`${ISOLATION}/intermediary`]: "n/a",
  },
  // FastMCP 4.2.3, the newest release: as 4.0.10 but the legacy-era result is relayed as the SDK parsed it (model,
  // stopReason and role kept; unknown fields still dropped), so a custom stopReason now reaches the upstream.
  // In 2024-11-05 too: an audio answer, not part of that era, now reaches the upstream (no rebuild any more).
  "fastmcp-4.2.3-url-stdio": {
    ...Object.fromEntries(Object.entries(FASTMCP).filter(([key]) => key !== "sampling-result-schema/server")),
    "sampling-result-schema/server@2024-11-05": "fail",
    "sampling-result-schema/server@2025-11-25": "pass",
    "sampling-result-schema/server@2026-07-28": "pass",
    "sampling-stopreason-custom-values/client": "pass",
    // 4.2.3 passes includeContext on (proxy.py:1697-1723) to a client it declared no sampling.context for: the
    // SHOULD NOT is not followed (4.0.10 dropped it).
    "sampling-server-includecontext-only-with-context-capability/server@2025-11-25": "warn",
    [`${ISOLATION}/intermediary@2024-11-05`]: "pass",
    [`${ISOLATION}/intermediary@2025-11-25`]: "pass",
    [`${ISOLATION}/intermediary@2026-07-28`]: "n/a",
  },
  "fastmcp-4.2.3-http-http": {
    ...FASTMCP,
    "sampling-stopreason-custom-values/client": "pass",
    // 4.2.3 passes includeContext on (proxy.py:1697-1723) to a client it declared no sampling.context for: the
    // SHOULD NOT is not followed (4.0.10 dropped it).
    "sampling-server-includecontext-only-with-context-capability/server@2025-11-25": "warn",
    [`${ISOLATION}/intermediary`]: "pass",
  },
  // FastMCP 4.2.3 with a stdio backend (fastmcp run mcp.json), 2026-07-28 only: sampling inside results; one kept-alive
  // backend process, so the retry is a new id on the same connection (the URL modes reuse id 1 on a fresh client).
  "fastmcp-4.2.3-config-stdio": {
    "sampling-relay-roundtrip/intermediary": "pass",
    "sampling-relay-content-unchanged/intermediary": "fail",
    "sampling-result-schema/server": "pass",
    "sampling-request-params-schema/client": "fail",
    "sampling-both-validate-message-content/client": "fail",
    "sampling-client-declare-tools-capability/client": "fail",
    "sampling-mrtr-request-state-echoed/client": "pass",
    "sampling-mrtr-retry-new-id/client": "pass",
    "sampling-relay-adapts-to-downstream-era/intermediary": "n/a",
    [`${ISOLATION}/intermediary`]: "n/a",
  },
  // MCP Proxy for AWS 1.7.0 on FastMCP 3.4.11: one backend session for the process; the 4.0.10-style rebuilt result
  // (model "fastmcp-client", a text block, so a 2024-11-05 audio answer becomes "" instead of being refused), every
  // answerer error as -32603, no deadline; the SDK handles the upstream's requests one at a time on that session.
  "mcp-proxy-for-aws": {
    "sampling-relay-roundtrip/intermediary": "pass",
    "sampling-relay-content-unchanged/intermediary": "fail",
    "sampling-request-params-schema/client": "fail",
    "sampling-both-validate-message-content/client": "fail",
    "sampling-both-validate-message-content/server": "fail",
    "sampling-client-errors-user-rejected/client": "warn",
    "sampling-client-errors-user-rejected-and-tool-shape/client": "fail",
    "sampling-client-declare-tools-capability/client": "fail",
    // The answerer's message reaches the upstream word for word; its -32603 is the code rows' to judge.
    "sampling-relay-error-not-stacked/intermediary": "pass",
    "sampling-relay-expiry-reported/intermediary": "warn",
    "sampling-result-schema/server@2024-11-05": "fail",
    "sampling-result-schema/server@2025-11-25": "pass",
    "sampling-stopreason-custom-values/client": "warn",
    "sampling-human-in-loop-can-deny/client": "partial",
    [`${ISOLATION}/intermediary`]: "pass",
  },
  // mcp-stdio-bridge 1.5.0 --mode proxy: a JSON pump between each SSE session and an upstream process of its own.
  "mcp-stdio-bridge-1.5.0-proxy": { ...PASS_THROUGH, [`${ISOLATION}/intermediary`]: "pass" },
  // mcp-sse-proxy 0.1.4: a line pipe that drops every line before initialize, so a 2026-07-28 client gets no answer:
  // the 2024-11-05 bridges it would need are n/a (the harness's reading of that silence, targets/foreign/initialize-first).
  "mcp-sse-proxy-0.1.4": {
    ...PASS_THROUGH,
    "sampling-relay-adapts-to-downstream-era/intermediary@2024-11-05": "n/a",
    [`${ISOLATION}/intermediary`]: "pass",
  },
  // issue #31, Rust (rust31): mcpway 0.2.1, a Rust port of supergateway's stdio → SSE: one upstream process, every
  // line it writes parsed and sent to every SSE session (src/gateways/stdio_to_sse.rs:123-164).
  "mcpway-stdio-sse": { ...PASS_THROUGH, [`${ISOLATION}/intermediary`]: "fail" },
  // mcpway --stateful puts the child's sampling request on the standalone GET stream only, and answers notifications
  // 204 (not 202), so the SDK client never opens that stream: no sampling reaches a client, every round trip fails.
  "mcpway-stdio-streamable-stateful": {
    "sampling-relay-roundtrip/intermediary": "fail",
    "sampling-relay-content-unchanged/intermediary": "fail",
    "sampling-client-declare-capability-at-initialize/client": "fail",
    [`${ISOLATION}/intermediary`]: "fail",
  },
};

/** Relays that complete no sampling round trip in any era they run: no session transcript to read. */
const NO_ROUND_TRIP = new Set(["mcpway-stdio-streamable-stateful"]);

/** Relays with one upstream process whose every frame goes to every downstream session (the bystander is asked). */
const SHARED_UPSTREAM = new Set(["supergateway-stdio-sse", "mcpway-stdio-sse"]);

function readResults(dir: string): Results {
  return ResultsSchema.parse(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")));
}

function readEvidence(dir: string, results: Results, row: string, era: string): Evidence {
  const cell = results.cells.find((c) => c.row === row && c.era === era);
  // The two-session case, not the id-space cases of the same row (their one session shows no bystander).
  const file = cell?.cases.find((k) => !k.id.startsWith("id-"))?.evidence;
  if (!file) throw new Error(`no evidence for ${row}@${era}`);
  return EvidenceSchema.parse(JSON.parse(readFileSync(join(dir, file), "utf8")));
}

describe("real relays: committed matrices are current", () => {
  it("has a committed matrix and expectations for every real target", () => {
    const names = realTargets().map((p) => p.replace(/^.*\/|\.ya?ml$/g, ""));
    expect(names.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const profile of realTargets()) {
    const name = profile.replace(/^.*\/|\.ya?ml$/g, "");
    // A relay of a registry whose toolchain this machine lacks was not installed (test:setup says so): skipped, saying why.
    const missing = missingRelay(profile);
    const skipped = missing !== undefined;
    const why = skipped ? ` (skipped: ${missing})` : "";
    it.skipIf(skipped)(
      `${name}: a fresh run matches matrix/targets/${name}/results.json, cell by cell${why}`,
      async () => {
        const out = tempDir();
        const started = performance.now();
        const r = await cli(runArgs(profile, out), { timeoutMs: 170_000 });
        const seconds = (performance.now() - started) / 1000;
        expect(r.code, r.stderr).toBeLessThanOrEqual(1);
        // Seconds, not minutes: two eras and relay start-ups dominate (FastMCP, a Python proxy opening an upstream
        // session per request, is the slowest: about a minute on a loaded 2-core machine).
        expect(seconds).toBeLessThan(150);
        const fresh = readResults(out);
        const committedDir = join(ROOT, MATRIX_TARGETS, name);
        const committed = readResults(committedDir);
        const differences = statusDifferences(committed, fresh);
        expect(
          differences,
          `matrix/targets/${name} is stale (run \`npm run matrix:refresh\` if the change is intended):\n${differences.join("\n")}`,
        ).toEqual([]);
        expect(readFileSync(join(committedDir, "matrix.md"), "utf8")).toContain(
          `# Conformance matrix: ${name}`,
        );

        for (const [key, status] of Object.entries(EXPECTED[name]!)) {
          const [cell, era] = key.split("@");
          const [row, side] = cell!.split("/");
          // Every era of the run in which the row exists (sampling-client-errors-user-rejected ends at 2025-06-18).
          const cells = fresh.cells.filter(
            (c) => c.row === row && c.side === side && (!era || c.era === era),
          );
          expect(cells.length, key).toBeGreaterThan(0);
          for (const cell of cells) {
            expect(cell.status, `${key}@${cell.era}: ${cell.cases.map((c) => c.reason).join("; ")}`).toBe(
              status,
            );
          }
        }
        const isolation = fresh.cells.filter((c) => c.row === ISOLATION);
        // A stdio downstream has one client per relay process: the two-session cases are n/a there (the id-space
        // cases of the row run on one session and are judged like any case).
        const twoSession = isolation.flatMap((c) => c.cases).filter((k) => !k.id.startsWith("id-"));
        if (twoSession.length > 0 && twoSession.every((k) => k.status === "skip" && k.na)) {
          for (const k of twoSession) expect(k.reason).toMatch(/n\/a on a stdio downstream/);
          return;
        }
        if (NO_ROUND_TRIP.has(name)) return;
        // What the transcripts show about the two sessions (in the era where this relay relays sampling).
        const era = name === "supergateway-stdio-streamable-stateless" ? "2026-07-28" : "2025-11-25";
        const evidence = readEvidence(out, fresh, ISOLATION, era);
        const bystander = evidence.observation.bystanders?.[0];
        const upstreams = new Set(evidence.frames.filter((f) => f.end === "upstream").map((f) => f.session));
        if (SHARED_UPSTREAM.has(name)) {
          expect(bystander?.asked.length).toBe(1);
          expect(JSON.stringify(evidence.observation.upstream)).toContain("-bystander");
          expect(upstreams.size).toBe(1);
        } else {
          // Legacy eras: B only answers, so it is never asked; 2026-07-28: B makes a call of its own (asked its own).
          if (era !== "2026-07-28") expect(bystander?.asked).toEqual([]);
          expect(evidence.verdict.status).toBe("pass");
          // An upstream per session (or, for a per-request gateway, per request): never one shared by both.
          expect(upstreams.size).toBeGreaterThanOrEqual(2);
        }
      },
      180_000,
    );
  }
});
