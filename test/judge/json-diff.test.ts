import { describe, expect, it } from "vitest";
import {
  describeDifference,
  describeDifferences,
  differences,
  firstDifference,
  hasPointer,
  quoteValue,
  scopedDifferences,
} from "../../src/judge/json-diff.ts";

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

describe("differences", () => {
  it("finds none between deep-equal values, whatever the key order", () => {
    expect(differences({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toEqual([]);
    expect(differences(null, null)).toEqual([]);
  });

  it("lists every difference with its pointer and both values, absent as undefined", () => {
    expect(
      differences(
        { role: "assistant", model: "M", stopReason: "endTurn", tags: [1, 2] },
        { role: "assistant", model: "m", tags: [1, 2, 3], _meta: { k: 1 } },
      ),
    ).toEqual([
      { pointer: "/model", sent: "M", received: "m" },
      { pointer: "/stopReason", sent: "endTurn", received: undefined },
      { pointer: "/tags/2", sent: undefined, received: 3 },
      { pointer: "/_meta", sent: undefined, received: { k: 1 } },
    ]);
    expect(differences(1, "1")).toEqual([{ pointer: "/", sent: 1, received: "1" }]);
    expect(differences([1], {})).toEqual([{ pointer: "/", sent: [1], received: {} }]);
    expect(differences({ "a/b~": 1 }, { "a/b~": 2 }, "/x")).toEqual([
      { pointer: "/x/a~1b~0", sent: 1, received: 2 },
    ]);
  });

  it("reports a block whose type changed as one replaced block", () => {
    const image = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };
    const text = { type: "text", text: "" };
    expect(differences({ content: image }, { content: text })).toEqual([
      { pointer: "/content", sent: image, received: text },
    ]);
    // Same type: member by member.
    expect(differences({ type: "text", text: "a" }, { type: "text", text: "b" })).toEqual([
      { pointer: "/text", sent: "a", received: "b" },
    ]);
  });

  it("keeps only what lies inside a case's pointers, relative to its document, each once", () => {
    const sent = { model: "M", stopReason: "endTurn" };
    const got = { model: "m" };
    expect(scopedDifferences(["/result/model"], "result", sent, got)).toEqual([
      { pointer: "/model", sent: "M", received: "m" },
    ]);
    expect(scopedDifferences(["/request/model"], "result", sent, got)).toEqual([]);
    expect(scopedDifferences(["/", "/result/model"], "result", sent, got)).toHaveLength(2);
    expect(scopedDifferences(["/result"], "result", sent, got)).toHaveLength(2);
  });
});

describe("describeDifferences", () => {
  it("names what changed, with both values and the change of kind", () => {
    expect(describeDifference({ pointer: "/stopReason", sent: "endTurn", received: undefined })).toBe(
      '/stopReason missing (sent "endTurn")',
    );
    expect(describeDifference({ pointer: "/_meta/k", sent: undefined, received: 1 })).toBe(
      "/_meta/k added (received 1)",
    );
    expect(describeDifference({ pointer: "/model", sent: "A", received: "a" })).toBe(
      '/model changed (sent "A", received "a")',
    );
    expect(describeDifference({ pointer: "/n", sent: "64", received: 64 })).toBe(
      '/n changed from a string to a number (sent "64", received 64)',
    );
    expect(describeDifference({ pointer: "/x", sent: null, received: [] })).toBe(
      "/x changed from null to an array (sent null, received [])",
    );
    expect(describeDifference({ pointer: "/c", sent: { type: "image" }, received: { type: "audio" } })).toBe(
      '/c changed from an image block to an audio block (sent {"type":"image"}, received {"type":"audio"})',
    );
    expect(
      describeDifference({ pointer: "/q", sent: 1, received: 2 }, { sent: "asked", received: "shown" }),
    ).toBe("/q changed (asked 1, shown 2)");
  });

  it("lists at most three, cuts long values and says how many more", () => {
    const many = differences({ a: 1, b: 2, c: 3, d: 4, e: 5 }, {});
    expect(describeDifferences(many)).toBe(
      "/a missing (sent 1), /b missing (sent 2), /c missing (sent 3) and 2 more differences",
    );
    expect(describeDifferences(many.slice(0, 4))).toMatch(/and 1 more difference$/);
    expect(describeDifferences([])).toBe("");
    expect(quoteValue("x".repeat(200))).toBe(`"${"x".repeat(77)}…" (200 bytes)`);
    expect(quoteValue(undefined)).toBe("nothing");
    expect(describeDifferences(many, undefined, { items: 1, valueChars: 3 })).toBe(
      "/a missing (sent 1) and 4 more differences",
    );
  });
});

describe("quoteValue: a cut value names its true size", () => {
  it("quotes a value that fits whole, without a size", () => {
    expect(quoteValue("x".repeat(78))).toBe(`"${"x".repeat(78)}"`);
    expect(quoteValue({ a: [1, "b", null] })).toBe('{"a":[1,"b",null]}');
    expect(quoteValue(8)).toBe("8");
    expect(quoteValue(null)).toBe("null");
  });

  it("says how many UTF-8 bytes a cut string has, and how many bytes of JSON a cut object or array has", () => {
    const mib = "x".repeat(10 * 1024 * 1024);
    expect(quoteValue(mib)).toBe(`"${"x".repeat(77)}…" (10485760 bytes)`);
    expect(quoteValue("é".repeat(100))).toBe(`"${"é".repeat(77)}…" (200 bytes)`);
    const meta = { "example.com/padding": mib };
    const quoted = quoteValue(meta);
    expect(quoted).toBe(`{"example.com/padding":"${"x".repeat(55)}… (10485786 bytes of JSON)`);
    expect(quoteValue([mib])).toBe(`["${"x".repeat(77)}… (10485764 bytes of JSON)`);
  });

  it("the reason of a difference carries the size (sampling-relay-content-unchanged names an oversized value)", () => {
    const padding = "x".repeat(10 * 1024 * 1024);
    const diffs = differences({ model: "m" }, { model: "m", _meta: { pad: padding } });
    expect(describeDifferences(diffs)).toBe(
      `/_meta added (received {"pad":"${"x".repeat(71)}… (10485770 bytes of JSON))`,
    );
    expect(describeDifference({ pointer: "/_meta/pad", sent: "a", received: padding })).toBe(
      `/_meta/pad changed (sent "a", received "${"x".repeat(77)}…" (10485760 bytes))`,
    );
  });
});
