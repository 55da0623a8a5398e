import { z } from "zod";
import { CellSideSchema, EraSchema } from "./register.ts";
import { CaseStatusSchema } from "./results.ts";

/**
 * One evidence transcript: everything needed to audit one case × era verdict without re-running it.
 * Written to evidence/<row>/<case>@<era>.json; its sha256 is recorded in results.json.
 */

/** Which end of the relay the harness saw a frame at. */
export const EndSchema = z.enum(["upstream", "downstream", "review", "control"]);
/** Direction relative to the relay under test. */
export const DirSchema = z.enum(["to-relay", "from-relay"]);

export const FrameSchema = z.object({
  /** Milliseconds since the case started. */
  t: z.number(),
  end: EndSchema,
  dir: DirSchema,
  /**
   * The parsed JSON-RPC message; when a frame was not valid JSON, or was longer than the evidence keeps
   * (`truncated`), `raw` holds its text instead.
   */
  message: z.unknown().optional(),
  raw: z.string().optional(),
  /** The frame's true length in UTF-8 bytes, when `raw` holds only its beginning. */
  size: z.number().int().nonnegative().optional(),
  /** The sha256 (hex) of the whole frame's UTF-8 bytes, when `raw` holds only its beginning. */
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /**
   * The frame was longer than the evidence keeps per frame (`run --max-evidence-frame-bytes`, 64 KiB by default, or
   * less where the evidence file's size budget made it so): `raw` is its beginning, at most that many UTF-8 bytes.
   */
  truncated: z.literal(true).optional(),
  /** Which downstream session (or upstream connection) saw it, when there are several. */
  session: z.string().optional(),
  /**
   * The HTTP status the frame came with, when it was not 2xx: a JSON-RPC error in the body of an HTTP 4xx answers
   * the request of its POST (SDKs map -32602 and others to HTTP 400 on Streamable HTTP).
   */
  httpStatus: z.number().int().optional(),
});
export type Frame = z.infer<typeof FrameSchema>;

/** A frame as an evidence file holds it: `--stable` output records no `t` (the frames keep the order they were seen). */
export const RecordedFrameSchema = FrameSchema.extend({
  /** Milliseconds since the case started; absent in `--stable` output. */
  t: z.number().optional(),
});

export const CheckSchema = z.object({
  id: z.string(),
  ok: z.boolean(),
  detail: z.string(),
  /**
   * must (default): a failure fails the case; advisory: a failure makes it warn (e.g. message wording); info:
   * recorded for the reader, judged elsewhere (a fidelity difference outside the case's rule, a finding that
   * counts toward another row).
   */
  level: z.enum(["must", "advisory", "info"]).optional(),
  /** The validator rule a finding check is about. */
  rule: z.string().optional(),
  /** The register cell a check counts toward when it is not the case's own. */
  countsFor: z.object({ row: z.string(), side: CellSideSchema }).optional(),
  /** A time the harness measured that the check rests on (expiry-in-time: ms from request to expiry); not in `--stable` output. */
  measuredMs: z.number().optional(),
});
export type Check = z.infer<typeof CheckSchema>;

/** What the upstream finally got back for its sampling request. */
export const UpstreamOutcomeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("result"), result: z.unknown() }),
  z.object({
    kind: z.literal("error"),
    error: z.object({ code: z.unknown(), message: z.unknown(), data: z.unknown().optional() }).loose(),
  }),
  /** 2026-07-28: no response for the input (no retry, or a retry without the key). */
  z.object({ kind: z.literal("withheld"), detail: z.string() }),
  /**
   * Nothing came back before the harness's deadline: `deadlineMs`, the fixed wait the harness upstream gives the case
   * (from the profile's `caseTimeoutMs`); `afterMs`, how long it measured (absent in `--stable` output).
   */
  z.object({ kind: z.literal("timeout"), deadlineMs: z.number().optional(), afterMs: z.number().optional() }),
  /** The relay broke the exchange (crashed, closed, sent garbage). */
  z.object({ kind: z.literal("broken"), detail: z.string() }),
]);
export type UpstreamOutcome = z.infer<typeof UpstreamOutcomeSchema>;

/** One sampling request of a case that sends several (sequence:, mrtr.keys:): what the upstream sent and got back. */
export const SequenceEntrySchema = z.object({
  /** 0-based: requests of one round were sent at once (a burst, several inputRequests), rounds one after another. */
  round: z.number().int().nonnegative(),
  /** 2026-07-28: its inputRequests key. */
  key: z.string().optional(),
  /** The token its `{{canary}}` became (the answer to it carries the same token). */
  token: z.string(),
  sent: z.unknown(),
  outcome: UpstreamOutcomeSchema,
});
export type SequenceEntry = z.infer<typeof SequenceEntrySchema>;

