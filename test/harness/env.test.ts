import { describe, expect, it } from "vitest";
import { relayEnv } from "../../src/harness/env.ts";

const harnessEnv = {
  PATH: "/usr/bin",
  HOME: "/home/ci",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  TMPDIR: "/tmp",
  GITHUB_TOKEN: "ghp_secret",
  AWS_SECRET_ACCESS_KEY: "aws-secret",
  NODE_OPTIONS: "--require /harness/hook.js",
  npm_config_registry: "https://registry.example",
};

describe("relayEnv: the relay under test gets an allowlisted environment", () => {
  it("passes PATH, HOME, locale and temp variables, and nothing secret", () => {
    const env = relayEnv({ inheritEnv: false }, {}, harnessEnv);
    expect(env).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/ci",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      TMPDIR: "/tmp",
    });
  });

  it("adds the profile's env on top (it may override an allowlisted variable)", () => {
    const env = relayEnv({ inheritEnv: false }, { RELAY_MODE: "strict", PATH: "/opt/bin" }, harnessEnv);
    expect(env.RELAY_MODE).toBe("strict");
    expect(env.PATH).toBe("/opt/bin");
    expect(env.GITHUB_TOKEN).toBeUndefined();
  });

  it("inheritEnv: true passes the whole environment", () => {
    const env = relayEnv({ inheritEnv: true }, { X: "1" }, harnessEnv);
    expect(env).toEqual({ ...harnessEnv, X: "1" });
  });
});
