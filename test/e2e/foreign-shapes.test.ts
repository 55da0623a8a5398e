import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DETACHED_UNSENT } from "../../src/harness/upstream.ts";
import { type Evidence, EvidenceSchema } from "../../src/model/evidence.ts";
import { type Cell, type Results, ResultsSchema } from "../../src/model/results.ts";
import { resolveRunConfig } from "../../src/run/config.ts";
import { runPipeline } from "../../src/run/pipeline.ts";
import { ROOT, tempDir } from "../helpers/cli.ts";

/**
 * Relays shaped like the gateways people deploy, which the harness did not write (targets/foreign/), judged as they
 * deserve:
 * - legacy-only-http: a stateful Streamable HTTP gateway (a stdio relay per Mcp-Session-Id) that answers a 2026-07-28
 *   client with HTTP 400 and {"id": null, "error": {"code": -32000, "message": "Bad Request: No valid session ID
 *   provided"}} (the TS SDK's example server): no `error` cell, the cases that need a 2026-07-28 client n/a with how it
 *   refused, every legacy case that ran passes (the relay behind it is the correct independent relay);
 * - errors-as-400-http: a gateway that answers every JSON-RPC error with HTTP 400 gets exactly the verdicts of its twin
 *   answering them with HTTP 200 (an error body answers its request; the session goes on);
 * - per-request-gateway(-http): a raw pass-through that opens a new upstream process (or HTTP session) per request,
 *   ids from 1 on each, gets exactly the verdicts of its twin holding one upstream per session, but for its
 *   2026-07-28 retry, which reuses the call's id 1 on a new process (sampling-mrtr-retry-new-id fails).
 * Each target runs a few rows in a few eras (the rows where the shape shows: errors sent on POSTs, bridges that need a
 * 2026-07-28 client, sampling during a forwarded call, 2026-07-28 retries on a new connection); the runs share one
 * beforeAll, three at a time.
 */

const SEED = "1";
const CONCURRENT_RUNS = 3;
const REFUSAL =
  /^the relay does not serve 2026-07-28 clients: HTTP 400 on server\/discover \(error -32000 "Bad Request: No valid session ID provided"\); HTTP 400 on tools\/list/;
const LEGACY = ["2024-11-05", "2025-11-25"] as const;
const MODERN = "2026-07-28";

interface Run {
  target: string;
  eras: string[];
  rows: string[];
  out?: string;
  results?: Results;
  error?: string;
}

