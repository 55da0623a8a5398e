// Newline-delimited JSON-RPC 2.0 over a pair of streams. One Side per hop: it numbers the requests the
// relay sends on that hop (its own id space, so ids of the two hops never collide) and routes the replies.

import { createInterface } from "node:readline";

export class Side {
  /**
   * @param {string} name for diagnostics ("upstream" / "downstream")
   * @param {NodeJS.ReadableStream} input
   * @param {NodeJS.WritableStream} output
   * @param {(msg: object) => void} onMessage requests and notifications from the peer
   */
  constructor(name, input, output, onMessage) {
    this.name = name;
    this.output = output;
    this.onMessage = onMessage;
    this.nextId = 1;
    /** relay-assigned id → callback for the peer's reply */
    this.waiting = new Map();
    this.closed = false;
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on("line", (line) => this.receive(line));
    lines.on("close", () => {
      this.closed = true;
    });
  }

  receive(line) {
    if (line.trim() === "") return;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "this line is not JSON" } });
      return;
    }
    if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return;
    const isReply = msg.method === undefined && ("result" in msg || "error" in msg);
    if (!isReply) return this.onMessage(msg);
    const done = this.waiting.get(msg.id);
    if (!done) return; // a late or unknown reply: nobody is waiting any more
    this.waiting.delete(msg.id);
    done(msg);
  }

  send(msg) {
    if (this.closed && this.output.destroyed) return;
    this.output.write(`${JSON.stringify(msg)}\n`);
  }

  /** Sends a request with a fresh id of this hop; `onReply` gets the whole response message. Returns the id. */
  request(method, params, onReply) {
    const id = this.nextId++;
    this.waiting.set(id, onReply);
    const msg = { jsonrpc: "2.0", id, method };
    if (params !== undefined) msg.params = params;
    this.send(msg);
    return id;
  }

  /** Stops waiting for a reply (a late one is then dropped). */
  forget(id) {
    this.waiting.delete(id);
  }

  notify(method, params) {
    const msg = { jsonrpc: "2.0", method };
    if (params !== undefined) msg.params = params;
    this.send(msg);
  }

  reply(id, result) {
    this.send({ jsonrpc: "2.0", id, result });
  }

  fail(id, error) {
    this.send({ jsonrpc: "2.0", id, error });
  }
}
