import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { writeProfileFiles } from "../../src/harness/placeholders.ts";
import { loadTarget } from "../../src/model/load.ts";
import { profileFileProblem, TargetProfileSchema } from "../../src/model/target.ts";
import { ROOT, tempDir } from "../helpers/paths.ts";

/**
 * A profile's `files:` (issue #23): a config-driven relay's config file, written by the harness into the session's
 * temporary folder before the relay starts, with the placeholders `command` takes. The relay that reads one is driven
 * in test/e2e/profile-fields.test.ts; here, the load-time rules and what is written.
 */
const base = {
  name: "config-driven",
  command: ["node", "relay.mjs", "{{tmp}}/mcp.json"],
  downstream: { transport: "stdio" },
  upstream: { transport: "stdio" },
};

const issues = (files: Record<string, string>, upstream = "stdio") => {
  const r = TargetProfileSchema.safeParse({ ...base, upstream: { transport: upstream }, files });
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("files: the load-time rules", () => {
  it("accepts a path under {{tmp}} (folders too) with placeholders in the content", () => {
    expect(
      issues({
        "{{tmp}}/mcp.json": '{"mcpServers": {"x": {"command": "{{upstream.command}}"}}}',
        "{{ tmp }}/conf/gateway.yaml": "port: {{port}}\nstate: {{tmp}}/state\n",
      }),
    ).toEqual([]);
    expect(TargetProfileSchema.parse(base).files).toEqual({});
  });

  it.each([
    ["/etc/passwd", "a path under {{tmp}}"],
    ["mcp.json", "a path under {{tmp}}"],
    ["{{tmp}}", "a path under {{tmp}}"],
    ["{{tmp}}/", "not the folder itself"],
    ["{{tmp}}/../mcp.json", "stays inside {{tmp}}"],
    ["{{tmp}}/a/../../mcp.json", "stays inside {{tmp}}"],
    ["{{tmp}}/upstream", "upstream shim"],
    ["{{tmp}}/./upstream.token", "upstream token"],
    ["{{port}}/{{tmp}}/x", "a path under {{tmp}}"],
  ])("refuses the path %s", (key, message) => {
    const found = issues({ [key]: "{}" });
    expect(found.join("\n")).toContain(`files.${key}: `);
    expect(found.join("\n")).toContain(message);
  });

  it("checks the placeholders of the path and the content as it checks the command's", () => {
    expect(issues({ "{{tmp}}/a.json": "{{upstream.comand}}" }).join("\n")).toContain(
      "a known placeholder, got {{upstream.comand}}",
    );
    expect(issues({ "{{tmp}}/{{nope}}.json": "{}" }).join("\n")).toContain("got {{nope}}");
    expect(issues({ "{{tmp}}/a.json": "{{upstream.command}}" }, "streamable-http").join("\n")).toContain(
      "upstream.transport stdio for {{upstream.command}}",
    );
    expect(issues({ "{{tmp}}/a.json": "{{upstream.url}}" }, "streamable-http")).toEqual([]);
  });

  it("profileFileProblem: a path inside is fine, however it is spelled", () => {
    expect(profileFileProblem("{{tmp}}/a/b/../c.json")).toBeUndefined();
    expect(profileFileProblem("{{tmp}}//x")).toBeUndefined();
  });
});

describe("files: what is written before the relay starts", () => {
  it("fills the placeholders in path and content, creates folders, writes each file 0600", () => {
    const tmp = tempDir();
    const values = { "upstream.command": "/opt/shim/upstream", port: "24680", tmp };
    const written = writeProfileFiles(
      {
        "{{tmp}}/mcp.json": '{"mcpServers": {"conformance": {"command": "{{upstream.command}}"}}}',
        "{{tmp}}/conf/{{port}}.yaml": "listen: {{port}}\n",
      },
      values,
    );
    expect(written).toEqual([join(tmp, "mcp.json"), join(tmp, "conf/24680.yaml")]);
    expect(JSON.parse(readFileSync(join(tmp, "mcp.json"), "utf8"))).toEqual({
      mcpServers: { conformance: { command: "/opt/shim/upstream" } },
    });
    expect(readFileSync(join(tmp, "conf/24680.yaml"), "utf8")).toBe("listen: 24680\n");
    for (const file of written) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(tmp, "conf")).mode & 0o077).toBe(0);
  });

  it("refuses, whatever the placeholders hold, a path that lands outside the folder", () => {
    const tmp = tempDir();
    expect(() => writeProfileFiles({ "{{tmp}}/../escape.json": "{}" }, { port: "1", tmp })).toThrow(
      "does not resolve inside the run's temporary folder",
    );
  });
});

describe("targets/examples/mcpx.yaml: mcpx's config written by files:, no shell", () => {
  it("loads, writes MCPX_CONFIG's file with the upstream command, and starts mcpx itself", () => {
    const file = join(ROOT, "targets/examples/mcpx.yaml");
    const profile = loadTarget(file);
    expect(profile.command[0]).toBe("mcpx");
    expect(profile.command.join(" ")).not.toMatch(/\bsh\b|printf/);
    expect(Object.keys(profile.files)).toEqual([profile.env.MCPX_CONFIG]);
    const tmp = tempDir();
    const [written] = writeProfileFiles(profile.files, { "upstream.command": "/x/upstream", port: "2", tmp });
    expect(JSON.parse(readFileSync(written!, "utf8")).mcpServers.conformance).toEqual({
      command: "/x/upstream",
      protocol: "force-initialize",
    });
    // The raw YAML too: the content is a string, not a parsed object.
    expect(typeof Object.values(parse(readFileSync(file, "utf8")).files)[0]).toBe("string");
  });
});
