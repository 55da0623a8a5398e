import { describe, expect, it } from "vitest";
import { REDACTED, redact } from "../../src/harness/redact.ts";

describe("redact: what a relay prints never publishes a secret", () => {
  const cases: Array<[string, string]> = [
    ["debug: API_TOKEN=sk-hostile-0123456789abcdef", `debug: API_TOKEN=${REDACTED}`],
    ['export GITHUB_TOKEN="abc123def"', `export GITHUB_TOKEN="${REDACTED}"`],
    ["password: hunter22 rest", `password: ${REDACTED} rest`],
    ["DB_PASSWORD=p@ss", `DB_PASSWORD=${REDACTED}`],
    ['{"apiKey":"abcd1234"}', `{"apiKey":"${REDACTED}"}`],
    ["x-api-key: abcdef", `x-api-key: ${REDACTED}`],
    ["client_secret=s3cr3t&x=1", `client_secret=${REDACTED}&x=1`],
    ["Authorization: Bearer abc.def.ghi", `Authorization: Bearer ${REDACTED}`],
    ["authorization: Basic dXNlcjpwYXNz", `authorization: Basic ${REDACTED}`],
    ["sent header Bearer eyJhbGciOiJIUzI1NiJ9.x.y", `sent header Bearer ${REDACTED}`],
    ["key ghp_0123456789abcdefghijABCDEFGHIJ used", `key ${REDACTED} used`],
    ["using sk-proj-0123456789abcdefXYZ now", `using ${REDACTED} now`],
    ["aws AKIAIOSFODNN7EXAMPLE", `aws ${REDACTED}`],
  ];
  it.each(cases)("%s", (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it("redacts the profile's env values wherever they appear, longest first", () => {
    expect(redact("connecting with my-value-xyz and my-value", ["my-value", "my-value-xyz"])).toBe(
      `connecting with ${REDACTED} and ${REDACTED}`,
    );
  });

  it("keeps ordinary text: words that merely contain key/token, short env values", () => {
    for (const text of [
      "the keyboard monkey=1",
      "Error: ENOENT token count 5",
      "listening on 127.0.0.1:4000",
      "[relay] -32602 Invalid params: messages[0].role",
    ])
      expect(redact(text, ["1", "on"])).toBe(text);
  });
});
