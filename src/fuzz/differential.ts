import fc from "fast-check";
import { ControlServer } from "../harness/channels.ts";
import { RelaySession } from "../harness/session.ts";
import { type CaseVerdict, judgeCase } from "../judge/case.ts";
import { FIDELITY_CHECKS } from "../judge/checks/delivered.ts";
import { fidelityBroken, responseIdChanged } from "../judge/checks/fuzz.ts";
// A response under another id breaks the round trip's row ("Responses MUST include the same ID ...").
import { ROUNDTRIP_ROW } from "../model/case-key.ts";
import type { Frame, Observation } from "../model/evidence.ts";
import type { TargetProfile } from "../model/target.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";
import type { SamplingCapabilities } from "../validator/types.ts";
import { legalExchange } from "./arbitraries.ts";
import { requestIds, uniqueId } from "./ids.ts";
import { mutation } from "./mutations.ts";
import {
  CONTENT_UNCHANGED_ROW,
  describeFidelity,
  type Exchange,
  type FidelityDifference,
  fidelity,
  oracle,
} from "./oracle.ts";
import { pairingProblem } from "./pairing.ts";

/** The answerer declares tools so that every generated tool loop is legal to send; the oracle knows it. */
export const FUZZ_CAPABILITIES: SamplingCapabilities = { sampling: { tools: {} } };

const PLACEHOLDER_RESULT = {
  role: "assistant",
  content: { type: "text", text: "fuzz answer" },
  model: "fuzz-model",
};

/**
 * Legal exchanges and single mutations of them, half and half; in the legacy eras each under a JSON-RPC id from the
 * whole id space (src/fuzz/ids.ts), whose response must pair with it unchanged.
 */
export function exchanges(era: Era): fc.Arbitrary<Exchange> {
  const exchange = fc.oneof(
    legalExchange(era, { maxRounds: 3 }).map((x) => ({ params: x.params, result: x.result })),
    mutation(era).map((m) => ({ params: m.params, result: m.result ?? PLACEHOLDER_RESULT })),
  );
  if (isModernEra(era)) return exchange;
  return fc.tuple(exchange, requestIds()).map(([x, id]) => ({ ...x, id }));
}

export interface FuzzCounterexample {
  exchange: Exchange;
  /** The row the disagreement breaks: the oracle's, or sampling-relay-content-unchanged for a fidelity one. */
  row: string;
  side: "client" | "server" | "intermediary";
  says: string;
  expect: ReturnType<typeof oracle>["expect"];
  verdict: CaseVerdict;
  observation: Observation;
  frames: Frame[];
  negotiated: { upstream: string | null; downstream: string | null };
  /** Set when the relay delivered a legal exchange but changed it on the way. */
  fidelity?: FidelityDifference[];
}

/** The judge's own fidelity checks, which the fuzzer's say better (with values). */
const JUDGE_FIDELITY: ReadonlySet<string> = new Set(FIDELITY_CHECKS);

/**
 * The differential verdict on one exchange: the judge's verdict on the oracle's expectation, and, where the oracle
 * says the exchange is legal, fidelity checked here as well (whatever the judge's scoping of `unchanged`): any
 * difference between what was sent and what was delivered, either way, is a disagreement on
 * sampling-relay-content-unchanged.
 */
