import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PackageSchema, packageUrl, TargetProfileSchema } from "../../src/model/target.ts";

const ROOT = join(import.meta.dirname, "../..");
const base = {
  name: "x",
  command: ["x"],
  downstream: { transport: "stdio" },
  upstream: { transport: "stdio" },
};

describe("a profile's package: the published relay it drives, at an exact version", () => {
  it("takes an exact version in each registry and links to its page there", () => {
    const cases = [
      [
        { registry: "npm", name: "@civic/passthrough-mcp-server", version: "0.12.1", language: "typescript" },
        "https://www.npmjs.com/package/@civic/passthrough-mcp-server/v/0.12.1",
      ],
      [
        { registry: "pypi", name: "mcp-proxy", version: "0.10.0", language: "python" },
        "https://pypi.org/project/mcp-proxy/0.10.0/",
      ],
      [
        { registry: "go", name: "github.com/o/r/cmd/proxy", version: "v0.3.0", language: "go" },
        "https://pkg.go.dev/github.com/o/r/cmd/proxy@v0.3.0",
      ],
      [
        { registry: "crates", name: "rmcp-proxy", version: "0.2.0-rc.1", language: "rust" },
        "https://crates.io/crates/rmcp-proxy/0.2.0-rc.1",
      ],
      [
        { registry: "maven", name: "io.example:gateway", version: "1.0.0", language: "java" },
        "https://central.sonatype.com/artifact/io.example/gateway/1.0.0",
      ],
    ] as const;
    for (const [pkg, url] of cases) {
      const parsed = TargetProfileSchema.parse({ ...base, package: pkg });
      expect(packageUrl(parsed.package!)).toBe(url);
    }
  });

  it("refuses a range, an unknown registry or language, a Maven name without its group, and unknown keys", () => {
    const ok = { registry: "npm", name: "supergateway", version: "4.0.0", language: "typescript" };
    for (const [bad, field] of [
      [{ ...ok, version: "^4.0.0" }, "version"],
      [{ ...ok, version: "latest" }, "version"],
      [{ ...ok, registry: "cpan" }, "registry"],
      [{ ...ok, language: "perl" }, "language"],
      [{ ...ok, registry: "maven", name: "gateway", language: "java" }, "name"],
      [{ ...ok, url: "https://example.invalid" }, ""],
    ] as const) {
      const r = PackageSchema.safeParse(bad);
      expect(r.success, JSON.stringify(bad)).toBe(false);
      if (field) expect(r.error!.issues.map((i) => i.path.join("."))).toContain(field);
    }
  });

  it("is declared by every published relay's profile", () => {
    const dir = join(ROOT, "targets/real");
    const profiles = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
    expect(profiles.length).toBeGreaterThan(0);
    for (const f of profiles) {
      const profile = TargetProfileSchema.parse(parse(readFileSync(join(dir, f), "utf8")));
      expect(profile.package, `targets/real/${f} names no package:`).toBeDefined();
    }
  });
});
