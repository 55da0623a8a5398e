import Handlebars from "handlebars";
import { InputError } from "../model/errors.ts";
import type { TargetProfile } from "../model/target.ts";
import { PROBE_TOOL } from "./upstream.ts";

/**
 * How the answerer calls the upstream's probe tool: by default the tool the relay lists under the probe's name,
 * with the probe's own arguments; with a profile `probe:` template, the relay's own tool (a gateway's `execute`) with
 * arguments rendered from the template, so a gateway that hides upstream tools behind its own can still be driven.
 */
export interface ProbeCall {
  name: string;
  arguments: Record<string, unknown>;
}

// The profile's templates render with their own Handlebars instance: `json` is the one helper, and strict mode
// makes a mistyped variable an error instead of an empty string.
const hbs = Handlebars.create();
hbs.registerHelper("json", (value: unknown) => new hbs.SafeString(JSON.stringify(value)));

export type ProbeTemplate = NonNullable<TargetProfile["probe"]>;
type Template = ProbeTemplate;

/** The relay's tools/list has no probe tool: it reaches no upstream tool (in this session's shape, at least). */
export class ProbeToolMissing extends Error {}

/**
 * The name of the tool the answerer calls, from the relay's tools/list: the profile's `probe.tool` when it has a
 * template, else the tool whose name ends with the probe's (a relay may prefix upstream tools). Missing: an error
 * quoting the list.
 */
export function findProbeTool(
  list: { result?: unknown; error?: unknown },
  template: Template | undefined,
): string {
  const tools: Array<{ name?: unknown }> =
    (list.result as { tools?: Array<{ name?: unknown }> })?.tools ?? [];
  const wanted = template?.tool;
  const tool = tools.find((t) =>
    typeof t?.name === "string" ? (wanted ? t.name === wanted : t.name.endsWith(PROBE_TOOL)) : false,
  );
  if (!tool) {
    const what = wanted
      ? `the tool ${JSON.stringify(wanted)} named by the profile's probe.tool`
      : `the upstream's ${PROBE_TOOL} tool`;
    throw new ProbeToolMissing(
      `the relay does not expose ${what} (tools/list: ${JSON.stringify(list).slice(0, 300)})`,
    );
  }
  return tool.name as string;
}

function renderValue(value: unknown, context: Record<string, unknown>): unknown {
  if (typeof value === "string") return hbs.compile(value, { strict: true, noEscape: true })(context);
  if (Array.isArray(value)) return value.map((v) => renderValue(v, context));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderValue(v, context)]));
  return value;
}

/** The tools/call params for the probe with these arguments, through the profile's template when it has one. */
export function probeCall(
  template: Template | undefined,
  listedName: string,
  args: Record<string, unknown>,
): ProbeCall {
  if (!template) return { name: listedName, arguments: args };
  const context = { name: PROBE_TOOL, arguments: args, caseKey: args.caseKey };
  return {
    name: template.tool,
    arguments: renderValue(template.arguments, context) as Record<string, unknown>,
  };
}

/** A profile's probe template that cannot render (a typo of a variable, a syntax error) is the profile's error. */
export function checkProbeTemplate(template: Template | undefined, profileFile: string | undefined): void {
  if (!template) return;
  try {
    probeCall(template, PROBE_TOOL, { caseKey: "row/case@era" });
  } catch (error) {
    throw new InputError(
      `expected handlebars templates over name, arguments and caseKey: ${error instanceof Error ? error.message.replace(/\s*\n\s*/g, " ") : String(error)}`,
      profileFile,
      "probe.arguments",
    );
  }
}

/**
 * The profile's downstream headers with `${NAME}` replaced by the harness's environment variable NAME; a variable
 * that is not set is the profile's error (a request without its token would only be refused, case after case).
 */
export function downstreamHeaders(
  profile: TargetProfile,
  profileFile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> | undefined {
  const headers = profile.downstream.headers;
  if (!headers) return undefined;
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
        const found = env[variable];
        if (found === undefined)
          throw new InputError(
            `expected the environment variable ${variable} to be set (used in the header ${name})`,
            profileFile,
            `downstream.headers.${name}`,
          );
        return found;
      }),
    ]),
  );
}
