import { z } from "zod";
import { BrokerAnswererSchema, brokerTemplates, templateProblem } from "./broker.ts";
import { EraSchema } from "./register.ts";

const TransportSchema = z.enum(["stdio", "streamable-http", "sse"]);

/**
 * The placeholders a profile may use; `upstream.command` needs a stdio upstream, the `upstream.url` family an HTTP
 * one: `upstream.url` the full endpoint URL, `upstream.origin` its scheme, host and port alone (for a relay that wants
 * a base URL), `upstream.path` its path (e.g. /mcp).
 */
export const PLACEHOLDERS = [
  "upstream.command",
  "upstream.url",
  "upstream.origin",
  "upstream.path",
  "port",
  "tmp",
] as const;
const HTTP_UPSTREAM_PLACEHOLDERS = new Set(["upstream.url", "upstream.origin", "upstream.path"]);
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** What each `{{name}}` in a profile string that the profile cannot fill needed instead (a typo, or the wrong transport). */
export function badPlaceholders(text: string, upstream: z.infer<typeof TransportSchema>): string[] {
  const bad: string[] = [];
  for (const [, name] of text.matchAll(PLACEHOLDER)) {
    if (!(PLACEHOLDERS as readonly string[]).includes(name!))
      bad.push(
        `a known placeholder, got {{${name}}} (known: ${PLACEHOLDERS.map((p) => `{{${p}}}`).join(", ")})`,
      );
    else if (name === "upstream.command" && upstream !== "stdio")
      bad.push(
        `upstream.transport stdio for {{upstream.command}} (this profile's upstream is ${upstream}; use {{upstream.url}})`,
      );
    else if (HTTP_UPSTREAM_PLACEHOLDERS.has(name!) && upstream === "stdio")
      bad.push(
        `an HTTP upstream (streamable-http or sse) for {{${name}}} (this profile's upstream is stdio; use {{upstream.command}})`,
      );
  }
  return bad;
}

/** Files the harness itself keeps in a session's temporary folder (the upstream shim and its token): never a profile's. */
export const HARNESS_TMP_FILES: readonly string[] = ["upstream", "upstream.token"];

/**
 * What is wrong with a `files:` key, if anything: it must be a file path inside `{{tmp}}` (`{{tmp}}/name`, folders
 * allowed, created as needed) once normalised, and not one of the harness's own files there. Placeholders other than
 * `{{tmp}}` may appear after the prefix (they never hold `..`).
 */
export function profileFileProblem(key: string): string | undefined {
  const prefix = /^\{\{\s*tmp\s*\}\}\//.exec(key);
  if (!prefix) return `a path under {{tmp}} ({{tmp}}/NAME), got '${key}'`;
  const parts: string[] = [];
  for (const part of key.slice(prefix[0].length).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return `a path that stays inside {{tmp}}, got '${key}'`;
      parts.pop();
    } else parts.push(part);
  }
  if (parts.length === 0) return `a file inside {{tmp}}, not the folder itself, got '${key}'`;
  const inside = parts.join("/");
  if (HARNESS_TMP_FILES.includes(inside))
    return `a file the harness does not keep there ({{tmp}}/${inside} is the harness's ${inside === "upstream" ? "upstream shim" : "upstream token"}), got '${key}'`;
  return undefined;
}

/** Registries a published relay comes from, and how a person opens its page there. */
export const PACKAGE_REGISTRIES = ["npm", "pypi", "go", "crates", "maven"] as const;
export const PACKAGE_LANGUAGES = ["typescript", "javascript", "python", "go", "rust", "java"] as const;

/**
 * The published package a profile drives: an exact version (never a range), so a matrix names what it judged.
 * Go: the module path of the command (`github.com/o/r/cmd/x`) and its version (`v1.2.3`); Maven: `group:artifact`.
 */
export const PackageSchema = z
  .object({
    registry: z.enum(PACKAGE_REGISTRIES).describe("where it is published: npm, pypi, go, crates or maven"),
    name: z.string().min(1).describe("its name there (Go: the command's module path; Maven: group:artifact)"),
    version: z
      .string()
      .regex(
        /^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]+)?$/,
        "an exact version (1.2.3, v1.2.3, 1.2.3-rc.1), not a range",
      )
      .describe("the exact version the profile drives (never a range)"),
    language: z.enum(PACKAGE_LANGUAGES).describe("what it is written in (the site filters relays by it)"),
  })
  .strict()
  .refine((p) => p.registry !== "maven" || /^[^:\s]+:[^:\s]+$/.test(p.name), {
    message: "a Maven name as group:artifact",
    path: ["name"],
  });
