import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { Results } from "../../src/model/results.ts";
import { cliInProcess, ROOT, tempDir } from "../helpers/cli.ts";

/**
 * Four relays of shapes the harness could not drive before a profile could say how (issue #15), all one small SDK
 * gateway (targets/fixtures/relays/sdk-gateway.mjs): one that wants a bearer token on every HTTP request
 * (`downstream.headers`, from the environment), one that wants its upstream as a base URL (`{{upstream.origin}}`),
 * one that exposes upstream tools only through its own `execute` (`probe:` template), and one configured by a JSON
 * file that names its upstream (`files:`, issue #23). Each is driven and judged;
 * each also fails to be driven when its profile field is taken away, so the field is what makes it work.
 */
const FIXTURES = join(ROOT, "targets/fixtures");
const TOKEN = "fixture-token-5f3a";
const work = tempDir();

async function roundTrip(
  profile: string,
): Promise<{ code: number | null; stderr: string; results?: Results }> {
  const out = join(work, `out-${Math.random().toString(36).slice(2)}`);
  const run = await cliInProcess([
    "run",
    "--target",
    profile,
    "--rows",
    "sampling-relay-roundtrip",
    "--out",
    out,
    "--quiet",
    "--seed",
    "5",
  ]);
  let results: Results | undefined;
  try {
    results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
  } catch {
    results = undefined;
  }
  return { code: run.code, stderr: run.stderr, ...(results ? { results } : {}) };
}

/** A copy of a fixture profile (in the fixtures folder, so its relative paths hold) with one change. */
function variant(name: string, change: (profile: Record<string, any>) => void): string {
  const profile = parse(readFileSync(join(FIXTURES, `${name}.yaml`), "utf8"));
  change(profile);
  profile.name = `${name}-variant`;
  const file = join(FIXTURES, `.${name}-variant-${process.pid}.yaml`);
  writeFileSync(file, stringify(profile));
  return file;
}

const roundTripCell = (results: Results | undefined) =>
  results?.cells.find((c) => c.row === "sampling-relay-roundtrip");

describe("profiles drive relays that need a header, a base URL or a probe template", () => {
  const made: string[] = [];
  beforeAll(() => {
    process.env.MCPX_FIXTURE_TOKEN = TOKEN;
  });
  afterAll(async () => {
    delete process.env.MCPX_FIXTURE_TOKEN;
    const { rmSync } = await import("node:fs");
    for (const f of made) rmSync(f, { force: true });
  });

  it.each(["header-protected", "base-url", "execute-gateway", "config-file"])(
    "%s: the round trip passes",
    async (name) => {
      const run = await roundTrip(join(FIXTURES, `${name}.yaml`));
      expect(roundTripCell(run.results)?.status, run.stderr).toBe("pass");
      expect(run.code).toBe(0);
    },
  );

  it("a gateway that answers 503 until it has warmed up is driven once it is ready (readiness is an answered initialize)", async () => {
    const file = variant("header-protected", (p) => {
      p.command.splice(p.command.indexOf("--"), 0, "--warm-up-ms", "1500");
    });
    made.push(file);
    const run = await roundTrip(file);
    expect(roundTripCell(run.results)?.status, run.stderr).toBe("pass");
  });

  it("header-protected without its header: the relay refuses the session (401), no cell passes", async () => {
    const file = variant("header-protected", (p) => {
      delete p.downstream.headers;
    });
    made.push(file);
    const run = await roundTrip(file);
    const cell = roundTripCell(run.results);
    expect(cell?.status).not.toBe("pass");
    expect(JSON.stringify(cell)).toMatch(/401|refused|Unauthorized/i);
  });

  it("base-url given the full endpoint URL: the gateway appends /mcp to it and never reaches the upstream", async () => {
    const file = variant("base-url", (p) => {
      p.command = p.command.map((a: string) => a.replace("{{upstream.origin}}", "{{upstream.url}}"));
    });
    made.push(file);
    const run = await roundTrip(file);
    expect(roundTripCell(run.results)?.status).not.toBe("pass");
  });

  it("execute-gateway without the probe template: the probe tool is not exposed, said in the reason", async () => {
    const file = variant("execute-gateway", (p) => {
      delete p.probe;
    });
    made.push(file);
    const run = await roundTrip(file);
    const cell = roundTripCell(run.results);
    expect(cell?.status).not.toBe("pass");
    expect(JSON.stringify(cell)).toContain("does not expose the upstream's conformance_probe tool");
  });

  it("config-file starts without a shell: its JSON config is written by files: alone", () => {
    const profile = parse(readFileSync(join(FIXTURES, "config-file.yaml"), "utf8"));
    expect(profile.command[0]).toBe("node");
    expect(profile.command.join(" ")).not.toMatch(/\bsh\b|printf|\{\{upstream\.command\}\}/);
    expect(Object.keys(profile.files)).toEqual(["{{tmp}}/mcp.json"]);
  });

  it("config-file without files: the gateway finds no config and never relays, said in the cell", async () => {
    const file = variant("config-file", (p) => {
      delete p.files;
    });
    made.push(file);
    const run = await roundTrip(file);
    const cell = roundTripCell(run.results);
    expect(cell?.status).not.toBe("pass");
    expect(JSON.stringify(cell)).toContain("cannot read config");
  });

  it("a files: path outside {{tmp}} is the profile's error (exit 2), naming the file and the field", async () => {
    const file = variant("config-file", (p) => {
      p.files = { "{{tmp}}/../mcp.json": p.files["{{tmp}}/mcp.json"] };
    });
    made.push(file);
    const run = await roundTrip(file);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(file);
    expect(run.stderr).toContain("files.{{tmp}}/../mcp.json");
    expect(run.stderr).toContain("stays inside {{tmp}}");
  });

  it("a header variable that is not set, or a probe template with a typo, is the profile's error (exit 2)", async () => {
    delete process.env.MCPX_FIXTURE_TOKEN;
    const missing = await roundTrip(join(FIXTURES, "header-protected.yaml"));
    process.env.MCPX_FIXTURE_TOKEN = TOKEN;
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("downstream.headers.Authorization");
    expect(missing.stderr).toContain("MCPX_FIXTURE_TOKEN");
    const file = variant("execute-gateway", (p) => {
      p.probe.arguments.script = "{{nmae}}";
    });
    made.push(file);
    const typo = await roundTrip(file);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("probe.arguments");
    expect(typo.stderr).toContain("nmae");
  });
});
