// Broken (legacy eras): handles only the JSON-RPC ids it expects from its upstream. It refuses a server request whose
// id is shaped like its own ids ("mcp-remote-…", "sgw:…") with -32600, as mcp-remote 0.15.1 does
// (dist/chunk-KJCT2FXL.js:32482-32490); keeps numeric ids as 32-bit integers, answering one past 2^31 − 1 under its
// digits as a string; parses a string of digits as a number; and re-encodes string ids as ASCII ("?" for every other
// character). Every decision and every byte of content is the reference relay's; only the pairing of the upstream's
// request with its response is broken (JSON-RPC 2.0 §5: the response's id "MUST be the same as the value of the id
// member in the Request Object"). The upstream's small integer ids, which every other case uses, pass untouched.
import { tapUpstream } from "./lib/upstream-tap.mjs";

const OWN_SHAPED = /^(mcp-remote-|sgw:)/;
const INT32_MAX = 2 ** 31 - 1;
/** What this relay makes of an id it receives: its own reading of the id space. */
function narrowed(id) {
  if (typeof id === "number" && Number.isInteger(id) && Math.abs(id) > INT32_MAX) return String(id);
  if (typeof id === "string" && /^(0|[1-9][0-9]{0,14})$/.test(id)) return Number(id);
  if (typeof id === "string") return id.replace(/[^\x20-\x7e]/gu, "?");
  return id;
}

tapUpstream({
  down: (m, io) => {
    if (m.id === undefined || typeof m.method !== "string") return m;
    if (typeof m.id === "string" && OWN_SHAPED.test(m.id)) {
      io.toUpstream({
        jsonrpc: "2.0",
        id: m.id,
        error: { code: -32600, message: "this relay reserves request ids of its own shape" },
      });
      return undefined;
    }
    // The relay answers under the id it was given, the narrowed one, and that goes upstream as it is.
    const id = narrowed(m.id);
    return id === m.id ? m : { ...m, id };
  },
});