export type Package = z.infer<typeof PackageSchema>;

/** The package's page on its registry, at its version. */
export function packageUrl(p: Package): string {
  const name = encodeURI(p.name);
  switch (p.registry) {
    case "npm":
      return `https://www.npmjs.com/package/${name}/v/${p.version}`;
    case "pypi":
      return `https://pypi.org/project/${name}/${p.version}/`;
    case "go":
      return `https://pkg.go.dev/${name}@${p.version}`;
    case "crates":
      return `https://crates.io/crates/${name}/${p.version}`;
    case "maven":
      return `https://central.sonatype.com/artifact/${name.replace(":", "/")}/${p.version}`;
  }
}

export const TargetProfileSchema = z
  .object({
    // Every field's .describe() is its row in docs/profiles.md (npm run docs:gen writes the table).
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "a name usable as a folder name")
      .describe("the target's name, usable as a folder name (reports go under it)"),
    description: z
      .string()
      .optional()
      .describe("a line about the target, shown by mcpx-conform list targets"),
    package: PackageSchema.optional().describe(
      "the published package the profile drives: registry (npm, pypi, go, crates, maven), name, exact version, language; the report and the site show and link it",
    ),
    command: z
      .array(z.string())
      .min(1)
      .describe(
        "the relay's argv (no shell; a relative program or script is relative to the profile's folder); items may hold {{upstream.command}}, {{upstream.url}}, {{upstream.origin}}, {{upstream.path}}, {{port}}, {{tmp}}",
      ),
    downstream: z
      .object({
        transport: TransportSchema.describe("how the answerer reaches the relay"),
        url: z
          .string()
          .optional()
          .describe(
            "the relay's endpoint for streamable-http and sse (required for them), e.g. http://127.0.0.1:{{port}}/mcp",
          ),
        headers: z.record(z.string(), z.string()).optional().describe(
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the profile's own ${NAME} syntax, not a JS template
          "HTTP headers on every request to the relay (an auth token, an Origin; the SSE stream's GET included), streamable-http and sse only; ${NAME} in a value is the harness's environment variable NAME (an unset one is a profile error)",
        ),
      })
      .strict()
      .refine((d) => d.transport === "stdio" || d.url !== undefined, {
        message: "a url is required for streamable-http and sse",
        path: ["url"],
      })
      .refine((d) => d.transport !== "stdio" || d.headers === undefined, {
        message: "headers only for an HTTP downstream (streamable-http or sse); this one is stdio",
        path: ["headers"],
      })
      .describe("the relay's downstream side, where the harness answerer connects"),
    upstream: z
      .object({ transport: TransportSchema.describe("how the relay reaches the harness upstream") })
      .strict()
      .describe("the relay's upstream side, the harness's scripted MCP server"),
    answerer: z
      .discriminatedUnion("kind", [
        z.object({ kind: z.literal("client") }).strict(),
        z.object({ kind: z.literal("review"), url: z.string().min(1) }).strict(),
        BrokerAnswererSchema,
      ])
      .default({ kind: "client" })
      .describe(
        "who answers: client, the harness MCP client downstream; review, a person at the relay's review surface (url, e.g. http://127.0.0.1:{{port}}/v1), played by the harness, with the MCP client downstream as the model; broker, the agent or person at the relay's broker, reached through declared calls (src/model/broker.ts; see Broker answerers)",
      ),
    probe: z
      .object({
        tool: z.string().min(1).describe("the relay's own tool to call instead of the probe"),
        arguments: z
          .record(z.string(), z.unknown())
          .default({})
          .describe(
            "its arguments; string values are handlebars templates over name (the probe tool's name), arguments (the probe's own arguments, {{{json arguments}}} as JSON) and caseKey",
          ),
      })
      .strict()
      .optional()
      .describe(
        "how the answerer calls the upstream's probe tool through a relay that does not expose it by name (a gateway with one tool of its own, e.g. a code-mode execute); default: the listed tool whose name ends with conformance_probe, with its own arguments",
      ),
    eras: z
      .array(EraSchema)
      .min(1)
      .optional()
      .describe("the eras to run (default: every era); run --era overrides it, and says so"),
    env: z
      .record(z.string(), z.string())
      .default({})
      .describe(
        "extra environment for the relay, on top of the allowlisted variables (src/harness/env.ts); its values are redacted from output",
      ),
    files: z
      .record(z.string(), z.string())
      .default({})
      .describe(
        "files written (0600) into the run's temporary folder before the relay starts, for a relay configured by a file: path under {{tmp}} → content, both with the command's placeholders",
      ),
    inheritEnv: z
      .boolean()
      .default(false)
      .describe(
        "true: the relay inherits the harness's whole environment instead of the allowlist (secrets included)",
      ),
    cwd: z
      .string()
      .optional()
      .describe(
        "the folder the relay starts in, relative to the profile's folder (default: the profile's folder)",
      ),
    startupTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(15_000)
      .describe("bound on the relay's whole start: spawn, listening, initialize, tools/list"),
    answerTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(2_000)
      .describe(
        "how long the relay waits for an answer before it reports expiry (the harness waits a bit longer)",
      ),
    caseTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(10_000)
      .describe("upper bound for one case once the relay is up"),
  })
  .strict()
  .superRefine((profile, ctx) => {
    // A mistyped placeholder is the profile's error, found at load time, not a relay that failed to start.
    const fields: Array<[PropertyKey[], string]> = [
      ...profile.command.map((a, i): [PropertyKey[], string] => [["command", i], a]),
      ...Object.entries(profile.env).map(([k, v]): [PropertyKey[], string] => [["env", k], v]),
      ...Object.entries(profile.files).flatMap(
        ([k, v]): Array<[PropertyKey[], string]> => [
          [["files", k], k],
          [["files", k], v],
        ],
      ),
      [["downstream", "url"], profile.downstream.url ?? ""],
      [["answerer", "url"], profile.answerer.kind === "review" ? profile.answerer.url : ""],
      [["cwd"], profile.cwd ?? ""],
    ];
    for (const [path, text] of fields)
      for (const message of badPlaceholders(text, profile.upstream.transport))
        ctx.addIssue({ code: "custom", path, message });
    for (const key of Object.keys(profile.files)) {
      const message = profileFileProblem(key);
      if (message) ctx.addIssue({ code: "custom", path: ["files", key], message });
    }
    if (profile.answerer.kind === "broker")
      for (const { path, text, op } of brokerTemplates(profile.answerer)) {
        // Helpers ({{json result}}) are the template check's; the upstream placeholders still need their transport.
        const message =
          templateProblem(text, op) ??
          badPlaceholders(text, profile.upstream.transport).find((m) => !m.startsWith("a known placeholder"));
        if (message) ctx.addIssue({ code: "custom", path, message });
      }
  });
