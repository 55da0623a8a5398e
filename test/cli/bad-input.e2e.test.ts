import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { ROOT, tempDir } from "../helpers/cli.ts";

/**
 * Bad input of every kind a user meets: one line on stderr naming the file or flag, the field and what was expected,
 * exit 2, and no stack trace. In-process (main), so the table stays fast.
 */

const dir = tempDir("mcpx-conform-test-badinput-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GOOD_PROFILE = `name: good
command: ["node", "${join(ROOT, "bin/mcpx-conform.js")}", "relay", "--", "{{upstream.command}}"]
downstream: { transport: stdio }
upstream: { transport: stdio }
`;
const ROUNDTRIP = readFileSync(join(ROOT, "cases/sampling-relay-roundtrip/text-roundtrip.yaml"), "utf8");

let n = 0;
function file(name: string, text: string): string {
  const sub = join(dir, `f${n++}`);
  mkdirSync(sub, { recursive: true });
  const path = join(sub, name);
  writeFileSync(path, text);
  return path;
}

/** A case corpus folder holding the round-trip case plus `extra` files (path under the folder → text). */
function corpus(extra: Record<string, string>): string {
  const root = join(dir, `cases${n++}`);
  mkdirSync(join(root, "sampling-relay-roundtrip"), { recursive: true });
  writeFileSync(join(root, "sampling-relay-roundtrip/text-roundtrip.yaml"), ROUNDTRIP);
  for (const [p, text] of Object.entries(extra)) {
    mkdirSync(join(root, p, ".."), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  return root;
}

async function capture(argv: string[]): Promise<{ code: number; stderr: string }> {
  const err: string[] = [];
  const e = process.stderr.write.bind(process.stderr);
  const o = process.stdout.write.bind(process.stdout);
  process.stderr.write = ((s: string) => err.push(String(s)) > 0) as typeof process.stderr.write;
  process.stdout.write = ((s: string) => err.push(String(s)) > 0) as typeof process.stdout.write;
  try {
    const code = await main(argv);
    return { code, stderr: err.join("") };
  } finally {
    process.stderr.write = e;
    process.stdout.write = o;
  }
}

const profile = (text: string) => ["run", "--target", file("profile.yaml", text), "--out", join(dir, "out")];
const withProfile = (replace: [string | RegExp, string]) =>
  profile(GOOD_PROFILE.replace(replace[0], replace[1]));
const cases = (extra: Record<string, string>) => [
  "run",
  "--target",
  file("p.yaml", GOOD_PROFILE),
  "--cases",
  corpus(extra),
  "--out",
  join(dir, "out"),
];
const roundtripWith = (replace: [string | RegExp, string]) => ROUNDTRIP.replace(replace[0], replace[1]);

const TABLE: Array<[string, () => string[], RegExp]> = [
  // Target profiles
  [
    "profile: missing file",
    () => ["run", "--target", join(dir, "nope.yaml")],
    /nope\.yaml: cannot read file \(ENOENT\)/,
  ],
  ["profile: YAML syntax error", () => profile("name: [unclosed\n"), /profile\.yaml: not valid YAML: /],
  [
    "profile: JSON syntax error",
    () => ["run", "--target", file("p.json", "{ nope")],
    /p\.json: not valid JSON: /,
  ],
  [
    "profile: wrong type",
    () => profile(`${GOOD_PROFILE}startupTimeoutMs: fast\n`),
    /profile\.yaml: startupTimeoutMs: expected number, received string/,
  ],
  [
    "profile: negative timeout",
    () => profile(`${GOOD_PROFILE}caseTimeoutMs: -5\n`),
    /profile\.yaml: caseTimeoutMs: expected number to be >0/,
  ],
  [
    "profile: unknown key",
    () => profile(`${GOOD_PROFILE}retries: 3\n`),
    /profile\.yaml: \(root\): expected .*retries/i,
  ],
  [
    "profile: missing command",
    () => profile(GOOD_PROFILE.replace(/^command:.*\n/m, "")),
    /profile\.yaml: command: expected array/,
  ],
  [
    "profile: empty command",
    () => withProfile([/^command:.*$/m, "command: []"]),
    /profile\.yaml: command: expected array to have >=1 items/,
  ],
  [
    "profile: broker template that does not parse",
    () =>
      profile(
        `${GOOD_PROFILE}answerer:\n  kind: broker\n  list: { http: { url: "http://127.0.0.1:{{port}}/q" } }\n  show: { server: /s, messages: /m, request: /r }\n  accept: { http: { method: POST, url: "http://127.0.0.1:{{port}}/q/{{id}}", body: "{{json result" } }\n  decline: { http: { method: POST, url: "http://127.0.0.1:{{port}}/q/{{id}}/decline" } }\n`,
      ),
    /profile\.yaml: answerer\.accept\.http\.body: expected a handlebars template, got one that does not parse/,
  ],
  [
    "profile: broker command not on PATH",
    () =>
      profile(
        `${GOOD_PROFILE}answerer:\n  kind: broker\n  list: { command: [no-such-broker-cli, list] }\n  show: { server: /s, messages: /m, request: /r }\n  accept: { command: [no-such-broker-cli, accept, "{{id}}", "{{json result}}"] }\n  decline: { command: [no-such-broker-cli, decline, "{{id}}"] }\n`,
      ),
    /profile\.yaml: answerer\.list\.command\[0\]: cannot run 'no-such-broker-cli': not found on PATH \(ENOENT\)/,
  ],
  [
    "profile: unknown transport",
    () => withProfile(["downstream: { transport: stdio }", "downstream: { transport: websocket }"]),
    /profile\.yaml: downstream\.transport: expected one of "stdio"\|"streamable-http"\|"sse"/,
  ],
  [
    "profile: sse without url",
    () => withProfile(["downstream: { transport: stdio }", "downstream: { transport: sse }"]),
    /profile\.yaml: downstream\.url: expected a url is required/,
  ],
  [
    "profile: unknown era",
    () => profile(`${GOOD_PROFILE}eras: [2099-01-01]\n`),
    /profile\.yaml: eras\[0\]: expected /,
  ],
  [
    "profile: unknown answerer",
    () => profile(`${GOOD_PROFILE}answerer: { kind: robot }\n`),
    /profile\.yaml: answerer\.kind: expected /,
  ],
  [
    "profile: bad name",
    () => withProfile(["name: good", "name: ../evil"]),
    /profile\.yaml: name: expected a name usable as a folder name/,
  ],
  [
    "profile: placeholder typo",
    () => withProfile(["{{upstream.command}}", "{{upstream.cmd}}"]),
    /profile\.yaml: command\[4\]: expected a known placeholder, got \{\{upstream\.cmd\}\}/,
  ],
  [
    "profile: env value not a string",
    () => profile(`${GOOD_PROFILE}env: { A: 1 }\n`),
    /profile\.yaml: env\.A: expected string, received number/,
  ],
  [
    "profile: inheritEnv not a boolean",
    () => profile(`${GOOD_PROFILE}inheritEnv: "yes"\n`),
    /profile\.yaml: inheritEnv: expected boolean/,
  ],
  // Case files
  [
    "case: YAML syntax error",
    () => cases({ "sampling-relay-roundtrip/broken.yaml": "id: [\n" }),
    /broken\.yaml: not valid YAML: /,
  ],
  [
    "case: unknown row",
    () =>
      cases({
        "sampling-relay-roundtrip/x.yaml": roundtripWith([
          "row: sampling-relay-roundtrip",
          "row: sampling-nope",
        ]).replace("id: text-roundtrip", "id: x"),
      }),
    /x\.yaml: row: unknown register row 'sampling-nope'/,
  ],
  [
    "case: wrong type",
    () =>
      cases({
        "sampling-relay-roundtrip/y.yaml": roundtripWith(["maxTokens: 64", "maxTokens: 64\n  bogus: 1"])
          .replace("id: text-roundtrip", "id: y")
          .replace("title: A valid", "title: 7\nx: A valid"),
      }),
    /y\.yaml: .*expected/,
  ],
  [
    "case: unknown key",
    () =>
      cases({
        "sampling-relay-roundtrip/z.yaml": `${roundtripWith(["id: text-roundtrip", "id: z"])}colour: red\n`,
      }),
    /z\.yaml: \(root\): expected .*colour/i,
  ],
  [
    "case: id not the file name",
    () => cases({ "sampling-relay-roundtrip/w.yaml": ROUNDTRIP }),
    /w\.yaml: id: id 'text-roundtrip' does not match the file name/,
  ],
  [
    "case: duplicate id",
    () => cases({ "sampling-relay-roundtrip/text-roundtrip.yml": ROUNDTRIP }),
    /text-roundtrip\.yml: id: duplicate case id 'text-roundtrip'/,
  ],
  [
    "case: era not of its row",
    () =>
      cases({
        "sampling-relay-roundtrip/v.yaml": roundtripWith(["id: text-roundtrip", "id: v\neras: [2099-01-01]"]),
      }),
    /v\.yaml: eras\[0\]: expected /,
  ],
  // Options
  ["--fuzz abc", () => ["run", "--fuzz", "abc"], /--fuzz: expected a whole number of at least 1, got 'abc'/],
  ["--fuzz 0", () => ["run", "--fuzz", "0"], /--fuzz: expected a whole number of at least 1, got '0'/],
  ["--seed x", () => ["run", "--seed", "x"], /--seed: expected a whole number, got 'x'/],
  ["--era unknown", () => ["run", "--era", "2099-01-01"], /--era: unknown era '2099-01-01'/],
  [
    "--rows unknown",
    () => ["run", "--rows", "sampling-nope"],
    /--rows: unknown register row 'sampling-nope'/,
  ],
  [
    "--baseline missing",
    () => ["run", "--baseline", join(dir, "nobase.yaml")],
    /nobase\.yaml: cannot read file \(ENOENT\)/,
  ],
  [
    "gate --require unknown row",
    () => [
      "gate",
      "--results",
      join(ROOT, "test/fixtures/results/pass/results.json"),
      "--require",
      "sampling-nope",
    ],
    /--require: unknown register row 'sampling-nope'/,
  ],
  [
    "gate --today not a date",
    () => [
      "gate",
      "--results",
      join(ROOT, "test/fixtures/results/pass/results.json"),
      "--require",
      "sampling-relay-roundtrip",
      "--today",
      "tomorrow",
    ],
    /--today: expected a date YYYY-MM-DD, got 'tomorrow'/,
  ],
];

describe("bad input: one line naming the file or flag and the field, exit 2, no stack trace", () => {
  it("covers at least 30 kinds", () => expect(TABLE.length).toBeGreaterThanOrEqual(30));
  it.each(TABLE)("%s", async (_what, argv, message) => {
    const r = await capture(argv());
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^mcpx-conform: /);
    expect(lines[0]).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at |harness failure/);
  });
});