export const ObservationSchema = z.object({
  /** Params the harness upstream sent. */
  sent: z.unknown(),
  /** Sampling request params the answerer received during this case, in order. */
  asked: z.array(z.unknown()),
  /** Questions the relay's review surface showed and what the harness reviewer decided (review targets). */
  reviews: z
    .array(
      z.object({
        stage: z.enum(["request", "response"]),
        question: z.record(z.string(), z.unknown()),
        decision: z.object({
          action: z.string(),
          params: z.unknown().optional(),
          result: z.unknown().optional(),
          note: z.string().optional(),
        }),
        status: z.number().optional(),
        /** What a broker recorded for the question (broker targets that declare how to read it back). */
        recorded: z.unknown().optional(),
      }),
    )
    .optional(),
  /** What the model downstream answered, when a reviewer stood between it and the upstream. */
  modelAnswered: z.unknown().optional(),
  /** Client capabilities the relay declared to the upstream (legacy: at initialize). */
  declared: z.unknown().optional(),
  /** What the answerer replied (result or error), when it replied. */
  answered: z.unknown().optional(),
  /** The relay's final response to the answerer's probe call (`{result}` or `{error}`), when one came. */
  callResponse: z.unknown().optional(),
  upstream: UpstreamOutcomeSchema,
  /** Cases that send several sampling requests: each request in order with its outcome (`upstream` is the first's). */
  sequence: z.array(SequenceEntrySchema).optional(),
  /**
   * Other downstream sessions on the same relay (session-isolation cases): what each was asked and answered. The
   * answerer above is session A, the asker, whose tool call caused the sampling request (`sent`).
   */
  bystanders: z
    .array(
      z.object({
        session: z.string(),
        asked: z.array(z.unknown()),
        answered: z.unknown().optional(),
        /**
         * 2026-07-28: the session is a second asker, calling the probe tool itself while A's call is open. `token` is
         * the canary of its own request and answer (neither token contains the other), `upstream` what the upstream
         * got back for its own call; it must be asked its own request only, and its answer must reach its own call.
         */
        token: z.string().optional(),
        upstream: UpstreamOutcomeSchema.optional(),
      }),
    )
    .optional(),
});
export type Observation = z.infer<typeof ObservationSchema>;

/**
 * One scripted action of the harness (src/harness/lateness.ts), timed in ms since the case began: its question
 * reached the answering code at `deliveredMs`, the script made it due `scriptedDelayMs` later, and it was written at
 * `writtenMs` (over HTTP: once its POST was answered); `coreWaitMs`, how long of the time from due to written the
 * harness waited for a core (the kernel's run-queue wait: never time spent reading or parsing the relay's frames).
 */
export const ActionTimingSchema = z.object({
  kind: z.enum(["answer", "decline", "error", "retry", "review"]),
  /** The upstream's request the action answers (the latest before its question): the relay's deadline runs from it. */
  requestAtMs: z.number().optional(),
  deliveredMs: z.number(),
  scriptedDelayMs: z.number(),
  writtenMs: z.number(),
  /** How long the harness waited for a core between the upstream's request and the question's delivery. */
  readWaitMs: z.number(),
  coreWaitMs: z.number(),
});
export type ActionTiming = z.infer<typeof ActionTimingSchema>;

/**
 * How late the harness was for a case, from its latest action that mattered (src/harness/lateness.ts), every time
 * in ms since the case began: the upstream asked at `requestAtMs`; the question of the harness's `kind` reached it
 * at `deliveredMs` (after `readWaitMs` the harness waited for a core since the request), the action was scripted
 * `scriptedDelayMs` later and left at `writtenMs`: `lateMs` late in all while the harness waited for a core;
 * `marginMs`, what the script left before the relay's declared deadline `deadlineMs` counted from the request;
 * `outcomeAtMs`, when the relay's last frame reached the upstream.
 */
export const ActionLatenessSchema = z.object({
  deadlineMs: z.number(),
  kind: ActionTimingSchema.shape.kind,
  requestAtMs: z.number(),
  deliveredMs: z.number(),
  readWaitMs: z.number(),
  scriptedDelayMs: z.number(),
  writtenMs: z.number(),
  lateMs: z.number(),
  marginMs: z.number(),
  outcomeAtMs: z.number().optional(),
});

/**
 * How late the harness was for a case whose own wait ran out (src/harness/lateness.ts, boundLateness): the upstream
 * waited `boundMs` at most for its answer (the harness's case time limit, never the relay's deadline), and a request
 * (`round`, 1-based, of a sequence) had waited `waitedMs` of it when it timed out; meanwhile the harness waited
 * `lateMs` for a core during the case, at least `marginMs` (the time that request had).
 */
export const BoundLatenessSchema = z.object({
  kind: z.literal("bound"),
  boundMs: z.number(),
  round: z.number().int().positive().optional(),
  waitedMs: z.number(),
  lateMs: z.number(),
  marginMs: z.number(),
});

export const HarnessLatenessSchema = z.union([ActionLatenessSchema, BoundLatenessSchema]);
export type HarnessLateness = z.infer<typeof HarnessLatenessSchema>;
export type ActionLateness = z.infer<typeof ActionLatenessSchema>;
export type BoundLateness = z.infer<typeof BoundLatenessSchema>;

