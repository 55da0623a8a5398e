// A tap on the link between a relay and its upstream: the relay launches this program as its upstream command
// (`relay -- node relays/<defect>.mjs UPSTREAM…`); it launches the real upstream and copies every JSON-RPC line
// both ways, letting a defect rewrite, drop or add frames. The relay in front is the reference relay, so a
// profile built on a tap is the reference relay plus exactly the tap's defect on the upstream link.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

/**
 * @param {{
 *   up?: (message: any, io: Io) => any,    // relay → upstream; return the message to send, or undefined to drop
 *   down?: (message: any, io: Io) => any,  // upstream → relay; likewise
 * }} defect
 * @typedef {{ toUpstream: (m: any) => void, toRelay: (m: any) => void }} Io
 */
export function tapUpstream(defect) {
  const [program, ...args] = process.argv.slice(2);
  if (!program) {
    process.stderr.write("usage: <defect>.mjs UPSTREAM_COMMAND…\n");
    process.exit(2);
  }
  const upstream = spawn(program, args, { stdio: ["pipe", "pipe", "inherit"] });
  const io = {
    toUpstream: (m) => upstream.stdin.write(`${JSON.stringify(m)}\n`),
    toRelay: (m) => process.stdout.write(`${JSON.stringify(m)}\n`),
  };
  const pipe = (line, rewrite, send) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return send === io.toUpstream ? upstream.stdin.write(`${line}\n`) : process.stdout.write(`${line}\n`);
    }
    const out = rewrite ? rewrite(message, io) : message;
    if (out !== undefined) send(out);
  };
  createInterface({ input: process.stdin }).on("line", (l) => pipe(l, defect.up, io.toUpstream));
  createInterface({ input: upstream.stdout }).on("line", (l) => pipe(l, defect.down, io.toRelay));
  process.stdin.on("end", () => upstream.stdin.end());
  upstream.on("exit", () => process.exit(0));
}

/** A 2026-07-28 retry: a request carrying inputResponses (the answers to an input_required result). */
export const isRetry = (m) =>
  typeof m?.method === "string" &&
  m.id !== undefined &&
  m.params &&
  typeof m.params === "object" &&
  "inputResponses" in m.params;

/** A 2026-07-28 input_required result. */
export const isInputRequired = (m) => m?.result?.resultType === "input_required" && m.id !== undefined;
