// Broken: never relays sampling at all — every sampling/createMessage is answered with -32602 before anyone is
// asked. It "refuses every bad request with the right code" and "never delivers a bad result", so without the
// round-trip prerequisite it would be credited with validating; with it, it must fail every row.
import { runBroken } from "./lib/broken.ts";

await runBroken("never-relays", {
  checkRequest: () => ({
    legal: false,
    errors: [
      {
        rule: "relay.sampling-unsupported",
        pointer: "",
        level: "MUST",
        message: "this relay does not relay sampling",
        code: -32602,
        source: "targets/broken/relays/never-relays.ts",
      },
    ],
    warnings: [],
    code: -32602,
  }),
});
