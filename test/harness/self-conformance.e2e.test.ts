import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FrameRecorder } from "../../src/harness/frames.ts";
import { RelaySession, type SessionOptions } from "../../src/harness/session.ts";
import { run } from "../../src/index.ts";
import type { Frame } from "../../src/model/evidence.ts";
import { type EndEras, frameContexts, schemaFindings } from "../../src/model/wire-schema.ts";
import { ERAS, type Era } from "../../src/protocol/eras.ts";
import { checkFrame } from "../../src/protocol/mcp-schema.ts";
import { validateRequest, validateResult } from "../../src/validator/index.ts";

/**
 * The harness must be conformant itself: every frame it sends, at both ends and in every era, is checked against the
 * official JSON Schema of the revision that end speaks (src/protocol/schema/, vendored from the spec repository). A
 * relay that validates what it receives would otherwise refuse the harness, and every cell of that era would be the
 * harness's error. The corpus sends deliberately illegal sampling requests and results (that is what it tests):
 * exactly the scripted payloads the reference validator calls illegal are exempt (replaced by a legal stand-in, so the
 * frame around them is still checked); everything else is checked as sent.
 *
 * The frames come from every relay session the runs open (RelaySession.open, whose recorder has the session's whole
 * wire: initialize, tools/list, … before the first case) and from the evidence of two-session cases (a relay of
 * their own). Every profile the harness drives the reference relay with: stdio at both ends (every era), an HTTP
 * upstream (legacy sessions, the standalone stream, 2026-07-28 POSTs) and HTTP at both ends (2026-07-28).
 */

const ROOT = resolve(import.meta.dirname, "../..");

/** Cases that make the harness send every kind of frame it has, kept few so the test stays fast. */
const CASES = [
  "sampling-relay-roundtrip/*", // accept, at every era's start
  "sampling-client-errors-user-rejected/decline-is-minus-1", // decline (an error response)
  "sampling-relay-error-not-stacked/message-relayed-verbatim", // a scripted error response
  "sampling-messages-not-retained-between-requests/second-request-only-its-own", // a sequence: several requests
  "sampling-relay-content-unchanged/meta-and-unknown-fields", // _meta and unknown fields everywhere
  "sampling-client-declare-tools-capability/tools-declared-and-relayed", // tools and the tools capability
  "sampling-both-validate-message-content/middle-image-bad-base64", // an illegal request (exempt)
  "sampling-both-validate-message-content/result-missing-model", // an illegal result (exempt)
  "sampling-mrtr-input-request-keys-unique/two-keys-own-answers", // 2026-07-28: two inputRequests, one retry
  "sampling-mrtr-request-state-echoed/no-request-state-none-invented", // 2026-07-28: no requestState
  "sampling-relay-adapts-to-downstream-era/legacy-upstream-to-mrtr-answerer", // bridging: ends in two eras
  "sampling-relay-adapts-to-downstream-era/mrtr-upstream-to-legacy-answerer",
  "sampling-relay-unrelated-requests/standalone-stream", // HTTP upstream: the standalone GET stream
  "sampling-relay-answers-only-the-asker/asker-session-only", // two sessions (HTTP downstream)
].join(",");

const PROFILES = [
  "targets/reference.yaml",
  "targets/reference-http-upstream.yaml",
  "targets/reference-http.yaml",
];

/** A legal stand-in for an exempt payload: the frame around it is still checked. */
const STAND_IN_REQUEST = { messages: [], maxTokens: 1 };
const STAND_IN_RESULT = { role: "assistant", model: "stand-in", content: { type: "text", text: "" } };

interface Transcript {
  source: string;
  eras: EndEras;
  frames: Array<Omit<Frame, "t">>;
}

interface Checked {
  source: string;
  /** What kind of frame the harness sent, e.g. `upstream result:tools/list` (coverage). */
  kind: string;
  era: Era;
  exempt: number;
  findings: string[];
}

const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function kindOf(frame: Omit<Frame, "t">, answers: string | undefined): string {
  const m = frame.message as Record<string, any>;
  if (typeof m.method === "string") {
    const retry = m.method === "tools/call" && isObject(m.params?.inputResponses) ? "#retry" : "";
    return `${frame.end} ${"id" in m ? "request" : "notification"}:${m.method}${retry}`;
  }
  const inputRequired = m.result?.resultType === "input_required" ? "#input_required" : "";
  return `${frame.end} ${"error" in m ? "error" : "result"}:${answers ?? "?"}${inputRequired}`;
}

