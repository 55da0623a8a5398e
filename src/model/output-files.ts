import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { stringify as toYaml } from "yaml";

/** Writes a JSON file under the run's output folder; returns its sha256 (recorded in results.json). */
export function writeJsonFile(outDir: string, rel: string, value: unknown): string {
  const file = join(outDir, rel);
  mkdirSync(dirname(file), { recursive: true });
  const bytes = `${JSON.stringify(value, null, 2)}\n`;
  writeFileSync(file, bytes);
  return createHash("sha256").update(bytes).digest("hex");
}

/** Writes a text file under the run's output folder; returns the sha256 of its UTF-8 bytes. */
export function writeTextFile(outDir: string, rel: string, text: string): string {
  const file = join(outDir, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function writeYamlFile(outDir: string, rel: string, value: unknown, header: string): void {
  const file = join(outDir, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${header}\n${toYaml(value, { lineWidth: 0 })}`);
}
