import type { LineChannel } from "../../src/harness/jsonrpc-peer.ts";

/** Two LineChannels joined back to back in memory (a line sent on one arrives at the other on the next tick). */
export function linePair(): [LineChannel, LineChannel] {
  const handlers: [Array<(l: string) => void>, Array<(l: string) => void>] = [[], []];
  const end = (me: 0 | 1): LineChannel => ({
    send: (line) => {
      setImmediate(() => {
        for (const h of handlers[(1 - me) as 0 | 1]) h(line);
      });
    },
    onLine: (h) => handlers[me].push(h),
    onClose: () => undefined,
  });
  return [end(0), end(1)];
}
