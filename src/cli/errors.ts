/** Exit codes of the CLI contract. */
export const EXIT = { ok: 0, failed: 1, usage: 2, harness: 3 } as const;

// Input errors are raised by loaders below the CLI; the CLI prints them as one line and exits 2.
export { InputError, zodIssueLine } from "../model/errors.ts";
