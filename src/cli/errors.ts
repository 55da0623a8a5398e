// Input errors are raised by loaders below the CLI; the CLI prints them as one line and exits 2.
export { EXIT, InputError, zodIssueLine } from "../model/errors.ts";
