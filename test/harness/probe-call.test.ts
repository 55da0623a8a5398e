import { describe, expect, it } from "vitest";
import {
  checkProbeTemplate,
  downstreamHeaders,
  findProbeTool,
  probeCall,
} from "../../src/harness/probe-call.ts";
import { badPlaceholders, TargetProfileSchema } from "../../src/model/target.ts";

const profile = (downstream: Record<string, unknown>) =>
  TargetProfileSchema.parse({ name: "p", command: ["relay"], downstream, upstream: { transport: "stdio" } });

describe("the probe call and downstream headers a profile describes", () => {
  it("renders the probe template over the probe's name, arguments and caseKey", () => {
    const call = probeCall(
      {
        tool: "execute",
        arguments: { script: '{"t": "{{name}}", "a": {{{json arguments}}} }', k: ["{{caseKey}}"] },
      },
      "ignored",
      { caseKey: 'row/"case"@era' },
    );
    expect(call.name).toBe("execute");
    expect(JSON.parse(call.arguments.script as string)).toEqual({
      t: "conformance_probe",
      a: { caseKey: 'row/"case"@era' },
    });
    expect(call.arguments.k).toEqual(['row/"case"@era']);
    expect(probeCall(undefined, "prefixed_conformance_probe", { caseKey: "x" })).toEqual({
      name: "prefixed_conformance_probe",
      arguments: { caseKey: "x" },
    });
  });

  it("refuses a template naming an unknown variable (strict)", () => {
    expect(() =>
      checkProbeTemplate({ tool: "execute", arguments: { s: "{{argumnets}}" } }, "p.yaml"),
    ).toThrow(/argumnets/);
  });

  it("finds the profile's tool, else the one ending with the probe's name, and quotes the list when absent", () => {
    const list = { result: { tools: [{ name: "execute" }, { name: "up_conformance_probe" }] } };
    expect(findProbeTool(list, undefined)).toBe("up_conformance_probe");
    expect(findProbeTool(list, { tool: "execute", arguments: {} })).toBe("execute");
    expect(() => findProbeTool({ result: { tools: [] } }, { tool: "run", arguments: {} })).toThrow(
      /"run" named by the profile's probe\.tool/,
    );
  });

  it("substitutes environment variables in headers; an unset one is the profile's error", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the profile's own ${NAME} syntax, not a JS template
    const p = profile({ transport: "sse", url: "http://x/sse", headers: { Authorization: "Bearer ${TOK}" } });
    expect(downstreamHeaders(p, "p.yaml", { TOK: "abc" })).toEqual({ Authorization: "Bearer abc" });
    expect(() => downstreamHeaders(p, "p.yaml", {})).toThrow(/TOK to be set/);
    expect(() => profile({ transport: "stdio", headers: { A: "b" } })).toThrow(/headers only for an HTTP/);
  });

  it("the upstream.origin and upstream.path placeholders need an HTTP upstream", () => {
    expect(badPlaceholders("{{upstream.origin}}", "streamable-http")).toEqual([]);
    expect(badPlaceholders("{{upstream.path}}", "stdio")[0]).toMatch(
      /an HTTP upstream.*\{\{upstream\.path\}\}/,
    );
  });
});
