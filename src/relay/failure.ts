import type { WireError } from "./policy.ts";

/** An error whose message goes on the wire exactly as written (the SDK uses `code` and `message` as they are). */
export class WireFailure extends Error {
  constructor(readonly wire: WireError) {
    super(wire.message);
  }
  get code(): number {
    return this.wire.code;
  }
  get data(): unknown {
    return this.wire.data;
  }
}

/**
 * The question was asked and got no answer to relay: the downstream (or the person reviewing) declined or failed,
 * or nobody answered in time. A legacy upstream gets `wire`; a 2026-07-28 upstream gets an absent input.
 */
export class Unanswered extends WireFailure {}