export function differential(
  says: ReturnType<typeof oracle>,
  verdict: CaseVerdict,
  observation: Observation,
  frames: Frame[] = [],
): {
  agree: boolean;
  row: string;
  side: FuzzCounterexample["side"];
  verdict: CaseVerdict;
  fidelity?: FidelityDifference[];
} {
  // Whatever the exchange, a response must come back under its request's id: else the round trip itself is broken.
  const unpaired = pairingProblem(frames);
  if (unpaired !== undefined)
    return {
      agree: false,
      row: ROUNDTRIP_ROW,
      side: "intermediary",
      verdict: {
        status: "fail",
        reason: `${unpaired.charAt(0).toUpperCase()}${unpaired.slice(1)}`,
        checks: [...verdict.checks, responseIdChanged(unpaired)],
      },
    };
  const delivered = says.expect.find((e) => e.outcome === "delivered");
  const dropped = Object.keys((delivered?.outcome === "delivered" && delivered.dropped) || {});
  const diffs = says.row === CONTENT_UNCHANGED_ROW ? fidelity(observation, dropped) : [];
  if (diffs.length === 0)
    return { agree: verdict.status === "pass", row: says.row, side: says.side, verdict };
  const checks = diffs.map((d) => fidelityBroken(d.document, describeFidelity(d)));
  const others = verdict.checks
    .filter((c) => !c.ok && (c.level ?? "must") === "must" && !JUDGE_FIDELITY.has(c.id))
    .map((c) => c.detail);
  const said = [...diffs.map(describeFidelity), ...others].join("; ");
  const reason = `${said.charAt(0).toUpperCase()}${said.slice(1)}`;
  return {
    agree: false,
    row: CONTENT_UNCHANGED_ROW,
    side: "intermediary",
    verdict: { status: "fail", reason, checks: [...verdict.checks, ...checks] },
    fidelity: diffs,
  };
}

export interface FuzzEraReport {
  era: Era;
  seed: number;
  runs: number;
  /**
   * Exchanges per oracle branch among the generated runs. A stream that fails stops generating there: the candidates
   * fast-check then runs while it shrinks are not counted (they would fill the count with variants of one exchange).
   */
  branches: Record<string, number>;
  durationMs: number;
  /** The minimal disagreement fast-check shrank to, when the relay disagreed with the validator. */
  counterexample?: FuzzCounterexample;
  /** Set when the harness could not fuzz at all. */
  error?: string;
}

/** What fuzzing one target needs. */
export interface FuzzOptions {
  profile: TargetProfile;
  profileFile?: string;
  eras: Era[];
  runs: number;
  seed: number;
  /** The most bytes of one frame the evidence keeps (default DEFAULT_MAX_FRAME_BYTES, src/harness/frames.ts). */
  maxFrameBytes?: number;
  /** Eras fuzzed at the same time, each on its own relay session (default 1). */
  concurrency?: number;
}

/**
 * Differential fuzzing: generated exchanges go through the relay on one long-lived session per era, and the
 * relay's observable behaviour is checked against the reference validator's verdict. fast-check shrinks any
 * disagreement to a minimal exchange, re-running each candidate through the real relay. Eras are independent (their
 * own session, property and seed), so up to `concurrency` of them run at once; reports come back in era order.
 */
export async function fuzzTarget(options: FuzzOptions): Promise<FuzzEraReport[]> {
  const control = new ControlServer();
  await control.start();
  const reports = new Array<FuzzEraReport>(options.eras.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < options.eras.length; i = next++)
      reports[i] = await fuzzEra(options.eras[i]!, options, control);
  };
  try {
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 1, options.eras.length)) }, lane),
    );
  } finally {
    await control.close();
  }
  return reports;
}

/**
 * A 2026-07-28 exchange that the relay rightly refuses ends in silence: the upstream waits out the settle time for a
 * retry that never comes (about a quarter of a second an exchange on average, against a few ms for one that is
 * answered). The era's runs are therefore cut into streams, each a fast-check property of its own on its own relay
 * session, run side by side: their waits overlap. The cut depends on the run count only (never on the machine), so a
 * seed gives the same exchanges anywhere. Legacy exchanges do not wait: one stream.
 */
const WAITING_STREAMS = 8;
const RUNS_PER_STREAM_AT_LEAST = 25;

/** The streams of an era: stream 0 keeps the run's seed, the others derive theirs from it. */
export function fuzzStreams(
  era: Era,
  runs: number,
  seed: number,
): Array<{ index: number; runs: number; seed: number }> {
  const count = isModernEra(era)
    ? Math.max(1, Math.min(WAITING_STREAMS, Math.floor(runs / RUNS_PER_STREAM_AT_LEAST)))
    : 1;
  return Array.from({ length: count }, (_, index) => ({
    index,
    runs: Math.floor(runs / count) + (index < runs % count ? 1 : 0),
    seed: index === 0 ? seed : (seed + Math.imul(index, 0x9e3779b1)) | 0,
  }));
}

