import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  COMPACT_HEAD_CHARS,
  compactedOf,
  compactMarker,
  compactValue,
  sha256Hex,
  utf8Head,
} from "../../src/model/compact.ts";

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const MIB10 = "x".repeat(10 * 1024 * 1024);

describe("compactValue: long strings become head + true size + sha256", () => {
  it("keeps a value whose strings are within the cap as it is (the same object, nothing copied)", () => {
    const value = { a: "x".repeat(1024), b: [1, null, { c: "é".repeat(512) }], d: true };
    expect(compactValue(value, 1024)).toBe(value);
  });

  it("cuts a string over the cap to its head, and names its true size in bytes and its sha256", () => {
    const stats = { strings: 0 };
    const out = compactValue({ result: { _meta: { pad: MIB10 } }, model: "m" }, 64 * 1024, stats) as {
      result: { _meta: { pad: string } };
      model: string;
    };
    const pad = out.result._meta.pad;
    expect(pad).toBe(`${"x".repeat(COMPACT_HEAD_CHARS)}${compactMarker(10 * 1024 * 1024, sha(MIB10))}`);
    expect(compactedOf(pad)).toEqual({ bytes: 10 * 1024 * 1024, sha256: sha(MIB10) });
    expect(out.model).toBe("m");
    expect(stats.strings).toBe(1);
  });

  it("counts the cap in UTF-8 bytes and keeps equal strings equal, strings differing past the head apart", () => {
    const a = "é".repeat(600); // 600 characters, 1200 bytes
    expect(compactValue(a, 1200)).toBe(a);
    expect(compactedOf(compactValue(a, 1199) as string)).toEqual({ bytes: 1200, sha256: sha(a) });
    const twin = `${MIB10}`;
    const other = `${MIB10.slice(0, -1)}y`;
    const [x, y, z] = compactValue([MIB10, twin, other], 1024) as string[];
    expect(x).toBe(y);
    expect(x).not.toBe(z);
    expect(x!.slice(0, COMPACT_HEAD_CHARS)).toBe(z!.slice(0, COMPACT_HEAD_CHARS));
  });

  it("leaves a string it already compacted as it is (compacting twice changes nothing)", () => {
    const once = compactValue({ s: MIB10 }, 2048);
    expect(compactValue(once, 2048)).toBe(once);
  });

  it("the head of a small cap is at most the cap in bytes", () => {
    const out = compactValue("€".repeat(5000), 100) as string;
    const head = out.slice(0, out.indexOf("…["));
    expect(Buffer.byteLength(head, "utf8")).toBeLessThanOrEqual(100);
    expect(head).toBe("€".repeat(33));
  });
});

describe("sha256Hex", () => {
  it("is the sha256 of the whole text's UTF-8 bytes, however long, whatever sits at its slices' edges", () => {
    for (const text of [
      "",
      "abc",
      MIB10,
      `${"x".repeat(64 * 1024 - 1)}😀${"y".repeat(70_000)}`, // a surrogate pair across the first slice's edge
      "é€😀".repeat(100_000),
    ])
      expect(sha256Hex(text)).toBe(sha(text));
  });
});

describe("utf8Head", () => {
  it("is the longest prefix within the byte cap, never part of a character", () => {
    expect(utf8Head("abc", 2)).toBe("ab");
    expect(utf8Head("abc", 10)).toBe("abc");
    expect(utf8Head("aé", 2)).toBe("a");
    expect(utf8Head("aé", 3)).toBe("aé");
    expect(utf8Head("😀😀", 7)).toBe("😀");
    expect(utf8Head("😀😀", 8)).toBe("😀😀");
  });
});
