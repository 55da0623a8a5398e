import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/**
 * The reference relay's review surface: an HTTP API on loopback where a person (or an agent through a broker)
 * reviews each sampling request before it goes to a model, may edit it, and reviews the generated response
 * before it is delivered to the server that asked. It is what sampling's user-interaction model asks of an
 * application: "review sampling requests", "view and edit prompts before sending", "present generated responses
 * for review before delivery", with the ability to deny.
 *
 *   GET  /v1/questions                 pending questions (newest last); the `x-questions-version` header
 *                                      counts every question opened or closed so far
 *   GET  /v1/questions?wait=MS[&since=V]  long poll: when nothing changed since version V (without `since`: when
 *                                      no question is pending), answer once a question opens or closes, or
 *                                      after MS (at most 60000); otherwise at once, as without `wait`
 *   GET  /v1/questions/:id             one question
 *   POST /v1/questions/:id/approve     request stage: body {} or {"params": edited}; response stage: body {}
 *   POST /v1/questions/:id/answer      body {"result": CreateMessageResult}: answer (or replace the response)
 *   POST /v1/questions/:id/decline     deny: the server gets -1 "User rejected sampling request"
 *
 * Decisions are validated by the relay (`check`) before they are accepted: an illegal edit or answer is refused
 * with 422 and the findings, and the question stays open. Plain node:http on purpose: four routes need no
 * framework, and the surface must bind 127.0.0.1 only.
 */

export type Stage = "request" | "response";

export type Decision =
  | { kind: "approve"; params?: Record<string, unknown> }
  | { kind: "answer"; result: Record<string, unknown> }
  | { kind: "decline" };

export interface QuestionView {
  id: string;
  stage: Stage;
  /** Which upstream server asks (its initialize serverInfo). */
  server: { name: string; version?: string };
  createdAt: string;
  expiresAt: string;
  /** The request as the server sent it (request stage), or as approved (response stage). */
  request: Record<string, unknown>;
  /** What a reviewer needs to see, pulled out of the request. */
  show: { systemPrompt: string | null; messages: unknown[]; maxTokens: unknown; tools: unknown[] | null };
  /** A CreateMessageResult to fill in when answering directly. */
  resultSkeleton: {
    role: "assistant";
    content: { type: "text"; text: string };
    model: string;
    stopReason: string;
  };
  /** The model's response awaiting review (response stage). */
  response?: Record<string, unknown>;
}

/** Validates a decision before it is accepted; returns problems to show the reviewer, or null. */
export type DecisionCheck = (stage: Stage, decision: Decision) => string | null;

interface Open {
  view: QuestionView;
  resolve: (decision: Decision) => void;
  check: DecisionCheck;
}

/** The longest a long poll (`GET /v1/questions?wait=`) is held. */
const MAX_LONG_POLL_MS = 60_000;

export class ReviewSurface {
  private readonly questions = new Map<string, Open>();
  private server: Server | undefined;
  /** Bumped whenever a question opens or closes; long polls wait for it to move. */
  private version = 0;
  private readonly waiters = new Set<() => void>();
  /** Closing: answers carry `connection: close`, so a woken long poll does not hold the server open. */
  private closing = false;
  port = 0;

  private changed(): void {
    this.version++;
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves once the version moves past `since`, after `ms`, when the caller hangs up, or when the surface closes. */
  private async waitForChange(since: number, ms: number, res: ServerResponse): Promise<void> {
    if (this.version !== since) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        res.off("close", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.waiters.add(done);
      res.once("close", done);
    });
  }

  async listen(port: number): Promise<void> {
    this.server = createServer((req, res) => void this.route(req, res));
    await new Promise<void>((resolve, reject) => {
      this.server!.once("error", reject);
      this.server!.listen(port, "127.0.0.1", () => resolve());
    });
    const address = this.server.address();
    if (address && typeof address === "object") this.port = address.port;
  }

