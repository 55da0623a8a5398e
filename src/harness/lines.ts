import { StringDecoder } from "node:string_decoder";
import type { Frame } from "../model/evidence.ts";
import type { FrameRecorder } from "./frames.ts";
import type { LineChannel } from "./jsonrpc-peer.ts";

// The pure half of the harness's channels (src/harness/channels.ts holds the processes and sockets): framing lines
// and recording frames, unit-tested without a process.

/**
 * Splits a byte stream into lines (newline-delimited JSON framing of MCP's stdio transport). Bytes are decoded as
 * UTF-8 across chunks (a character split between two chunks, as a relay writing byte by byte does, stays whole),
 * and each chunk is scanned once for newlines (a 10 MB frame in 64 KiB chunks costs linear time).
 */
export function lineSplitter(onLine: (line: string) => void): (chunk: Buffer | string) => void {
  const decoder = new StringDecoder("utf8");
  let buffer = "";
  return (chunk) => {
    const text = typeof chunk === "string" ? chunk : decoder.write(chunk);
    let index = text.indexOf("\n");
    if (index < 0) {
      buffer += text;
      return;
    }
    let start = 0;
    while (index >= 0) {
      const line = (buffer + text.slice(start, index)).replace(/\r$/, "");
      buffer = "";
      if (line.length > 0) onLine(line);
      start = index + 1;
      index = text.indexOf("\n", start);
    }
    buffer = text.slice(start);
  };
}

/**
 * Wraps a channel so every frame is recorded at the given end, relative to the relay, once. `session` labels the
 * frames; without it, a multiplexing channel's own connection labels are used. This is the one place frames are
 * recorded, on every transport: what the harness sends as it hands it to the channel, and what the relay sends as
 * the channel got it off the wire (`onRaw` when the channel has it: over HTTP, the bodies and SSE event data
 * before the SDK parses them, garbage included; otherwise the lines `onLine` delivers, which on stdio are the wire).
 */
export function recorded(
  channel: LineChannel,
  recorder: FrameRecorder,
  end: Frame["end"],
  session?: string,
): LineChannel {
  const raw = channel.onRaw !== undefined;
  channel.onRaw?.((text, via, status) => recorder.record(end, "from-relay", text, session ?? via, status));
  return {
    send: (line, options) => {
      const sent = channel.send(line, options);
      const via = typeof sent === "string" ? sent : undefined;
      recorder.record(end, "to-relay", line, session ?? via);
      return via;
    },
    onLine: (h) =>
      channel.onLine((line, via) => {
        if (!raw) recorder.record(end, "from-relay", line, session ?? via);
        h(line, via);
      }),
    onClose: (h) => channel.onClose(h),
    ...(channel.confirmsWrites ? { confirmsWrites: true } : {}),
    ...(channel.httpRefusal ? { httpRefusal: (method: string) => channel.httpRefusal!(method) } : {}),
    // Asked when a request tied to none is about to go out (the HTTP upstream sets it once its session is known), so
    // it is looked up then, not when wrapping: without it a relay holding no GET stream would be judged as if it had.
    unrelatedReady: () => channel.unrelatedReady?.() ?? Promise.resolve(true),
  };
}
