import type { Answer } from "../model/case.ts";
import type { Era } from "../protocol/eras.ts";
import { CODE } from "../protocol/wire.ts";
import { type AnswerFor, ClientEraRefused, InitializedRequired } from "./ends.ts";
import { JsonRpcPeer, type JsonRpcResponse, type LineChannel } from "./jsonrpc-peer.ts";
import type { ActionLog } from "./lateness.ts";
import { findProbeTool, type ProbeTemplate, probeCall } from "./probe-call.ts";
import { PROBE_TOOL } from "./upstream.ts";
import { HELD_REQUEST_MS, HOLD_INITIALIZED_MS } from "./waits.ts";

export const DEFAULT_DECLINE = { code: -1, message: "User rejected sampling request" };

/**
 * The harness answerer: an MCP client (legacy eras) connected to the relay's downstream side. It declares
 * the case's capabilities, calls the probe tool, and answers each sampling request as the case scripts it.
 */
export class ClientAnswerer {
  readonly peer: JsonRpcPeer;
  negotiated: string | null = null;
  probeTool = PROBE_TOOL;
  private answer: Answer | undefined;
  private answerFor: AnswerFor | undefined;
  /** Sampling requests received since the last reset, with what was answered. */
  asked: unknown[] = [];
  askedAt: number | undefined;
  answered: unknown;
  /** Called when the script makes the answerer wait on purpose (an answer that never comes, or comes late). */
  onWait: (() => void) | undefined;
  /** The scripted answers of the case, timed (lateness.ts). */
  actions: ActionLog = [];

  constructor(
    channel: LineChannel,
    private readonly era: Era,
    private readonly capabilities: Record<string, unknown>,
    private readonly probe?: ProbeTemplate,
    /** Hold back notifications/initialized until HOLD_INITIALIZED_MS after the first probe call. */
    private holdInitialized = false,
  ) {
    this.peer = new JsonRpcPeer(channel, "down-");
    this.peer.onRequest((method, params) => this.handle(method, params));
  }

  /** initialize → initialized → tools/list; finds the probe tool under whatever name the relay exposes. */
  async connect(timeoutMs: number): Promise<void> {
    const init = await this.peer.request(
      "initialize",
      {
        protocolVersion: this.era,
        capabilities: this.capabilities,
        clientInfo: { name: "mcpx-conform-answerer", version: "1" },
      },
      timeoutMs,
    );
    // -32022 (UnsupportedProtocolVersionError) is the spec's word for "not this era": only such clients are affected.
    if (init.error?.code === CODE.unsupportedProtocolVersion)
      throw new ClientEraRefused(
        this.era,
        `initialize answered with error ${CODE.unsupportedProtocolVersion} ${JSON.stringify(init.error.message)}${refusedData(init.error.data)}`,
      );
    if (init.error) throw new Error(`the relay refused initialize: ${JSON.stringify(init.error)}`);
    this.negotiated = String((init.result as any)?.protocolVersion ?? "");
    if (!this.holdInitialized) this.peer.notify("notifications/initialized");
    const listing = this.peer.request("tools/list", {}, timeoutMs);
    if (this.holdInitialized) await this.unlessHeld(listing, timeoutMs);
    this.probeTool = findProbeTool(await listing, this.probe);
  }

  /**
   * Holding back notifications/initialized: a relay that answers nothing before it (as a server may) would leave the
   * case's call unsent until the session start times out. Silence for HELD_REQUEST_MS, then an answer once the
   * notification is sent, is that relay: InitializedRequired, so the case is n/a (only the cases that hold it back).
   */
  private async unlessHeld(listing: Promise<JsonRpcResponse>, timeoutMs: number): Promise<void> {
    const heldMs = Math.min(HELD_REQUEST_MS, Math.floor(timeoutMs / 2));
    let timer: NodeJS.Timeout | undefined;
    const held = await Promise.race([
      listing.then(
        () => false,
        () => false,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), heldMs);
      }),
    ]);
    clearTimeout(timer);
    if (!held) return;
    this.holdInitialized = false;
    this.peer.notify("notifications/initialized");
    if (!(await listing).error) throw new InitializedRequired(heldMs);
  }

  script(answer: Answer, answerFor?: AnswerFor): void {
    this.answer = answer;
    this.answerFor = answerFor;
    this.asked = [];
    this.askedAt = undefined;
    this.answered = undefined;
    this.actions = [];
  }

  callProbe(caseKey: string, timeoutMs: number) {
    const call = this.peer.request(
      "tools/call",
      probeCall(this.probe, this.probeTool, { caseKey }),
      timeoutMs,
    );
    if (this.holdInitialized) {
      // The relay has the call (and the upstream's sampling request) before it has the initialized notification.
      this.holdInitialized = false;
      setTimeout(() => this.peer.notify("notifications/initialized"), HOLD_INITIALIZED_MS);
    }
    return call;
  }

  private async handle(method: string, params: unknown) {
    if (method === "ping") return { result: {} };
    if (method === "roots/list") return { result: { roots: [] } };
    if (method !== "sampling/createMessage")
      return { error: { code: -32601, message: `Method not found: ${method}` } };
    const deliveredAt = performance.now();
    this.asked.push(params);
    this.askedAt ??= deliveredAt;
    const answer = this.answer;
    if (!answer) return { error: { code: -32603, message: "mcpx-conform: no case is running" } };
    // The answer's moment of leaving, against its scripted one (lateness.ts): the log is this case's.
    const log = this.actions;
    // Logged as it is handed on (an answer still in flight when the case ends counts as leaving then).
    const timed = (kind: ActionLog[number]["kind"], scriptedDelayMs = 0) => {
      const action: ActionLog[number] = { kind, deliveredAt, scriptedDelayMs };
      log.push(action);
      return { onWritten: (writtenAt: number) => (action.writtenAt = writtenAt) };
    };
    switch (answer.action) {
      case "accept":
        if (answer.delayMs) {
          this.onWait?.();
          await new Promise((r) => setTimeout(r, answer.delayMs));
        }
        {
          // Several requests in one case: each gets its own result; `answered` keeps the first reply.
          const result = this.answerFor?.(params) ?? answer.result;
          this.answered ??= { result };
          return { result, ...timed("answer", answer.delayMs ?? 0) };
        }
      case "decline": {
        const error = answer.error ?? DEFAULT_DECLINE;
        this.answered = { error };
        return { error, ...timed("decline") };
      }
      case "error":
        this.answered = { error: answer.error };
        return { error: answer.error as { code: number; message: string }, ...timed("error") };
      case "expire":
        this.onWait?.();
        return { noReply: true as const };
    }
  }
}

/** What an UnsupportedProtocolVersionError says the relay does support, if it says. */
function refusedData(data: unknown): string {
  const supported =
    typeof data === "object" && data !== null ? (data as { supported?: unknown }).supported : undefined;
  return Array.isArray(supported) ? ` (it supports ${supported.map(String).join(", ")})` : "";
}
