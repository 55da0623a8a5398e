/**
 * The validator stays linear in the number of messages, checked without a clock (timing lives in npm run bench):
 * every property read of the input is counted through a Proxy, and the tool-loop step is counted per message.
 * A rule that re-scans the messages, a second pass, or a per-message cost that grows with the position makes the
 * counts grow faster than the message count.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { toolLoopOfLength } from "../../src/fuzz/arbitraries.ts";
import { type Era, validateRequest } from "../../src/validator/index.ts";
import { ToolLoop } from "../../src/validator/pairing.ts";
import { assistant, TOOLS_CAPS, text, toolParams, toolResult, toolUse, user } from "./helpers.ts";

const ERA: Era = "2025-11-25";
const CTX = { era: ERA, capabilities: TOOLS_CAPS };

/** `value` behind proxies (nested values too) that count every property read into `counter.reads`. */
function counted<T>(value: T, counter: { reads: number }): T {
  const proxies = new WeakMap<object, object>();
  const wrap = (v: unknown): unknown => {
    if (typeof v !== "object" || v === null) return v;
    let p = proxies.get(v);
    if (p === undefined) {
      p = new Proxy(v, {
        get(target, key, receiver) {
          counter.reads++;
          return wrap(Reflect.get(target, key, receiver));
        },
      });
      proxies.set(v, p);
    }
    return p;
  };
  return wrap(value) as T;
}

function readsOf(params: unknown): number {
  const counter = { reads: 0 };
  validateRequest(counted(params, counter), CTX);
  return counter.reads;
}

/** `n` (even) messages: a question, then identical tool rounds (so every message costs the same), then an answer. */
function minimalLoop(n: number, answered = true): Record<string, unknown> {
  const messages: unknown[] = [user(text("go"))];
  for (let i = 0; messages.length < n - 1; i++) {
    messages.push(assistant([toolUse(`c${i}`)]));
    messages.push(user([toolResult(answered ? `c${i}` : `x${i}`)]));
  }
  messages.push(assistant(text("done")));
  return toolParams(messages);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("validator cost grows linearly with the message count", () => {
  it("legal loop: property reads are exactly affine in n (the same cost for every added round)", () => {
    const [a, b, c] = [102, 202, 402].map((n) => readsOf(minimalLoop(n)));
    expect(validateRequest(minimalLoop(402), CTX).legal).toBe(true);
    expect(c! - b!).toBe(2 * (b! - a!));
  });

  it("illegal loop (schema slow path and one finding per round): reads and findings are affine in n", () => {
    // An unanswered round per pair and a bad maxTokens: zod runs, then the tool loop reports every round.
    const bad = (n: number) => ({ ...minimalLoop(n, false), maxTokens: 1.5 });
    const [a, b, c] = [102, 202, 402].map((n) => readsOf(bad(n)));
    expect(c! - b!).toBe(2 * (b! - a!));
    const [fa, fb, fc] = [102, 202, 402].map((n) => validateRequest(bad(n), CTX).errors.length);
    expect(fc! - fb!).toBe(2 * (fb! - fa!));
  });

  it("realistic loops: reads per message at 1,000 messages stay within 1.25× those at 100", () => {
    const perMessage = (n: number) => {
      const loop = toolLoopOfLength(ERA, n, 1577);
      expect(validateRequest(loop.params, { era: ERA, capabilities: loop.capabilities }).legal).toBe(true);
      return readsOf(loop.params) / n;
    };
    expect(perMessage(1_000)).toBeLessThan(1.25 * perMessage(100));
  });

  it("one pass: the tool-loop step runs once per message on a legal loop, and twice at most on an illegal one", () => {
    const visit = vi.spyOn(ToolLoop.prototype, "visit");
    validateRequest(minimalLoop(302), CTX);
    expect(visit).toHaveBeenCalledTimes(302);
    visit.mockClear();
    validateRequest({ ...minimalLoop(302), maxTokens: "x" }, CTX);
    expect(visit).toHaveBeenCalledTimes(2 * 302); // pre-check walk discarded, then the pass after zod
  });
});
