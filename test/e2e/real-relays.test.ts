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
  "sampling-client-declare-tools-capability/client": "fail",
  "sampling-relay-expiry-reported/intermediary": "warn",
  "sampling-mrtr-request-state-echoed/client": "pass",
  "sampling-mrtr-retry-new-id/client": "fail",
  // It does not bridge eras: a 2026-07-28 client in front of a legacy upstream lists no tools.
  "sampling-relay-adapts-to-downstream-era/intermediary@2026-07-28": "n/a",
};

/**
 * Keys are `row/side` (every era of the run in which the row exists) or `row/side@era` (that era only). A stdio
 * downstream has one client per relay process, so session isolation does not apply there.
 */
const EXPECTED: Record<string, Record<string, string>> = {
  "mcp-remote": { ...PASS_THROUGH, [`${ISOLATION}/intermediary`]: "n/a" },
  "mcp-remote-sse": { ...PASS_THROUGH, [`${ISOLATION}/intermediary`]: "n/a" },
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
    [`${ISOLATION}/intermediary`]: "n/a",
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
    "sampling-relay-expiry-reported/intermediary": "warn",
    [`${ISOLATION}/intermediary`]: "n/a",
  },
  "fastmcp-url-stdio": { ...FASTMCP, [`${ISOLATION}/intermediary`]: "n/a" },
  // Each front session proxies with backend sessions of its own: the sessions stay apart.
  "fastmcp-http-http": { ...FASTMCP, [`${ISOLATION}/intermediary`]: "pass" },
};

function readResults(dir: string): Results {
  return ResultsSchema.parse(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")));
}

function readEvidence(dir: string, results: Results, row: string, era: string): Evidence {
  const cell = results.cells.find((c) => c.row === row && c.era === era);
  const file = cell?.cases[0]?.evidence;
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
        if (EXPECTED[name]![`${ISOLATION}/intermediary`] === "n/a") {
          for (const cell of isolation) expect(cell.note).toMatch(/n\/a on a stdio downstream/);
          return;
        }
        // What the transcripts show about the two sessions (in the era where this relay relays sampling).
        const era = name === "supergateway-stdio-streamable-stateless" ? "2026-07-28" : "2025-11-25";
        const evidence = readEvidence(out, fresh, ISOLATION, era);
        const bystander = evidence.observation.bystanders?.[0];
        const upstreams = new Set(evidence.frames.filter((f) => f.end === "upstream").map((f) => f.session));
        if (name === "supergateway-stdio-sse") {
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
