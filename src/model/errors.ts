/** Exit codes of the CLI contract (docs/cli.md, "Exit codes"). */
export const EXIT = { ok: 0, failed: 1, usage: 2, harness: 3 } as const;

/**
 * A user-facing input error: bad usage, bad target profile, bad case file. Printed as one line naming the
 * file and field, exit 2.
 */
export class InputError extends Error {
  constructor(
    message: string,
    readonly file?: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = "InputError";
  }

  /** "file: field: message" with the parts that are known. */
  oneLine(): string {
    return [this.file, this.field, this.message].filter((p) => p !== undefined && p !== "").join(": ");
  }
}

/** Formats the first issue of a zod error as "field: expected …". */
export function zodIssueLine(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): {
  field: string;
  message: string;
} {
  const issue = error.issues[0];
  if (!issue) return { field: "", message: "invalid" };
  const field = issue.path
    .map((p) => (typeof p === "number" ? `[${p}]` : String(p)))
    .join(".")
    .replace(/\.\[/g, "[");
  return { field: field || "(root)", message: issue.message };
}