/**
 * An attempt of a case that was not judged because the harness was late for it, kept beside the judged one, small:
 * its lateness, how its outcome looked at the upstream, and the heads of its frames (`frames`, each cut to
 * LATE_FRAME_BYTES, at most LATE_FRAMES of them: the first and the last; `frameCount`, how many there were).
 */
export const LateAttemptSchema = z.object({
  lateness: HarnessLatenessSchema,
  /** Absent only in stable output. */
  durationMs: z.number().optional(),
  upstream: z.unknown(),
  frameCount: z.number().int().nonnegative(),
  frames: z.array(RecordedFrameSchema),
});
export type LateAttempt = z.infer<typeof LateAttemptSchema>;

export const EvidenceSchema = z
  .object({
    schema: z.literal("mcpx-conform/evidence@1"),
    tool: z.object({ name: z.string(), version: z.string() }),
    target: z.object({ name: z.string(), profile: z.string().optional() }).loose(),
    seed: z.number(),
    era: EraSchema,
    case: z.object({
      id: z.string(),
      row: z.string(),
      title: z.string(),
      why: z.string(),
      side: CellSideSchema,
      file: z.string().optional(),
      /** The case as it was run (before canary substitution), so that the bundle replays on its own. */
      definition: z.unknown().optional(),
    }),
    /** The canary token that replaced {{canary}} in this run. */
    canary: z.string().optional(),
    rule: z.object({ quote: z.string(), url: z.string(), level: z.string() }).optional(),
    /** Protocol versions negotiated at each hop. */
    negotiated: z.object({ upstream: z.string().nullable(), downstream: z.string().nullable() }),
    /**
     * Written by `run --stable` (src/model/stable.ts): no wall-clock or measured time is recorded (no `startedAt`,
     * `durationMs`, frame `t`, timeout `afterMs`, check `measuredMs`), so two runs write the same bytes.
     */
    stable: z.literal(true).optional(),
    /** When the case started (ISO 8601); absent only in stable output. */
    startedAt: z.string().optional(),
    /** How long the case ran; absent only in stable output. */
    durationMs: z.number().optional(),
    frames: z.array(RecordedFrameSchema),
    observation: ObservationSchema,
    verdict: z.object({ status: CaseStatusSchema, reason: z.string(), checks: z.array(CheckSchema) }),
    /**
     * The official MCP JSON Schema of each end's revision (src/protocol/schema/, vendored from the spec repository at
     * `commit`) on every frame the relay sent to either harness end: a second oracle beside the reference validator,
     * recorded for the reader. It judges no row; on sampling requests and results the reference validator is at least
     * as strict (test/validator/official-schema.test.ts). `frame` is an index into `frames`.
     */
    officialSchema: z
      .object({
        commit: z.string(),
        checked: z.number().int().nonnegative(),
        findings: z.array(
          z.object({
            frame: z.number().int().nonnegative(),
            end: EndSchema,
            era: EraSchema,
            definition: z.string(),
            pointer: z.string(),
            message: z.string(),
          }),
        ),
      })
      .optional(),
    /**
     * Set when this transcript was over its size budget (src/model/evidence-budget.ts: every evidence file is at most
     * 2 MB, and a run's transcripts share 80 MB) at the run's frame cap: `bytes` is the budget, `frameBytes` the cap its
     * frames and observation strings were cut to, `omittedFrames` the frames left out from the middle, if any, and
     * `note` says so in words. Absent in a transcript that fits (every well-behaved relay's).
     */
    budget: z
      .object({
        bytes: z.number().int().positive(),
        frameBytes: z.number().int().positive(),
        omittedFrames: z
          .object({ from: z.number().int().nonnegative(), count: z.number().int().positive() })
          .optional(),
        note: z.string(),
      })
      .optional(),
    /**
     * What the relay wrote on stderr while the case ran (all it had written, when it broke): the end of it, at most
     * 2,000 characters, with the profile's env values and anything credential-shaped redacted. Empty: nothing.
     */
    relayLog: z.string().optional(),
    /**
     * Earlier attempts of this case that were not judged: the harness itself was late for them (its answer may have
     * left after the relay's deadline while the script meant it to leave before). The verdict is this transcript's.
     */
    lateAttempts: z.array(LateAttemptSchema).optional(),
    /**
     * The harness's own scripted actions in this attempt (answers, declines, errors, retries, review decisions): when
     * each question reached it, when each left, and how long it waited for a core meanwhile. Measured times: not in
     * stable output.
     */
    harnessActions: z.array(ActionTimingSchema).optional(),
  })
  .superRefine((e, ctx) => {
    if (e.stable) return;
    for (const key of ["startedAt", "durationMs"] as const)
      if (e[key] === undefined)
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `${key} is required unless the evidence is stable`,
        });
  });
export type Evidence = z.infer<typeof EvidenceSchema>;
