import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { parse as parseYaml } from "yaml";

/** Past this many entries, a flush keeps only the files this process read (other corpora, older versions of files). */
const MAX_ENTRIES = 2_000;

/**
 * YAML parsed once per file content, not once per run: a run reads the register and about 180 case files, and the
 * YAML parser spends about 0.3 s of CPU on them (cold, at start-up, before any relay starts), where JSON.parse of
 * the same data takes a few ms. Entries are keyed by the SHA-1 of the file's text, so an edited file is simply
 * parsed again; only data that survives a JSON round trip unchanged is kept. The cache is one JSON file in the
 * build folder (`dist/parsed-yaml.json`, removed by each build, so a new YAML parser never reads an old parse);
 * without a build folder, or one that cannot be written, every file is parsed as before.
 */
export class ParsedYamlCache {
  private entries: Map<string, string> | undefined;
  private readonly used = new Set<string>();
  private dirty = false;

  constructor(private readonly file: string) {}

  /** The data of a YAML text: from the cache, else parsed (a syntax error throws, as `yaml.parse` does). */
  parse(text: string): unknown {
    const entries = this.load();
    const key = createHash("sha1").update(text).digest("base64");
    this.used.add(key);
    const hit = entries.get(key);
    if (hit !== undefined) return JSON.parse(hit);
    const data = parseYaml(text, { prettyErrors: true });
    const json = JSON.stringify(data);
    if (json !== undefined && isDeepStrictEqual(JSON.parse(json), data)) {
      entries.set(key, json);
      this.dirty = true;
    }
    return data;
  }

  /** Writes the new entries (aside, then renamed); a folder that cannot be written is no cache, never an error. */
  flush(): void {
    if (!this.dirty || !this.entries || !existsSync(dirname(this.file))) return;
    this.dirty = false;
    let kept = [...this.entries];
    if (kept.length > MAX_ENTRIES) kept = kept.filter(([key]) => this.used.has(key));
    const partial = `${this.file}.${process.pid}.tmp`;
    try {
      writeFileSync(partial, JSON.stringify(Object.fromEntries(kept)));
      renameSync(partial, this.file);
    } catch {
      // read-only install: parse every time
    }
  }

  private load(): Map<string, string> {
    if (this.entries) return this.entries;
    this.entries = new Map();
    try {
      const stored = JSON.parse(readFileSync(this.file, "utf8")) as Record<string, unknown>;
      for (const [key, json] of Object.entries(stored))
        if (typeof json === "string") this.entries.set(key, json);
    } catch {
      // no cache yet (or an unreadable one, rewritten at the next flush)
    }
    return this.entries;
  }
}
