import { existsSync, readFileSync } from "node:fs";

/** A GitHub Actions step's outputs as it wrote them to $GITHUB_OUTPUT (`name=value` lines); none when no file. */
export function readOutputs(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  return Object.fromEntries(
    readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}