export type TargetProfile = z.infer<typeof TargetProfileSchema>;

/**
 * How much later than its declared deadline a relay may report expiry: scheduling on a loaded two-core CI
 * machine, the relay's own start of the clock after validation, and the hop back. A relay at twice its
 * declared deadline is far outside it.
 */
export function expirySlackMs(answerTimeoutMs: number): number {
  return Math.max(1000, Math.round(answerTimeoutMs / 2));
}

/** On top of the declared deadline and its slack, the time an expiry case keeps for the report to come back. */
export const EXPIRY_CASE_MARGIN_MS = 1000;

/**
 * The time one case gets against this profile: caseTimeoutMs, except for a case whose answerer never answers (the
 * relay's own deadline must fire), which waits for the relay's declared deadline (answerTimeoutMs) plus the slack the
 * verdict allows, however long that deadline is: a relay whose deadline is the SDK's 60 s is heard at 60 s, not given
 * up on at caseTimeoutMs. Only those cases wait longer; the rest of the run keeps caseTimeoutMs.
 */
export function caseTimeoutMsFor(
  profile: Pick<TargetProfile, "caseTimeoutMs" | "answerTimeoutMs">,
  answer: { action: string },
): number {
  if (answer.action !== "expire") return profile.caseTimeoutMs;
  const expiry = profile.answerTimeoutMs + expirySlackMs(profile.answerTimeoutMs) + EXPIRY_CASE_MARGIN_MS;
  return Math.max(profile.caseTimeoutMs, expiry);
}