const runs = {
  legacyOnly: {
    target: "targets/foreign/legacy-only-http.yaml",
    eras: [...LEGACY, MODERN],
    rows: [
      "sampling-relay-roundtrip",
      // Legacy eras: bridges to a 2026-07-28 answerer (n/a here) beside bridges between legacy eras (they run).
      "sampling-relay-adapts-to-downstream-era",
      "sampling-client-errors-user-rejected-and-tool-shape",
    ],
  },
  errors400: {
    target: "targets/foreign/errors-as-400-http.yaml",
    eras: ["2025-11-25", MODERN],
    rows: [
      "sampling-relay-roundtrip",
      // 2026-07-28 upstream, legacy answerer: the call fails with the question's -1 or -32603 (HTTP 400 here).
      "sampling-relay-adapts-to-downstream-era",
      // 2026-07-28: the call fails with -32021 and with -32602 (HTTP 400 here).
      "sampling-mrtr-server-missing-capability-error",
      "sampling-message-must-have-role-and-content",
    ],
  },
  errors200: { target: "targets/foreign/errors-as-200-http.yaml", eras: [], rows: [] },
  perRequest: {
    target: "targets/foreign/per-request-gateway.yaml",
    eras: ["2025-11-25", MODERN],
    rows: [
      "sampling-relay-roundtrip",
      "sampling-client-errors-user-rejected-and-tool-shape",
      "sampling-relay-expiry-reported",
      // 2026-07-28: each retry is a new request on a new upstream process, ids from 1 again.
      "sampling-mrtr-retry-new-id",
      "sampling-mrtr-request-state-echoed",
      "sampling-messages-not-retained-between-requests",
    ],
  },
  perSession: { target: "targets/foreign/per-session-gateway.yaml", eras: [], rows: [] },
  perRequestHttp: {
    target: "targets/foreign/per-request-gateway-http.yaml",
    eras: ["2025-11-25"],
    rows: [
      "sampling-relay-roundtrip",
      "sampling-client-errors-user-rejected-and-tool-shape",
      // A sampling request on the standalone GET stream of the session that carries the call.
      "sampling-relay-unrelated-requests",
    ],
  },
  perSessionHttp: { target: "targets/foreign/per-session-gateway-http.yaml", eras: [], rows: [] },
  initializeFirst: {
    target: "targets/foreign/initialize-first.yaml",
    eras: ["2024-11-05"],
    // 2024-11-05: two bridges need a 2026-07-28 client (the pipe never answers it), one bridges two legacy eras.
    rows: ["sampling-relay-roundtrip", "sampling-relay-adapts-to-downstream-era"],
  },
} satisfies Record<string, Run>;
// Each twin runs what its counterpart runs.
Object.assign(runs.errors200, { eras: runs.errors400.eras, rows: runs.errors400.rows });
Object.assign(runs.perSession, { eras: runs.perRequest.eras, rows: runs.perRequest.rows });
Object.assign(runs.perSessionHttp, { eras: runs.perRequestHttp.eras, rows: runs.perRequestHttp.rows });

async function execute(run: Run): Promise<void> {
  run.out = tempDir("mcpx-conform-foreign-");
  try {
    await runPipeline(
      resolveRunConfig({
        target: join(ROOT, run.target),
        era: run.eras.join(","),
        rows: run.rows.join(","),
        out: run.out,
        seed: SEED,
        reporter: "md",
      }),
    );
    run.results = ResultsSchema.parse(JSON.parse(readFileSync(join(run.out, "results.json"), "utf8")));
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
  }
}

function resultsOf(run: Run): Results {
  if (!run.results) throw new Error(`${run.target}: the harness run failed: ${run.error}`);
  return run.results;
}

function evidenceOf(run: Run, row: string, id: string, era: string): Evidence {
  const kase = resultsOf(run)
    .cells.filter((c) => c.row === row && c.era === era)
    .flatMap((c) => c.cases)
    .find((k) => k.id === id);
  if (!kase?.evidence) throw new Error(`${run.target}: no evidence for ${row}/${id}@${era}`);
  return EvidenceSchema.parse(JSON.parse(readFileSync(join(run.out!, kase.evidence), "utf8")));
}

/** Every cell (row × era × side) and every case in it, with its status: what two relays' verdicts are compared by. */
function verdicts(results: Results): Map<string, string> {
  const map = new Map<string, string>();
  for (const c of results.cells) {
    map.set(`${c.row} @${c.era} (${c.side})`, c.status);
    for (const k of c.cases) map.set(`${c.row}/${k.id} @${c.era} (${c.side})`, `${k.status}: ${k.reason}`);
  }
  return map;
}

/** Where two relays' verdicts differ (a case's status, then the reason only when the status differs). */
function differences(a: Results, b: Results): string[] {
  const [x, y] = [verdicts(a), verdicts(b)];
  const status = (v: string | undefined) => v?.split(":")[0];
  return [...new Set([...x.keys(), ...y.keys()])]
    .filter((key) => status(x.get(key)) !== status(y.get(key)))
    .map((key) => `${key}: ${x.get(key) ?? "absent"} ≠ ${y.get(key) ?? "absent"}`);
}

const describeCell = (c: Cell) =>
  `${c.row} @${c.era} (${c.side}) ${c.status}: ${c.cases.map((k) => `${k.id} ${k.status} (${k.reason})`).join("; ")}`;

