import type { Answer, Review } from "../model/case.ts";
import type { AnswerFor } from "./ends.ts";
import type { FrameRecorder } from "./frames.ts";
import { requestText } from "./http-request.ts";
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

/**
 * What the review answerers (the reviewer at a relay's own review surface, the broker driven through declared calls)
 * share: the case's script, what each question showed and what was decided, and a watch loop started with the first
 * case and stopped with the session.
 */
export abstract class ReviewWatcher {
  protected review: Review | undefined;
  protected answer: Answer | undefined;
  protected readonly handled = new Set<string>();
  /** The watch loop runs; aborting ends it and any request in flight. */
  private watching: AbortController | undefined;
  records: ReviewRecord[] = [];
  /** The result the review side supplied itself (a direct or replacing answer), if any. */
  answered: unknown;

  /** The result for one request, when a case sends several (each answered under its own token). */
  protected answerFor: AnswerFor | undefined;

  script(review: Review | undefined, answer: Answer, answerFor?: AnswerFor): void {
    this.review = review;
    this.answer = answer;
    this.answerFor = answerFor;
    this.records = [];
    this.answered = undefined;
    if (!this.watching) {
      this.watching = new AbortController();
      void this.watch(this.watching.signal);
    }
  }

  /** The case's accepted result for the request a question shows (its own, in a case of several requests). */
  protected acceptedResult(request: unknown): unknown {
    if (this.answer?.action !== "accept") return undefined;
    return this.answerFor?.(request) ?? this.answer.result;
  }

  stop(): void {
    this.watching?.abort();
    this.watching = undefined;
  }

  /** Looks for questions until stopped. */
  protected abstract watch(signal: AbortSignal): Promise<void>;
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
      for (const q of Array.isArray(json) ? (json as Array<Record<string, unknown>>) : []) {
        const key = `${q.id}/${q.stage}`;
        if (this.handled.has(key)) continue;
        this.handled.add(key);
        await this.decide(q);
      }
      return since !== undefined && version !== null;
    } catch {
      // the surface is not up yet, or the relay is gone: the case's own deadline decides
      this.version = undefined;
      return false;
    }
  }

  private async decide(q: Record<string, unknown>): Promise<void> {
    const stage = q.stage === "response" ? "response" : "request";
    const scripted = stage === "request" ? this.review?.request : this.review?.response;
    let decision: ReviewRecord["decision"];
    if (scripted) {
      decision =
        scripted.action === "answer"
          ? { action: "answer", result: scripted.result ?? this.acceptedResult(q.request) }
          : scripted.action === "approve" && scripted.params
            ? { action: "approve", params: scripted.params }
            : { action: scripted.action };
    } else if (stage === "response" || this.modelConnected) {
      decision = { action: "approve" };
    } else {
      const a = this.answer;
      decision =
        a?.action === "accept"
          ? { action: "answer", result: this.acceptedResult(q.request) }
          : a?.action === "expire"
            ? { action: "none" }
            : { action: "decline" };
    }
    const record: ReviewRecord = { stage, question: q, decision };
    this.records.push(record);
    if (decision.action === "none") return;
    const body =
      decision.action === "answer"
        ? { result: decision.result }
        : decision.action === "approve" && decision.params
          ? { params: decision.params }
          : {};
    const { status } = await this.http(
      "POST",
      `/questions/${encodeURIComponent(String(q.id))}/${decision.action}`,
      body,
    );
    record.status = status;
    if (decision.action === "answer" && status === 200) this.answered = { result: decision.result };
  }
}
