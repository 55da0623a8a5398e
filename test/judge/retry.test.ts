import { describe, expect, it } from "vitest";
import { RETRY } from "../../src/judge/checks/retry.ts";
import type { Frame } from "../../src/model/evidence.ts";
import { familyChecks } from "../helpers/checks.ts";

/** The retry family's checks on a 2026-07-28 exchange with these upstream frames. */
const mrtrRetryChecks = (frames: Frame[]) =>
  familyChecks(RETRY, {
    era: "2026-07-28",
    frames,
    observation: { sent: {}, asked: [], upstream: { kind: "withheld", detail: "" } },
  });

/** The relay's call, the upstream's input_required answer, and the relay's retry, as the upstream end saw them. */
function wire(opts: { retryId?: number; state?: string | null; echoed?: unknown; args?: unknown }): Frame[] {
  const state = opts.state === undefined ? "s+/=" : opts.state;
  const retry: Record<string, unknown> = {
    name: "probe",
    arguments: opts.args ?? { a: 1 },
    inputResponses: { k: {} },
  };
  if (opts.echoed !== undefined) retry.requestState = opts.echoed;
  return [
    {
      t: 1,
      end: "upstream",
      dir: "from-relay",
      message: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "probe", arguments: { a: 1 } },
      },
    },
    {
      t: 2,
      end: "upstream",
      dir: "to-relay",
      message: {
        jsonrpc: "2.0",
        id: 1,
        result: {
          resultType: "input_required",
          inputRequests: {},
          ...(state === null ? {} : { requestState: state }),
        },
      },
    },
    {
      t: 3,
      end: "upstream",
      dir: "from-relay",
      message: { jsonrpc: "2.0", id: opts.retryId ?? 2, method: "tools/call", params: retry },
    },
  ];
}

const failed = (frames: Frame[]) =>
  mrtrRetryChecks(frames)
    .filter((c) => !c.ok)
    .map((c) => c.id);

describe("2026-07-28 retry rules from the wire", () => {
  it("passes a retry with a new id, the exact state and the same arguments", () => {
    expect(mrtrRetryChecks(wire({ echoed: "s+/=" })).map((c) => c.ok)).toEqual([true, true, true]);
    expect(failed(wire({ state: null }))).toEqual([]);
  });

  it("fails a reused id, an altered, dropped or invented state, and changed arguments, each by its own check", () => {
    expect(failed(wire({ echoed: "s+/=", retryId: 1 }))).toEqual(["mrtr-retry-new-id"]);
    expect(failed(wire({ echoed: "s /=" }))).toEqual(["mrtr-request-state-echoed"]);
    expect(failed(wire({}))).toEqual(["mrtr-request-state-echoed"]);
    expect(failed(wire({ state: null, echoed: "invented" }))).toEqual(["mrtr-request-state-echoed"]);
    expect(failed(wire({ echoed: "s+/=", args: { a: 2 } }))).toEqual(["mrtr-retry-arguments-unchanged"]);
    expect(mrtrRetryChecks(wire({ echoed: "x" })).find((c) => !c.ok)?.detail).toMatch(/is not the one given/);
    expect(mrtrRetryChecks(wire({ echoed: "s+/=", args: { a: "1" } })).find((c) => !c.ok)?.detail).toBe(
      'the retry changed the call\'s arguments: /a changed from a number to a string (called with 1, retried with "1")',
    );
  });

  it("fails a reused id on another upstream connection too: the rule is not scoped to a connection", () => {
    // A gateway opening an upstream process per request: each numbers its ids from 1 (2026-07-28 is stateless).
    const perRequest = wire({ echoed: "s+/=", retryId: 1 }).map((f, i) =>
      i === 2 ? { ...f, session: "upstream-2" } : f,
    );
    expect(failed(perRequest)).toEqual(["mrtr-retry-new-id"]);
    expect(mrtrRetryChecks(perRequest)[0]!.detail).toMatch(
      /on another upstream connection: the rule holds whatever connection/,
    );
    // A new id on another connection passes.
    const newIdElsewhere = wire({ echoed: "s+/=", retryId: 2 }).map((f, i) =>
      i === 2 ? { ...f, session: "upstream-2" } : f,
    );
    expect(failed(newIdElsewhere)).toEqual([]);
    // The upstream's answer is found on the call's own connection only: an id 1 answered elsewhere is not it.
    const answeredElsewhere = wire({ echoed: "s+/=" }).map((f, i) =>
      i === 1 ? { ...f, session: "upstream-9" } : f,
    );
    expect(mrtrRetryChecks(answeredElsewhere)).toEqual([]);
    // The same id on the same connection is the call's id reused.
    const sameConnection = wire({ echoed: "s+/=", retryId: 1 }).map((f) => ({ ...f, session: "upstream-1" }));
    expect(failed(sameConnection)).toEqual(["mrtr-retry-new-id"]);
  });

  it("says nothing when there was no retry", () => {
    expect(mrtrRetryChecks(wire({ echoed: "s+/=" }).slice(0, 2))).toEqual([]);
  });
});
