import { describe, expect, it } from "vitest";
import { firstDifference, hasPointer } from "../../src/judge/json-diff.ts";

describe("firstDifference", () => {
  it("finds no difference between deep-equal values, whatever the key order", () => {
    expect(firstDifference(1, 1)).toBeNull();
    expect(firstDifference("a", "a")).toBeNull();
    expect(firstDifference(null, null)).toBeNull();
    expect(firstDifference({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBeNull();
    expect(firstDifference([], [])).toBeNull();
    expect(firstDifference({}, {})).toBeNull();
  });

  it("reports the root as / for differing scalars, types and null", () => {
    expect(firstDifference(1, 2)).toBe("/");
    expect(firstDifference("1", 1)).toBe("/");
    expect(firstDifference(null, {})).toBe("/");
    expect(firstDifference({}, null)).toBe("/");
    expect(firstDifference(undefined, null)).toBe("/");
    expect(firstDifference([], {})).toBe("/");
    expect(firstDifference({}, [])).toBe("/");
    expect(firstDifference([1], [1, 2])).toBe("/");
  });

  it("points at the first differing array element and object member", () => {
    expect(firstDifference([1, 2, 3], [1, 5, 6])).toBe("/1");
    expect(firstDifference({ a: { b: [0, 1] } }, { a: { b: [0, 2] } })).toBe("/a/b/1");
    expect(firstDifference({ a: 1 }, { a: 1, extra: true })).toBe("/extra");
    expect(firstDifference({ a: 1, gone: true }, { a: 1 })).toBe("/gone");
    expect(firstDifference({ a: 1, b: 1 }, { a: 2, b: 2 })).toBe("/a");
  });

  it("escapes ~ and / in member names (RFC 6901)", () => {
    expect(firstDifference({ "a/b": 1 }, { "a/b": 2 })).toBe("/a~1b");
    expect(firstDifference({ "a~b": 1 }, { "a~b": 2 })).toBe("/a~0b");
    expect(firstDifference({ "~/": 1 }, {})).toBe("/~0~1");
    expect(firstDifference({ x: { "a/b~": 1 } }, { x: { "a/b~": 1, y: 2 } })).toBe("/x/y");
  });

  it("keeps the pointer it was given as a prefix", () => {
    expect(firstDifference(1, 2, "/p")).toBe("/p");
    expect(firstDifference([1], [2], "/p")).toBe("/p/0");
  });
});

describe("hasPointer", () => {
  const doc = { a: { b: [10, null, { "c/d": 1, "e~f": 2 }] }, z: null, "": 5 };

  it("resolves the root and present members, null included", () => {
    expect(hasPointer(doc, "")).toBe(true);
    expect(hasPointer(undefined, "")).toBe(false);
    expect(hasPointer(null, "")).toBe(true);
    expect(hasPointer(doc, "/a")).toBe(true);
    expect(hasPointer(doc, "/a/b/0")).toBe(true);
    expect(hasPointer(doc, "/a/b/1")).toBe(true);
    expect(hasPointer(doc, "/z")).toBe(true);
    expect(hasPointer(doc, "/")).toBe(true);
  });

  it("unescapes ~1 and ~0", () => {
    expect(hasPointer(doc, "/a/b/2/c~1d")).toBe(true);
    expect(hasPointer(doc, "/a/b/2/e~0f")).toBe(true);
    expect(hasPointer(doc, "/a/b/2/c/d")).toBe(false);
    expect(hasPointer({ "~1": 1 }, "/~01")).toBe(true);
    expect(hasPointer({ "/": 1 }, "/~01")).toBe(false);
  });

  it("rejects absent members, bad indexes and paths through scalars", () => {
    expect(hasPointer(doc, "/missing")).toBe(false);
    expect(hasPointer(doc, "/a/b/3")).toBe(false);
    expect(hasPointer(doc, "/a/b/-1")).toBe(false);
    expect(hasPointer(doc, "/a/b/1.5")).toBe(false);
    expect(hasPointer(doc, "/a/b/x")).toBe(false);
    expect(hasPointer(doc, "/a/b/0/x")).toBe(false);
    expect(hasPointer(doc, "/z/x")).toBe(false);
    expect(hasPointer(doc, "/a/toString")).toBe(false);
    expect(hasPointer([1, 2], "/length")).toBe(false);
  });
});
