import type { BrokerAnswerer, BrokerCall, BrokerOperation } from "../model/broker.ts";
import {
  type BrokerQuestion,
  type CallOutput,
  type CallValues,
  extractQuestion,
  pointerGet,
  quote,
  renderCall,
  runCall,
} from "./broker-calls.ts";
import type { FrameRecorder } from "./frames.ts";
import type { ActionLog } from "./lateness.ts";
import { type CaseScript, type ReviewRecord, ReviewWatcher } from "./reviewer.ts";
import { BROKER_CALL_TIMEOUT_MS, BROKER_COMMAND_POLL_MS, BROKER_POLL_MS } from "./waits.ts";

/** Where a broker's command lines run and with what (the relay's folder and environment). */
export interface BrokerContext {
  /** The profile's placeholders, filled for this session. */
  values: Record<string, string | undefined>;
  cwd: string;
  env: Record<string, string>;
}

/**
 * The harness as the agent or person at a relay's broker (`answerer.kind: broker`): the Reviewer's role, through
 * the calls the profile declares instead of the reference relay's own API. It reads the pending list until a new
 * question appears, records what the broker showed for it (in the review surface's shape, with everything shown kept
 * as `shown` and every declared field it did not show in `notShown`), decides as the case scripts it, answers
 * through the declared call, and reads back what the broker recorded when the profile says how.
 *
 * Every question it sees counts as asking (the judge counts request-stage records): a case that must be refused
 * before anyone is asked fails when a question opened in the broker, whatever the MCP client downstream saw.
 */
export class Broker extends ReviewWatcher {
  constructor(
    private readonly spec: BrokerAnswerer,
    private readonly context: BrokerContext,
    private readonly modelConnected: boolean,
    private readonly recorder?: FrameRecorder,
  ) {
    super();
  }

  protected async watch(signal: AbortSignal): Promise<void> {
    const every = this.spec.list.command ? BROKER_COMMAND_POLL_MS : BROKER_POLL_MS;
    while (!signal.aborted) {
      await this.poll(signal);
      if (!signal.aborted) await new Promise((r) => setTimeout(r, every));
    }
  }

