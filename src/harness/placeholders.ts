import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";

// A profile's placeholders filled in, and its `files:` written: what a relay's start needs before any process runs.

export interface Placeholders {
  "upstream.command"?: string;
  "upstream.url"?: string;
  "upstream.origin"?: string;
  "upstream.path"?: string;
  port: string;
  tmp: string;
}

/** Replaces {{name}} placeholders; an unknown or unavailable placeholder is an error naming it. */
export function fillPlaceholders(text: string, values: Placeholders): string {
  return text.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, name: string) => {
    const value = (values as unknown as Record<string, string | undefined>)[name];
    if (value === undefined) throw new Error(`placeholder {{${name}}} is not available for this profile`);
    return value;
  });
}

/**
 * Writes a profile's `files:` (path under {{tmp}} → content, both filled as `command` is) before the relay starts:
 * each file 0600, its folders 0700, in the session's own temporary folder. A path that would land outside
 * `values.tmp` is refused (the profile's load-time check already refuses one; this holds whatever the placeholders
 * hold). Returns the paths written.
 */
export function writeProfileFiles(files: Record<string, string>, values: Placeholders): string[] {
  const written: string[] = [];
  for (const [key, content] of Object.entries(files)) {
    const path = resolve(values.tmp, fillPlaceholders(key, values));
    const inside = relative(values.tmp, path);
    if (inside === "" || inside.startsWith(`..${sep}`) || inside === ".." || isAbsolute(inside))
      throw new Error(`files: '${key}' does not resolve inside the run's temporary folder`);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, fillPlaceholders(content, values), { mode: 0o600 });
    chmodSync(path, 0o600);
    written.push(path);
  }
  return written;
}
