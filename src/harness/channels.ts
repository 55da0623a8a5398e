import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import type { Frame } from "../model/evidence.ts";
import type { FrameRecorder } from "./frames.ts";
import type { LineChannel } from "./jsonrpc-peer.ts";

function emit(handlers: Array<(value: string) => void>, value: string): void {
  for (const h of handlers) h(value);
}

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

/** How long an exited relay's stdout may stay open before its exit is acted on anyway. */
export const OUTPUT_GRACE_MS = 250;

/**
 * Settles once a relay's stdout has ended, or `graceMs` after the call: a child of the relay that shares its stdout
 * can keep the pipe open after the relay itself is gone.
 */
export function outputRead(stdout: Readable, graceMs = OUTPUT_GRACE_MS): Promise<void> {
  if (stdout.readableEnded || stdout.destroyed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, graceMs);
    function done() {
      clearTimeout(timer);
      stdout.off("end", done);
      stdout.off("close", done);
      resolve();
    }
    stdout.once("end", done);
    stdout.once("close", done);
  });
}

/** The stdio of a spawned relay as a line channel. */
export function childStdioChannel(child: ChildProcessWithoutNullStreams): LineChannel {
  const lineHandlers: Array<(line: string) => void> = [];
  const closeHandlers: Array<(reason: string) => void> = [];
  child.stdout.on(
    "data",
    lineSplitter((line) => emit(lineHandlers, line)),
  );
  child.stdin.on("error", () => undefined);
  // Node may report the exit before the relay's last lines are read: the channel closes once they are.
  child.on("exit", (code, signal) => {
    void outputRead(child.stdout).then(() =>
      emit(closeHandlers, `relay exited (${signal ?? `code ${code}`})`),
    );
  });
  return {
    send: (line) => {
      if (child.stdin.writable) child.stdin.write(`${line}\n`);
    },
    onLine: (h) => lineHandlers.push(h),
    onClose: (h) => closeHandlers.push(h),
  };
}

/** A TCP socket as a line channel; `initial` is data that arrived before the channel was made. */
export function socketChannel(socket: Socket, initial: Buffer | string = ""): LineChannel {
  const lineHandlers: Array<(line: string) => void> = [];
  const closeHandlers: Array<(reason: string) => void> = [];
  const early: string[] = [];
  const split = lineSplitter((line) => {
    if (lineHandlers.length === 0) early.push(line);
    else for (const h of lineHandlers) h(line);
  });
  split(initial);
  socket.on("data", split);
  socket.on("close", () => emit(closeHandlers, "the relay closed the upstream's stdio"));
  socket.on("error", () => undefined);
  return {
    send: (line) => {
      if (!socket.destroyed) socket.write(`${line}\n`);
    },
    onLine: (h) => {
      lineHandlers.push(h);
      for (const line of early.splice(0)) h(line);
    },
    onClose: (h) => closeHandlers.push(h),
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
  };
}

/**
 * Loopback control channel: every upstream shim the relay launches connects here and introduces itself with
 * a token; the token names the harness session the upstream belongs to.
 */
export class ControlServer {
  private server: Server | undefined;
  private readonly waiting = new Map<string, Array<(channel: LineChannel) => void>>();
  private readonly arrived = new Map<string, LineChannel[]>();
  private readonly sockets = new Set<Socket>();
  address = "";

  async start(): Promise<void> {
    this.server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      this.server!.once("error", reject);
      this.server!.listen(0, "127.0.0.1", () => resolve());
    });
    const addr = this.server.address();
    if (addr === null || typeof addr === "string") throw new Error("control server has no TCP address");
    this.address = `127.0.0.1:${addr.port}`;
  }

  /** Resolves with the next upstream connection that presents `token`. */
  next(token: string, timeoutMs: number): Promise<LineChannel> {
    const ready = this.arrived.get(token)?.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const list = this.waiting.get(token) ?? [];
        this.waiting.set(
          token,
          list.filter((w) => w !== deliver),
        );
        reject(new Error(`the relay did not launch the harness upstream within ${timeoutMs} ms`));
      }, timeoutMs);
      const deliver = (channel: LineChannel) => {
        clearTimeout(timer);
        resolve(channel);
      };
      this.waiting.set(token, [...(this.waiting.get(token) ?? []), deliver]);
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    let buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const index = buffer.indexOf(0x0a);
      if (index < 0) return;
      socket.off("data", onData);
      const helloLine = buffer.subarray(0, index).toString("utf8");
      // Bytes, not text: a character the relay split across chunks is decoded whole by the line splitter.
      const rest = buffer.subarray(index + 1);
      let token = "";
      try {
        token = String(JSON.parse(helloLine).hello ?? "");
      } catch {
        socket.destroy();
        return;
      }
      const channel = socketChannel(socket, rest);
      const waiter = this.waiting.get(token)?.shift();
      if (waiter) waiter(channel);
      else this.arrived.set(token, [...(this.arrived.get(token) ?? []), channel]);
    };
    socket.on("data", onData);
    socket.on("error", () => undefined);
  }
}