  /** One declared call; `quiet` leaves an empty answer out of the evidence (the idle polls of the list). */
  private async call(
    op: BrokerOperation,
    call: BrokerCall,
    values: Omit<CallValues, "profile">,
    options: { signal?: AbortSignal; quiet?: boolean } = {},
  ): Promise<CallOutput> {
    const rendered = renderCall(call, { profile: this.context.values, ...values });
    const sent = JSON.stringify({ op, ...rendered });
    const output = await runCall(rendered, {
      timeoutMs: BROKER_CALL_TIMEOUT_MS,
      cwd: this.context.cwd,
      env: this.context.env,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const empty = Array.isArray(output.json) ? output.json.length === 0 : false;
    if (!(options.quiet && output.ok && empty)) {
      this.recorder?.record("review", "to-relay", sent);
      this.recorder?.record(
        "review",
        "from-relay",
        JSON.stringify({ op, status: output.status, body: output.json }),
      );
    }
    return output;
  }

  /** One look at the pending list (quiet when nothing is pending), deciding each new question. */
  private async poll(signal: AbortSignal): Promise<void> {
    const { list } = this.spec;
    let items: unknown[];
    try {
      const out = await this.call("list", list, {}, { signal, quiet: true });
      const found = out.ok ? pointerGet(out.json, list.items, "list.items") : [];
      items = Array.isArray(found) ? found : [];
    } catch {
      // the broker is not up yet, or the relay is gone: the case's own deadline decides
      return;
    }
    for (const item of items) {
      if (signal.aborted) return;
      let id: string;
      try {
        id = String(pointerGet(item, list.id, "list.id"));
      } catch {
        continue;
      }
      const stage = list.stage === undefined ? "" : String(safeGet(item, list.stage) ?? "");
      const key = `${id}/${stage}`;
      if (this.handled.has(key)) continue;
      this.handled.add(key);
      await this.decide(await this.question(id, item, signal));
    }
  }

  /** The question as the broker shows it: the read call's output, or the list item when there is no read call. */
  private async question(id: string, item: unknown, signal: AbortSignal): Promise<BrokerQuestion> {
    if (!this.spec.read) return extractQuestion(id, item, this.spec.show);
    try {
      const out = await this.call("read", this.spec.read, { id }, { signal });
      if (out.ok) return extractQuestion(id, out.json, this.spec.show);
      return {
        ...extractQuestion(id, item, this.spec.show),
        readFailed: `status ${out.status}: ${quote(out.json)}`,
      };
    } catch (error) {
      return { ...extractQuestion(id, item, this.spec.show), readFailed: (error as Error).message };
    }
  }

  /** What to do with a question: the case's script, else approve on to a model, else the case's answer. */
  private decision(q: BrokerQuestion, s: CaseScript): ReviewRecord["decision"] {
    const { stage } = q;
    const scripted = stage === "request" ? s.review?.request : s.review?.response;
    // The request as the broker showed it (its token picks the answer in a case of several requests).
    const request = q.request ?? q.show;
    if (scripted) {
      if (scripted.action === "answer")
        return { action: "answer", result: scripted.result ?? this.acceptedResult(s, request) };
      if (scripted.action === "approve" && scripted.params)
        return { action: "approve", params: scripted.params };
      return { action: scripted.action };
    }
    if ((stage === "response" || this.modelConnected) && this.spec.approve) return { action: "approve" };
    if (stage === "response") return { action: "none" };
    const a = s.answer;
    if (a?.action === "accept") return { action: "answer", result: this.acceptedResult(s, request) };
    if (a?.action === "expire") return { action: "none" };
    // An answer the broker has no word for (a JSON-RPC error) is the nearest it has: cancel, else decline.
    return { action: a?.action === "error" && this.spec.cancel ? "cancel" : "decline" };
  }

  private async decide(q: BrokerQuestion): Promise<void> {
    const seenAt = performance.now();
    const s = this.scriptOf(q);
    const decision = this.decision(q, s);
    const record: ReviewRecord = { stage: q.stage, question: q, decision };
    s.records.push(record);
    if (decision.action === "none") return;
    const op = decision.action === "answer" ? "accept" : decision.action;
    const call = this.spec[op];
    if (!call) {
      record.decision = { action: "none", note: `the broker profile declares no ${op} call` };
      return;
    }
    const action: ActionLog[number] = { kind: "review", deliveredAt: seenAt, scriptedDelayMs: 0 };
    s.actions.push(action);
    try {
      const out = await this.call(op, call, {
        id: q.id,
        ...(decision.result !== undefined ? { result: decision.result } : {}),
        ...(decision.params !== undefined ? { params: decision.params } : {}),
      });
      record.status = out.status;
      action.writtenAt = performance.now();
      if (decision.action === "answer" && out.ok) s.answered = { result: decision.result };
    } catch (error) {
      record.decision = { ...decision, note: `the ${op} call failed: ${(error as Error).message}` };
      return;
    }
    await this.readBack(record, q.id);
  }

  /** What the broker recorded for the question, when the profile says how to read it back. */
  private async readBack(record: ReviewRecord, id: string): Promise<void> {
    const spec = this.spec.recorded;
    if (!spec) return;
    try {
      const out = await this.call("recorded", spec, { id });
      record.recorded = out.ok
        ? pointerGet(out.json, spec.at, "recorded.at")
        : { status: out.status, body: out.json };
    } catch (error) {
      record.recorded = { error: (error as Error).message };
    }
  }
}

function safeGet(doc: unknown, pointer: string): unknown {
  try {
    return pointerGet(doc, pointer, "list.stage");
  } catch {
    return undefined;
  }
}
