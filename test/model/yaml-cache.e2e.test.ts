import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ParsedYamlCache } from "../../src/model/yaml-cache.ts";
import { tempDir } from "../helpers/cli.ts";

const TEXT =
  "id: a\nrequest:\n  messages: [{ role: user, content: { type: text, text: 'hi ÄΩ' } }]\n  maxTokens: 5\n";

describe("ParsedYamlCache (YAML parsed once per file content)", () => {
  it("gives what yaml.parse gives, from the cache in a later process, as a fresh copy each time", () => {
    const file = join(tempDir(), "parsed-yaml.json");
    const first = new ParsedYamlCache(file);
    expect(first.parse(TEXT)).toEqual(parse(TEXT));
    first.flush();
    expect(existsSync(file)).toBe(true);
    const later = new ParsedYamlCache(file);
    const a = later.parse(TEXT) as { id: string };
    expect(a).toEqual(parse(TEXT));
    a.id = "changed";
    expect(later.parse(TEXT)).toEqual(parse(TEXT));
  });

  it("parses an edited text anew, keeps what JSON cannot hold out of the cache, and throws on bad YAML", () => {
    const file = join(tempDir(), "parsed-yaml.json");
    const cache = new ParsedYamlCache(file);
    cache.parse(TEXT);
    expect(cache.parse(TEXT.replace("id: a", "id: b"))).toMatchObject({ id: "b" });
    expect(cache.parse("x: .inf\n")).toEqual({ x: Number.POSITIVE_INFINITY });
    expect(() => cache.parse("a: [\n")).toThrow();
    cache.flush();
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")))).toHaveLength(2);
    expect(new ParsedYamlCache(file).parse("x: .inf\n")).toEqual({ x: Number.POSITIVE_INFINITY });
  });

  it("writes nothing where its folder does not exist", () => {
    const file = join(tempDir(), "no-such-folder", "parsed-yaml.json");
    const cache = new ParsedYamlCache(file);
    expect(cache.parse(TEXT)).toEqual(parse(TEXT));
    cache.flush();
    expect(existsSync(file)).toBe(false);
  });
});