/** One era: its streams side by side, their branches added up, the first stream's counterexample (or error) kept. */
async function fuzzEra(era: Era, options: FuzzOptions, control: ControlServer): Promise<FuzzEraReport> {
  const t0 = performance.now();
  const streams = await Promise.all(
    fuzzStreams(era, options.runs, options.seed).map((stream) => fuzzStream(era, stream, options, control)),
  );
  const branches: Record<string, number> = {};
  for (const s of streams)
    for (const [b, count] of Object.entries(s.branches)) branches[b] = (branches[b] ?? 0) + count;
  const report: FuzzEraReport = {
    era,
    seed: options.seed,
    runs: options.runs,
    branches,
    durationMs: Math.round(performance.now() - t0),
  };
  const failed = streams.find((s) => s.counterexample || s.error);
  if (failed?.counterexample) report.counterexample = failed.counterexample;
  if (failed?.error) report.error = failed.error;
  return report;
}

// Long: one fast-check property whose body is the relay session's lifecycle (open, run, reopen, close).
async function fuzzStream(
  era: Era,
  stream: { index: number; runs: number; seed: number },
  options: FuzzOptions,
  control: ControlServer,
): Promise<Pick<FuzzEraReport, "branches" | "counterexample" | "error">> {
  const branches: Record<string, number> = {};
  let session: RelaySession | undefined;
  // The ids sent on the current session: a generated id already used there is made unique (uniqueId).
  let usedIds = new Set<string>();
  let last: FuzzCounterexample | undefined;
  let n = 0;
  // Set at the first disagreement: every run after it is a shrink candidate, not a generated exchange.
  let shrinking = false;
  // Stream 0 names its exchanges as a single stream always did; the others carry their index.
  const name = (i: number) => (stream.index === 0 ? `${i}` : `${stream.index}.${i}`);
  const agrees = async (exchange: Exchange): Promise<boolean> => {
    if (!session || session.broken) {
      await session?.close();
      session = await RelaySession.open({
        profile: options.profile,
        profileFile: options.profileFile,
        era,
        capabilities: FUZZ_CAPABILITIES as Record<string, unknown>,
        control,
        ...(options.maxFrameBytes ? { maxFrameBytes: options.maxFrameBytes } : {}),
      });
      usedIds = new Set();
    }
    const says = oracle(exchange, era, FUZZ_CAPABILITIES);
    const branch = `${says.row}/${says.side}`;
    if (!shrinking) branches[branch] = (branches[branch] ?? 0) + 1;
    n++;
    const requestId = exchange.id !== undefined ? uniqueId(exchange.id, usedIds) : undefined;
    const out = await session.runCase({
      caseKey: `fuzz/${era}/${name(n)}`,
      params: exchange.params,
      answer: { action: "accept", result: exchange.result },
      ...(requestId !== undefined ? { requestId } : {}),
    });
    const judged = judgeCase({
      expect: says.expect,
      era,
      severity: "failure",
      observation: out.observation,
      canary: `fuzz-no-canary-${name(n)}`,
      capabilities: FUZZ_CAPABILITIES,
    });
    const { agree, ...d } = differential(says, judged, out.observation, out.frames);
    if (agree) return true;
    // The id it went under (made unique on the session), so the counterexample names the one on the wire.
    last = {
      exchange: requestId !== undefined ? { ...exchange, id: requestId } : exchange,
      ...says,
      ...d,
      ...out,
    };
    return false;
  };
  const property = fc.asyncProperty(exchanges(era), async (exchange) => {
    const ok = await agrees(exchange).catch((error: unknown) => {
      shrinking = true;
      throw error;
    });
    if (!ok) shrinking = true;
    return ok;
  });
  try {
    const result = await fc.check(property, { numRuns: stream.runs, seed: stream.seed, endOnFailure: false });
    if (!result.failed || !result.counterexample) return { branches };
    // The last failing run fast-check saw is the shrunk counterexample (judged when it ran).
    return {
      branches,
      ...(last ? { counterexample: last } : {}),
      ...(result.errorInstance ? { error: String(result.errorInstance) } : {}),
    };
  } catch (error) {
    return { branches, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await (session as RelaySession | undefined)?.close();
  }
}