/**
 * The harness's frame with every scripted sampling payload the reference validator calls illegal replaced by a
 * stand-in: a request the upstream sends (legacy: the request; 2026-07-28: each inputRequests entry), a result the
 * answerer gives (legacy: its response; 2026-07-28: each inputResponses entry of a retry).
 */
function withoutIllegalPayloads(
  frame: Omit<Frame, "t">,
  era: Era,
  asked: (id: unknown) => unknown,
  inputRequests: Record<string, any>,
  answers: string | undefined,
): { message: unknown; exempt: number } {
  const m = frame.message as Record<string, any>;
  let exempt = 0;
  const legalRequest = (params: unknown) => validateRequest(params, { era }).legal;
  if (frame.end === "upstream" && m.method === "sampling/createMessage" && !legalRequest(m.params))
    return { message: { ...m, params: STAND_IN_REQUEST }, exempt: 1 };
  if (frame.end === "upstream" && isObject(m.result?.inputRequests)) {
    const requests = { ...m.result.inputRequests };
    for (const [key, r] of Object.entries<any>(requests))
      if (r?.method === "sampling/createMessage" && !legalRequest(r.params)) {
        requests[key] = { ...r, params: STAND_IN_REQUEST };
        exempt++;
      }
    return { message: { ...m, result: { ...m.result, inputRequests: requests } }, exempt };
  }
  if (frame.end === "downstream" && answers === "sampling/createMessage" && "result" in m) {
    const legal = validateResult(m.result, { era, request: asked(m.id) }).legal;
    return legal ? { message: m, exempt: 0 } : { message: { ...m, result: STAND_IN_RESULT }, exempt: 1 };
  }
  if (frame.end === "downstream" && m.method === "tools/call" && isObject(m.params?.inputResponses)) {
    const responses = { ...m.params.inputResponses };
    for (const [key, r] of Object.entries<any>(responses)) {
      const request = inputRequests[key];
      if (request?.method !== "sampling/createMessage") continue;
      if (validateResult(r, { era, request: request.params }).legal) continue;
      responses[key] = STAND_IN_RESULT;
      exempt++;
    }
    return { message: { ...m, params: { ...m.params, inputResponses: responses } }, exempt };
  }
  return { message: m, exempt: 0 };
}

/** Every frame the harness sent in one transcript, checked against its end's revision. */
function checkTranscript(t: Transcript): Checked[] {
  const contexts = frameContexts(t.frames, t.eras);
  const asked = new Map<string, unknown>();
  let inputRequests: Record<string, any> = {};
  const out: Checked[] = [];
  t.frames.forEach((frame, i) => {
    if (frame.end !== "upstream" && frame.end !== "downstream") return;
    const m = frame.message as Record<string, any> | undefined;
    if (frame.dir === "from-relay") {
      // What the relay asked the answerer: the request a scripted result answers.
      if (frame.end === "downstream" && m?.method === "sampling/createMessage")
        asked.set(`${frame.session} ${JSON.stringify(m.id)}`, m.params);
      if (frame.end === "downstream" && m?.result?.resultType === "input_required")
        inputRequests = isObject(m.result.inputRequests) ? m.result.inputRequests : {};
      return;
    }
    const context = contexts[i];
    if (!context || !isObject(m)) {
      out.push({
        source: `${t.source} #${i}`,
        kind: `${frame.end} unparsed`,
        era: t.eras[frame.end],
        exempt: 0,
        findings: ["the harness sent a frame that is not a JSON-RPC message"],
      });
      return;
    }
    const { message, exempt } = withoutIllegalPayloads(
      frame,
      context.era,
      (id) => asked.get(`${frame.session} ${JSON.stringify(id)}`),
      inputRequests,
      context.answers,
    );
    const findings = checkFrame(message, context).map(
      (f) => `${f.definition} ${f.pointer || "/"}: ${f.message}`,
    );
    out.push({
      source: `${t.source} #${i}`,
      kind: kindOf(frame, context.answers),
      era: context.era,
      exempt,
      findings,
    });
  });
  return out;
}

const checked: Checked[] = [];
/** What the official schema says of the reference relay's own frames (its whole wire, start-up included). */
const relayFindings: string[] = [];

