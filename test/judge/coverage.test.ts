import { describe, expect, it } from "vitest";
import { buildCells, type JudgedCase } from "../../src/judge/cells.ts";
import {
  COVERAGE_ROW,
  contentTypesOf,
  missingCoverage,
  requiredCoverage,
  violationCoverage,
} from "../../src/judge/coverage.ts";
import type { Register } from "../../src/model/register.ts";

const text = (t: string) => ({ type: "text", text: t });
const msg = (role: string, content: unknown) => ({ role, content });

describe("violationCoverage", () => {
  it("classes a request violation by message index and the block type it sits in", () => {
    const five = [0, 1, 2, 3, 4].map((i) => msg(i % 2 ? "assistant" : "user", text(`m${i}`)));
    const middleImage = structuredClone(five);
    middleImage[2] = msg("user", { type: "image", data: "!!", mimeType: "image/png" });
    expect(
      violationCoverage(
        "client",
        "2025-11-25",
        { messages: middleImage, maxTokens: 8 },
        undefined,
        undefined,
      ),
    ).toEqual({
      indexes: ["middle"],
      contentTypes: ["image"],
    });
    const lastRole = structuredClone(five);
    lastRole[4] = msg("system", text("x"));
    expect(
      violationCoverage("client", "2025-11-25", { messages: lastRole, maxTokens: 8 }, undefined, undefined),
    ).toEqual({
      indexes: ["last"],
      contentTypes: [],
    });
    const firstArray = structuredClone(five);
    firstArray[0] = msg("user", [text("ok"), { type: "audio", mimeType: "audio/wav" }]);
    expect(
      violationCoverage("client", "2025-11-25", { messages: firstArray, maxTokens: 8 }, undefined, undefined),
    ).toEqual({
      indexes: ["first"],
      contentTypes: ["audio"],
    });
  });

  it("classes a result violation by the block type it sits in", () => {
    const request = { messages: [msg("user", text("hi"))], maxTokens: 8 };
    const result = { role: "assistant", model: "m", content: { type: "image", data: "AAAA" } };
    expect(violationCoverage("server", "2025-06-18", request, result, undefined)).toEqual({
      indexes: [],
      contentTypes: ["image"],
    });
  });
});

describe("coverage of the #256 validation row", () => {
  it("requires every index class and content type of the era", () => {
    expect(contentTypesOf("2024-11-05")).toEqual(["text", "image"]);
    expect(contentTypesOf("2025-11-25")).toEqual(["text", "image", "audio", "tool_use", "tool_result"]);
    expect(requiredCoverage("2025-11-25", "server").contentTypes).not.toContain("tool_result");
    const required = requiredCoverage("2025-06-18", "client");
    expect(
      missingCoverage(required, [
        { indexes: ["first", "middle", "last"], contentTypes: ["text", "image", "audio"] },
      ]),
    ).toBeUndefined();
    expect(missingCoverage(required, [{ indexes: ["first"], contentTypes: ["text"] }])).toBe(
      "partly exercised: no case puts a violation at the middle, last message; none inside a block of type image, audio (a relay that checks only some positions or block types would pass)",
    );
  });

  it("makes a passing cell partial when its cases leave a position or block type uncovered", () => {
    const register: Register = {
      rows: [
        {
          id: COVERAGE_ROW,
          title: "t",
          side: "both",
          level: "SHOULD",
          severity: "failure",
          eras: ["2024-11-05"],
          quote: "q",
          url: "https://e.com/",
        } as Register["rows"][number],
      ],
    };
    const pass = (covers: JudgedCase["covers"]): JudgedCase => ({
      row: COVERAGE_ROW,
      era: "2024-11-05",
      side: "client",
      result: { id: "x", status: "pass", reason: "ok" },
      ...(covers ? { covers } : {}),
    });
    const [thin] = buildCells(
      register,
      [pass({ indexes: ["first"], contentTypes: ["text"] })],
      ["2024-11-05"],
    );
    expect(thin).toMatchObject({ status: "partial", note: expect.stringMatching(/^partly exercised/) });
    const [full] = buildCells(
      register,
      [pass({ indexes: ["first", "middle", "last"], contentTypes: ["text", "image"] })],
      ["2024-11-05"],
    );
    expect(full!.status).toBe("pass");
  });
});