  /** Opens a question at `stage` and waits for the reviewer's decision (or the deadline, then undefined). */
  ask(
    stage: Stage,
    input: {
      id?: string;
      server: QuestionView["server"];
      request: Record<string, unknown>;
      /** What to show of the request (default: the request itself). */
      show?: Record<string, unknown>;
      response?: Record<string, unknown>;
      deadline: number;
      check: DecisionCheck;
    },
  ): { id: string; decision: Promise<Decision | undefined> } {
    const id = input.id ?? `q-${randomBytes(6).toString("hex")}`;
    const shown = input.show ?? input.request;
    const messages = Array.isArray(shown.messages) ? shown.messages : [];
    const view: QuestionView = {
      id,
      stage,
      server: input.server,
      createdAt: new Date().toISOString(),
      expiresAt: new Date(input.deadline).toISOString(),
      request: input.request,
      show: {
        systemPrompt: typeof shown.systemPrompt === "string" ? shown.systemPrompt : null,
        messages,
        maxTokens: shown.maxTokens,
        tools: Array.isArray(shown.tools) ? shown.tools : null,
      },
      resultSkeleton: {
        role: "assistant",
        content: { type: "text", text: "" },
        model: "",
        stopReason: "endTurn",
      },
      ...(input.response ? { response: input.response } : {}),
    };
    const decision = new Promise<Decision | undefined>((resolve) => {
      const timer = setTimeout(
        () => {
          if (this.questions.delete(id)) this.changed();
          resolve(undefined);
        },
        Math.max(0, input.deadline - Date.now()),
      );
      this.questions.set(id, {
        view,
        check: input.check,
        resolve: (d) => {
          clearTimeout(timer);
          if (this.questions.delete(id)) this.changed();
          resolve(d);
        },
      });
      this.changed();
    });
    return { id, decision };
  }

  /** Withdraws a question whose request ended (the upstream cancelled or the relay is closing). */
  withdraw(id: string): void {
    this.questions.get(id)?.resolve({ kind: "decline" });
  }

  async close(): Promise<void> {
    for (const id of [...this.questions.keys()]) this.withdraw(id);
    // Long polls in flight answer now (the server waits for open requests before it closes).
    this.closing = true;
    for (const wake of [...this.waiters]) wake();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const parts = url.pathname.split("/").filter(Boolean);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (parts[0] !== "v1" || parts[1] !== "questions") return send(404, { error: "not found" });
    if (req.method === "GET" && parts.length === 2) return this.list(url, res);
    const open = parts[2] ? this.questions.get(parts[2]) : undefined;
    if (!open) return send(404, { error: `no pending question ${parts[2] ?? ""}` });
    if (req.method === "GET" && parts.length === 3) return send(200, open.view);
    if (req.method !== "POST" || parts.length !== 4) return send(405, { error: "method not allowed" });
    let body: Record<string, unknown> = {};
    try {
      const text = await readBody(req);
      body = text.trim() ? JSON.parse(text) : {};
      if (body === null || typeof body !== "object" || Array.isArray(body)) throw new Error("not an object");
    } catch (error) {
      return send(400, { error: `the body must be a JSON object: ${(error as Error).message}` });
    }
    let decision: Decision;
    switch (parts[3]) {
      case "approve":
        decision =
          body.params !== undefined
            ? { kind: "approve", params: body.params as Record<string, unknown> }
            : { kind: "approve" };
        if (decision.params !== undefined && open.view.stage !== "request")
          return send(409, { error: "only a request can be edited; answer to replace a response" });
        break;
      case "answer":
        if (!body.result || typeof body.result !== "object")
          return send(400, { error: 'expected {"result": CreateMessageResult}' });
        decision = { kind: "answer", result: body.result as Record<string, unknown> };
        break;
      case "decline":
        decision = { kind: "decline" };
        break;
      default:
        return send(404, { error: `unknown action ${parts[3]}` });
    }
    const problem = open.check(open.view.stage, decision);
    if (problem) return send(422, { error: problem });
    open.resolve(decision);
    return send(200, { ok: true });
  }

  /** `GET /v1/questions`, long-polled when `?wait=` asks for it. */
  private async list(url: URL, res: ServerResponse): Promise<void> {
    const wait = Math.min(MAX_LONG_POLL_MS, Math.max(0, Number(url.searchParams.get("wait")) || 0));
    const sinceParam = url.searchParams.get("since");
    const since = sinceParam === null ? undefined : Number(sinceParam);
    if (wait > 0 && (since !== undefined ? since === this.version : this.questions.size === 0))
      await this.waitForChange(this.version, wait, res);
    if (res.destroyed) return;
    res.writeHead(200, {
      "content-type": "application/json",
      "x-questions-version": String(this.version),
      ...(this.closing ? { connection: "close" } : {}),
    });
    res.end(JSON.stringify([...this.questions.values()].map((q) => q.view)));
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
      if (text.length > 4_000_000) reject(new Error("body too large"));
    });
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}