beforeAll(async () => {
  const sessions: Array<{ options: SessionOptions; session: RelaySession }> = [];
  const open = RelaySession.open.bind(RelaySession);
  // Every frame of every session is read at the end: the recorder lets none go while this runs.
  const keep = vi.spyOn(FrameRecorder.prototype, "release").mockImplementation(() => {});
  const spy = vi.spyOn(RelaySession, "open").mockImplementation(async (options) => {
    const session = await open(options);
    sessions.push({ options, session });
    return session;
  });
  const transcripts: Transcript[] = [];
  try {
    // The profiles run at once: a run mostly waits on its relays.
    await Promise.all(
      PROFILES.map(async (profile) => {
        const out = mkdtempSync(join(tmpdir(), "self-conformance-"));
        const { results } = await run({ target: join(ROOT, profile), case: CASES, out, quiet: true });
        // Two-session cases run on a relay of their own: their evidence holds that relay's whole wire.
        for (const c of results.cells.flatMap((cell) => cell.cases)) {
          if (!c.evidence) continue;
          const evidence = JSON.parse(readFileSync(join(out, c.evidence), "utf8"));
          if (evidence.case.definition?.sessions !== 2) continue;
          const era = evidence.era as Era;
          const eras = { upstream: era, downstream: era };
          transcripts.push({ source: `${profile} ${c.evidence}`, eras, frames: evidence.frames });
        }
      }),
    );
  } finally {
    spy.mockRestore();
    keep.mockRestore();
  }
  for (const { options, session } of sessions) {
    const eras = { upstream: options.era, downstream: options.downstreamEra ?? options.era };
    const source = `${options.profile.name} session ${eras.upstream}/${eras.downstream}`;
    transcripts.push({ source, eras, frames: session.recorder.since(0) });
  }
  for (const t of transcripts) {
    checked.push(...checkTranscript(t));
    for (const f of schemaFindings(t.frames, t.eras, "from-relay").findings)
      relayFindings.push(
        `${f.era} ${f.end} (${t.source} #${f.frame}): ${f.definition} ${f.pointer || "/"}: ${f.message}`,
      );
  }
}, 120_000);

afterAll(() => vi.restoreAllMocks());

describe("every frame the harness sends conforms to the official MCP schema of its era", () => {
  it("no frame of the harness breaks its revision's schema (scripted illegal payloads exempt)", () => {
    const broken = checked
      .filter((c) => c.findings.length > 0)
      .map((c) => `${c.era} ${c.kind} (${c.source}): ${c.findings.join("; ")}`);
    // One line per kind of frame: the same fault repeats in every session.
    const byKind = new Map<string, string>();
    for (const line of broken) {
      const kind = line.split(" (")[0]!;
      if (!byKind.has(kind)) byKind.set(kind, line);
    }
    expect([...byKind.values()]).toEqual([]);
  });

  it("the reference relay, the known-good target, conforms too (every frame it sent to either end)", () => {
    expect(relayFindings).toEqual([]);
  });

  it("covers every kind of frame the harness sends, in every era", () => {
    const seen = new Set(checked.map((c) => `${c.era} ${c.kind}`));
    const legacy = [
      "upstream result:initialize",
      "upstream result:tools/list",
      "upstream result:tools/call",
      "upstream request:sampling/createMessage",
      "downstream request:initialize",
      "downstream notification:notifications/initialized",
      "downstream request:tools/list",
      "downstream request:tools/call",
      "downstream result:sampling/createMessage",
      "downstream error:sampling/createMessage",
    ];
    const modern = [
      "upstream result:server/discover",
      "upstream result:tools/list",
      "upstream result:tools/call#input_required",
      "upstream result:tools/call",
      "downstream request:server/discover",
      "downstream request:tools/list",
      "downstream request:tools/call",
      "downstream request:tools/call#retry",
    ];
    const expected = ERAS.flatMap((era) =>
      (era === "2026-07-28" ? modern : legacy).map((k) => `${era} ${k}`),
    );
    expect(expected.filter((k) => !seen.has(k))).toEqual([]);
    // The exemption is exercised, and legal sampling payloads are checked, not exempt.
    expect(checked.some((c) => c.exempt > 0)).toBe(true);
    expect(
      checked.filter((c) => c.kind.endsWith("request:sampling/createMessage") && c.exempt === 0).length,
    ).toBeGreaterThan(0);
  });
});
