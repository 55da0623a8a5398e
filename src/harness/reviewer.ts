import type { Answer, Review } from "../model/case.ts";
import type { AnswerFor } from "./ends.ts";
import type { FrameRecorder } from "./frames.ts";
import { requestText } from "./http-request.ts";
import type { ActionLog } from "./lateness.ts";
import { REVIEW_LONG_POLL_MS, REVIEW_POLL_MS, REVIEW_REQUEST_TIMEOUT_MS } from "./waits.ts";

/** What the harness reviewer saw on the relay's review surface and what it decided. */
export interface ReviewRecord {
  stage: "request" | "response";
  /** The question as the surface showed it. */
  question: Record<string, unknown>;
  decision: {
    action: "approve" | "answer" | "decline" | "cancel" | "none";
    params?: unknown;
    result?: unknown;
    /** Why the decision could not be carried out as made (a broker without that call, a call that failed). */
    note?: string;
  };
  /** HTTP status of the decision (422 means the relay refused an illegal edit or answer); a command's exit code. */
  status?: number;
  /** What a broker recorded for the question once answered (its `recorded` call), when the profile declares one. */
  recorded?: unknown;
}

/** One case's part of a watch: its script, what its questions showed and what was decided on them. */
export interface CaseScript {
  review: Review | undefined;
  answer: Answer | undefined;
  /** The result for one request, when a case sends several (each answered under its own token). */
  answerFor: AnswerFor | undefined;
  /** The case's canary: a question that shows it belongs to this case, whichever case is scripted now. */
  canary: string | undefined;
  records: ReviewRecord[];
  /** The result the review side supplied itself (a direct or replacing answer), if any. */
  answered: unknown;
  /** The decisions carried out, timed (lateness.ts). */
  actions: ActionLog;
}

/** How many earlier cases' scripts a watcher keeps for their late questions (2026-07-28 cases settle side by side). */
const EARLIER_SCRIPTS = 16;

/**
 * What the review answerers (the reviewer at a relay's own review surface, the broker driven through declared calls)
 * share: the case's script, what each question showed and what was decided, and a watch loop started with the first
 * case and stopped with the session.
 *
 * A case that lets its session go while it settles (2026-07-28) may still have questions open when the next case is
 * scripted (a slow relay, a loaded machine). A question is decided by the script of the case whose canary it shows,
 * and recorded with that case: never by the next case's script, and never in the next case's evidence.
 */
export abstract class ReviewWatcher {
  private current: CaseScript = blankScript();
  private earlier: CaseScript[] = [];
  protected readonly handled = new Set<string>();
  /** The watch loop runs; aborting ends it and any request in flight. */
  private watching: AbortController | undefined;

  /** The scripted case's records (what its questions showed and what was decided). */
  get records(): ReviewRecord[] {
    return this.current.records;
  }

  /** The result the review side supplied itself for the scripted case (a direct or replacing answer), if any. */
  get answered(): unknown {
    return this.current.answered;
  }

  /** The scripted case's decisions as carried out, timed from when each question was seen (lateness.ts). */
  get actions(): ActionLog {
    return this.current.actions;
  }

  script(review: Review | undefined, answer: Answer, answerFor?: AnswerFor, canary?: string): void {
    if (this.current.canary !== undefined)
      this.earlier = [this.current, ...this.earlier].slice(0, EARLIER_SCRIPTS);
    this.current = { review, answer, answerFor, canary, records: [], answered: undefined, actions: [] };
    if (!this.watching) {
      this.watching = new AbortController();
      void this.watch(this.watching.signal);
    }
  }

  /** The script a question belongs to: the case whose canary it shows (the scripted case first), else the scripted one. */
  protected scriptOf(question: unknown): CaseScript {
    const text = JSON.stringify(question) ?? "";
    const shows = (s: CaseScript) => s.canary !== undefined && text.includes(s.canary);
    if (shows(this.current)) return this.current;
    return this.earlier.find(shows) ?? this.current;
  }

  /** The case's accepted result for the request a question shows (its own, in a case of several requests). */
  protected acceptedResult(s: CaseScript, request: unknown): unknown {
    if (s.answer?.action !== "accept") return undefined;
    return s.answerFor?.(request) ?? s.answer.result;
  }

  stop(): void {
    this.watching?.abort();
    this.watching = undefined;
  }

  /** Looks for questions until stopped. */
  protected abstract watch(signal: AbortSignal): Promise<void>;
}

function blankScript(): CaseScript {
  return {
    review: undefined,
    answer: undefined,
    answerFor: undefined,
    canary: undefined,
    records: [],
    answered: undefined,
    actions: [],
  };
}

