/**
 * What a relay prints on stderr goes into results.json, evidence, matrices and JUnit: anything secret in it would be
 * published. `redact` replaces the values of the profile's `env` and whatever looks like a credential (NAME=value
 * or NAME: value where NAME says key, token, secret or password; `Authorization: Bearer …`/`Basic …`; bearer
 * tokens; well-known key prefixes) with `[REDACTED]`.
 */
export const REDACTED = "[REDACTED]";

/** NAME=value, NAME: value, "name": "value": the value is replaced when the name is credential-shaped. */
const ASSIGNMENT = /\b([A-Za-z][A-Za-z0-9_.-]*)(["']?\s*[=:]\s*["']?)([^\s"',;&]+)/g;
/** Words of a name (API_TOKEN, apiKey, x-api-key) that make it credential-shaped. */
const SECRET_WORDS = new Set([
  "key",
  "apikey",
  "token",
  "secret",
  "password",
  "passwd",
  "pwd",
  "credential",
  "credentials",
  "auth",
  "authorization",
  "cookie",
]);
const SCHEMES = new Set(["bearer", "basic", "token"]);

function credentialName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s_.-]+/)
    .map((w) => w.toLowerCase());
  return words.some((w) => SECRET_WORDS.has(w));
}
const AUTHORIZATION = /\b(Authorization\s*[=:]\s*["']?)(Bearer|Basic|Token)?\s*([^\s"',;]+)/gi;
const BEARER = /\b(Bearer\s+)([A-Za-z0-9._~+/=-]{8,})/g;
/** Tokens recognisable by their prefix wherever they appear (GitHub, OpenAI-style, AWS access key ids, Slack). */
const PREFIXED =
  /\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,})/g;

/** Values shorter than this are not redacted by value (they would hit ordinary words); patterns still apply. */
const MIN_SECRET_LENGTH = 4;

export function redact(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  const values = [...new Set(secrets)]
    .filter((s) => s.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const value of values) out = out.split(value).join(REDACTED);
  out = out.replace(
    AUTHORIZATION,
    (_, head: string, scheme: string | undefined) => `${head}${scheme ? `${scheme} ` : ""}${REDACTED}`,
  );
  out = out.replace(BEARER, (_, head: string) => `${head}${REDACTED}`);
  out = out.replace(ASSIGNMENT, (whole, name: string, sep: string, value: string) =>
    !credentialName(name) || value.startsWith(REDACTED) || SCHEMES.has(value.toLowerCase())
      ? whole
      : `${name}${sep}${REDACTED}`,
  );
  out = out.replace(PREFIXED, REDACTED);
  return out;
}