/** The requests and notifications the relay sent the upstream in a case: their connection label and message. */
const upstreamRequests = (frames: Evidence["frames"]) =>
  frames
    .filter((f) => f.end === "upstream" && f.dir === "from-relay" && (f.message as any)?.method !== undefined)
    .map((f) => ({ session: f.session, message: f.message as Record<string, unknown> }));

beforeAll(async () => {
  const all: Run[] = Object.values(runs);
  let next = 0;
  const lane = async () => {
    while (next < all.length) await execute(all[next++]!);
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENT_RUNS }, lane));
  console.info(
    `foreign shapes: ${all.length} harness runs in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}, 300_000);

describe("a gateway that answers 2026-07-28 clients with HTTP 400 (legacy sessions only)", () => {
  it("has no error and no failure: the relay behind it is correct in every legacy era", () => {
    const results = resultsOf(runs.legacyOnly);
    expect(
      results.cells.filter((c) => ["error", "fail", "warn"].includes(c.status)).map(describeCell),
    ).toEqual([]);
    const legacy = results.cells.filter((c) => c.era !== MODERN);
    for (const era of LEGACY) expect(legacy.some((c) => c.era === era)).toBe(true);
    // Every legacy case ran and passed, or needed a 2026-07-28 client and is n/a for how the relay refused one.
    for (const cell of legacy)
      for (const k of cell.cases) {
        if (k.status === "pass") continue;
        expect(`${cell.row}/${k.id}@${cell.era}: ${k.status} ${k.na ? "n/a" : ""} ${k.reason}`).toMatch(
          /: skip n\/a the relay does not serve 2026-07-28 clients: HTTP 400 on server\/discover/,
        );
      }
  });

  it("makes the legacy eras' bridges to a 2026-07-28 answerer n/a with how it refused, and runs the others", () => {
    const cells = resultsOf(runs.legacyOnly).cells.filter(
      (c) => c.row === "sampling-relay-adapts-to-downstream-era" && c.era !== MODERN,
    );
    const cases = new Map(cells.flatMap((c) => c.cases.map((k) => [`${k.id}@${c.era}`, k])));
    for (const id of [
      "legacy-upstream-to-mrtr-answerer@2024-11-05",
      "mrtr-array-result-to-older-upstream@2024-11-05",
      "legacy-upstream-to-mrtr-answerer@2025-11-25",
      "mrtr-silence-becomes-expiry@2025-11-25",
    ]) {
      expect(cases.get(id)?.status, id).toBe("skip");
      expect(cases.get(id)?.na, id).toBe(true);
      expect(cases.get(id)?.reason, id).toMatch(REFUSAL);
    }
    // Bridges between legacy eras need no 2026-07-28 client: they ran, and the independent relay passes them.
    for (const id of ["array-result-to-older-upstream@2024-11-05", "single-block-crosses-eras@2025-11-25"])
      expect(cases.get(id)?.status, id).toBe("pass");
  });

  it("makes every 2026-07-28 cell n/a (or not run) with the refusal, none an error", () => {
    const cells = resultsOf(runs.legacyOnly).cells.filter((c) => c.era === MODERN);
    expect(cells.length).toBeGreaterThan(0);
    const roundtrip = cells.find((c) => c.row === "sampling-relay-roundtrip");
    expect(roundtrip?.status).toBe("n/a");
    expect(roundtrip?.note).toMatch(REFUSAL);
    for (const cell of cells) {
      expect(["n/a", "not-run"], describeCell(cell)).toContain(cell.status);
      for (const k of cell.cases) {
        expect(k.status, `${cell.row}/${k.id}`).toBe("skip");
        expect(k.reason, `${cell.row}/${k.id}`).toContain(
          'the relay does not serve 2026-07-28 clients: HTTP 400 on server/discover (error -32000 "Bad Request: No valid session ID provided")',
        );
      }
    }
  });
});

describe("a line pipe that drops everything before the client's initialize (mcp-sse-proxy's shape)", () => {
  it("makes the bridges that need a 2026-07-28 client n/a, saying the relay answered none of its requests, never error", () => {
    const results = resultsOf(runs.initializeFirst);
    expect(results.cells.filter((c) => c.status === "error").map(describeCell)).toEqual([]);
    const cases = new Map(
      results.cells
        .filter((c) => c.row === "sampling-relay-adapts-to-downstream-era")
        .flatMap((c) => c.cases.map((k) => [k.id, k])),
    );
    for (const id of ["legacy-upstream-to-mrtr-answerer", "mrtr-array-result-to-older-upstream"]) {
      expect(cases.get(id)?.status, id).toBe("skip");
      expect(cases.get(id)?.na, id).toBe(true);
      expect(cases.get(id)?.reason, id).toMatch(
        /^the relay does not bridge a 2026-07-28 client to a 2024-11-05 upstream: it answered none of the client's requests \(server\/discover[^)]*\) within the 15000 ms start-up deadline/,
      );
    }
    // The legacy client is served as the independent relay behind the pipe serves it.
    expect(cases.get("array-result-to-older-upstream")?.status).toBe("pass");
    expect(results.cells.find((c) => c.row === "sampling-relay-roundtrip")?.status).toBe("pass");
  });
});

describe("a gateway that answers every JSON-RPC error with HTTP 400", () => {
  it("gets the same verdict in every cell and case as its twin answering errors with HTTP 200", () => {
    const [a, b] = [resultsOf(runs.errors400), resultsOf(runs.errors200)];
    expect(a.cells.length).toBeGreaterThan(0);
    expect(differences(a, b)).toEqual([]);
    expect(a.cells.filter((c) => c.status === "error").map(describeCell)).toEqual([]);
  });

  it("really answered errors with HTTP 400: a -1, a -32603, a -32021 and a -32602 came back on a 400, and the session went on", () => {
    const seen = new Map<number, string[]>();
    for (const [row, id] of [
      ["sampling-relay-adapts-to-downstream-era", "legacy-decline-becomes-absent-input"],
      ["sampling-relay-adapts-to-downstream-era", "legacy-expiry-becomes-absent-input"],
      ["sampling-mrtr-server-missing-capability-error", "sampling-not-declared-is-32021"],
      ["sampling-message-must-have-role-and-content", "message-without-role-client"],
    ] as const) {
      const evidence = evidenceOf(runs.errors400, row, id, MODERN);
      const refused = evidence.frames.filter((f) => f.end === "downstream" && f.httpStatus === 400);
      expect(refused, `${row}/${id}`).toHaveLength(1);
      const error = (refused[0]!.message as { error?: { code: number } }).error;
      seen.set(error!.code, [...(seen.get(error!.code) ?? []), id]);
      // The twin answered the same error with 200: no status recorded.
      const twin = evidenceOf(runs.errors200, row, id, MODERN);
      expect(twin.frames.filter((f) => f.httpStatus !== undefined)).toEqual([]);
    }
    expect([...seen.keys()].sort((x, y) => x - y)).toEqual([-32603, -32602, -32021, -1]);
  });
});

describe("a gateway that opens a new upstream per request", () => {
  it("over stdio: the same verdict in every cell and case as the one-upstream-per-session twin, but the retry's id", () => {
    const [a, b] = [resultsOf(runs.perRequest), resultsOf(runs.perSession)];
    expect(a.cells.length).toBeGreaterThan(0);
    // 2026-07-28: its retry goes up on a new process under id 1, the call's id. The rule ("The JSON-RPC id MUST be
    // different between the initial request and the retry", basic/patterns/mrtr.mdx) has no connection scope in a
    // stateless revision, so that cell and its case fail; the twin's retry has a new id on its one upstream.
    // Every 2026-07-28 case's retry counts toward that row, so the row's cases from other rows differ with it.
    const diff = differences(a, b);
    expect(diff).toContain("sampling-mrtr-retry-new-id @2026-07-28 (client): fail ≠ pass");
    expect(diff.filter((d) => !d.startsWith("sampling-mrtr-retry-new-id"))).toEqual([]);
    expect(diff.filter((d) => d.includes("/retry-uses-new-id @2026-07-28"))).toEqual([
      expect.stringMatching(
        /: fail: The retry reused the original request's JSON-RPC id 1 \(on another upstream connection: the rule holds whatever connection carries the retry\)/,
      ),
    ]);
    expect(a.cells.filter((c) => c.status === "error").map(describeCell)).toEqual([]);
    // A raw pass-through: it relays (the round trip passes) and validates nothing (the tool-shape refusals fail).
    const status = (row: string, era: string) =>
      a.cells.find((c) => c.row === row && c.era === era && c.side !== "server")?.status;
    expect(status("sampling-relay-roundtrip", "2025-11-25")).toBe("pass");
    expect(status("sampling-relay-roundtrip", MODERN)).toBe("pass");
    expect(status("sampling-client-errors-user-rejected-and-tool-shape", "2025-11-25")).toBe("fail");
    expect(status("sampling-mrtr-retry-new-id", MODERN)).toBe("fail");
  });

  it("over stdio: every call went on a process of its own, initialized by the gateway with ids from 1", () => {
    const legacy = upstreamRequests(
      evidenceOf(runs.perRequest, "sampling-relay-roundtrip", "text-roundtrip", "2025-11-25").frames,
    );
    const call = legacy.find((f) => f.message.method === "tools/call");
    expect(call?.session).toMatch(/^upstream-\d+$/);
    expect(
      legacy.filter((f) => f.session === call?.session).map((f) => [f.message.id, f.message.method]),
    ).toEqual([
      [1, "initialize"],
      [undefined, "notifications/initialized"],
      [2, "tools/call"],
    ]);
    // The twin: the session's one upstream (unlabelled), no handshake in the case.
    const twin = upstreamRequests(
      evidenceOf(runs.perSession, "sampling-relay-roundtrip", "text-roundtrip", "2025-11-25").frames,
    );
    expect(twin.map((f) => [f.session, f.message.method])).toEqual([[undefined, "tools/call"]]);
    // 2026-07-28: the call and its retry, each alone on a new process, both id 1.
    const modern = upstreamRequests(
      evidenceOf(runs.perRequest, "sampling-mrtr-retry-new-id", "retry-uses-new-id", MODERN).frames,
    ).filter((f) => f.message.method === "tools/call");
    expect(modern.map((f) => f.message.id)).toEqual([1, 1]);
    expect(new Set(modern.map((f) => f.session)).size).toBe(2);
  });

  it("over Streamable HTTP: the same verdicts as the twin holding one upstream session, each call on a session of its own", () => {
    const [a, b] = [resultsOf(runs.perRequestHttp), resultsOf(runs.perSessionHttp)];
    expect(a.cells.length).toBeGreaterThan(0);
    // A gateway holding no upstream session between calls has no connection for a request the upstream sends after
    // the call (a detached case): n/a there, judged on the twin. Nothing else may differ.
    const unsent = (d: string) => d.includes(`skip: ${DETACHED_UNSENT}`);
    expect(differences(a, b).filter((d) => !unsent(d))).toEqual([]);
    expect(a.cells.filter((c) => c.status === "error").map(describeCell)).toEqual([]);
    const frames = upstreamRequests(
      evidenceOf(runs.perRequestHttp, "sampling-relay-roundtrip", "text-roundtrip", "2025-11-25").frames,
    );
    const call = frames.find((f) => f.message.method === "tools/call");
    const first = frames.find((f) => f.message.method === "initialize");
    expect(call?.session).toBe(first?.session);
    expect(first?.message.id).toBe(1);
    const twin = upstreamRequests(
      evidenceOf(runs.perSessionHttp, "sampling-relay-roundtrip", "text-roundtrip", "2025-11-25").frames,
    );
    expect(twin.some((f) => f.message.method === "initialize")).toBe(false);
  });
});