/**
 * The harness as the person (or agent) at a relay's review surface: it watches the questions, records exactly
 * what each one showed, and decides as the case scripts it. With no script it approves a request when a model
 * is connected downstream (so that plain cases run unchanged) and otherwise answers as the case's answer says.
 *
 * It is told of a new question by the surface: a long poll (`GET /questions?wait=…&since=V`, answered when a
 * question opens or closes) on a surface that announces it (the `x-questions-version` header); a surface without it
 * is polled every REVIEW_POLL_MS.
 */
export class Reviewer extends ReviewWatcher {
  /** The surface's question version at the last poll (undefined: not known, or no long polling). */
  private version: string | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly modelConnected: boolean,
    private readonly recorder?: FrameRecorder,
  ) {
    super();
  }

  /** Polls until stopped: a long poll when the surface supports it, else a short poll every REVIEW_POLL_MS. */
  protected async watch(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const longPoll = await this.poll(signal);
      if (!longPoll && !signal.aborted) await new Promise((r) => setTimeout(r, REVIEW_POLL_MS));
    }
  }

  private async http(
    method: string,
    path: string,
    body?: unknown,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<{ status: number; json: unknown; version: string | null }> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    if (text !== undefined)
      this.recorder?.record("review", "to-relay", JSON.stringify({ method, path, body }));
    const response = await requestText(`${this.baseUrl}${path}`, {
      method,
      headers: text === undefined ? {} : { "content-type": "application/json" },
      ...(text !== undefined ? { body: text } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      timeoutMs: options.timeoutMs ?? REVIEW_REQUEST_TIMEOUT_MS,
    });
    const raw = response.text;
    let json: unknown = raw;
    try {
      json = JSON.parse(raw);
    } catch {
      // keep the text
    }
    if (
      text !== undefined ||
      method !== "GET" ||
      !path.startsWith("/questions") ||
      (Array.isArray(json) && json.length > 0)
    ) {
      this.recorder?.record(
        "review",
        "from-relay",
        JSON.stringify({ status: response.status, path, body: json }),
      );
    }
    return { status: response.status, json, version: response.header("x-questions-version") };
  }

  /** One look at the questions (deciding the new ones); true when it was a long poll the surface honoured. */
  private async poll(signal: AbortSignal): Promise<boolean> {
    const since = this.version;
    const path =
      since === undefined
        ? "/questions"
        : `/questions?wait=${REVIEW_LONG_POLL_MS}&since=${encodeURIComponent(since)}`;
    try {
      const { json, version } = await this.http("GET", path, undefined, {
        signal,
        timeoutMs:
          since === undefined ? REVIEW_REQUEST_TIMEOUT_MS : REVIEW_LONG_POLL_MS + REVIEW_REQUEST_TIMEOUT_MS,
      });
      this.version = version ?? undefined;
      const fresh = (Array.isArray(json) ? (json as Array<Record<string, unknown>>) : []).filter((q) => {
        const key = `${q.id}/${q.stage}`;
        if (this.handled.has(key)) return false;
        this.handled.add(key);
        return true;
      });
      // Decided side by side, as a person with several questions open would: one at a time, a burst's questions
      // wait on each other's round trips, and on a loaded machine that alone can outlast the relay's deadline.
      await Promise.all(fresh.map((q) => this.decide(q)));
      return since !== undefined && version !== null;
    } catch {
      // the surface is not up yet, or the relay is gone: the case's own deadline decides
      this.version = undefined;
      return false;
    }
  }

  private async decide(q: Record<string, unknown>): Promise<void> {
    const seenAt = performance.now();
    const s = this.scriptOf(q);
    const stage = q.stage === "response" ? "response" : "request";
    const scripted = stage === "request" ? s.review?.request : s.review?.response;
    let decision: ReviewRecord["decision"];
    if (scripted) {
      decision =
        scripted.action === "answer"
          ? { action: "answer", result: scripted.result ?? this.acceptedResult(s, q.request) }
          : scripted.action === "approve" && scripted.params
            ? { action: "approve", params: scripted.params }
            : { action: scripted.action };
    } else if (stage === "response" || this.modelConnected) {
      decision = { action: "approve" };
    } else {
      const a = s.answer;
      decision =
        a?.action === "accept"
          ? { action: "answer", result: this.acceptedResult(s, q.request) }
          : a?.action === "expire"
            ? { action: "none" }
            : { action: "decline" };
    }
    const record: ReviewRecord = { stage, question: q, decision };
    s.records.push(record);
    if (decision.action === "none") return;
    const body =
      decision.action === "answer"
        ? { result: decision.result }
        : decision.action === "approve" && decision.params
          ? { params: decision.params }
          : {};
    const action: ActionLog[number] = { kind: "review", deliveredAt: seenAt, scriptedDelayMs: 0 };
    s.actions.push(action);
    const { status } = await this.http(
      "POST",
      `/questions/${encodeURIComponent(String(q.id))}/${decision.action}`,
      body,
    );
    record.status = status;
    action.writtenAt = performance.now();
    if (decision.action === "answer" && status === 200) s.answered = { result: decision.result };
  }
}
