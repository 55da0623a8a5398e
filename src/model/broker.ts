import Handlebars from "handlebars";
import { z } from "zod";

/**
 * The `broker` answerer of a target profile: how the harness, as the agent or person at a relay's broker, lists
 * the pending questions, reads one, answers it (accept with a result, decline, cancel, or approve it on to the
 * model behind the broker) and reads back what was recorded. Each operation is one HTTP call or one command line;
 * every string in it is a handlebars template, and every field the harness needs is a JSON pointer into the JSON
 * the call returned. So an API unlike the reference relay's (the action in the path or in the body, the answer bare
 * or wrapped, the id in the path, the query or the body, a CLI such as `mcpx elicit`) is written down, not coded.
 *
 * Template values: `{{port}}`, `{{tmp}}`, `{{upstream.command}}`, `{{upstream.url}}` (as in the rest of the
 * profile), `{{id}}` (the question's id: URL-encoded in a URL, as is in a body or an argv item), `{{result}}` (accept:
 * the CreateMessageResult), `{{params}}` (approve: the edited request, absent when approved as shown); helpers
 * `{{json x}}` (JSON text) and `{{url x}}` (URL-encoded). Nothing is HTML-escaped.
 */

/** RFC 6901: "" is the whole document, "/a/0/b~1c" a member path. */
export const JsonPointerSchema = z
  .string()
  .regex(/^(\/([^~/]|~[01])*)*$/, 'a JSON pointer ("" for the whole document, or /a/b)');

const HttpSchema = z
  .object({
    method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).default("GET"),
    url: z.string().regex(/^https?:\/\//, "an http:// URL template"),
    headers: z.record(z.string(), z.string()).optional(),
    /** The request body, a template (JSON text for an answer: `{"result": {{json result}}}`). */
    body: z.string().optional(),
  })
  .strict();

/** One call: an HTTP request, or a command line whose stdout is read as JSON. */
const callShape = {
  http: HttpSchema.optional(),
  /** argv (no shell); paths relative to the profile's folder; the relay's environment. */
  command: z.array(z.string()).min(1).optional(),
};
const oneCall = <T extends { http?: unknown; command?: unknown }>(op: T) =>
  (op.http === undefined) !== (op.command === undefined);
const ONE_CALL = { message: "exactly one of http or command" };

const CallSchema = z.object(callShape).strict().refine(oneCall, ONE_CALL);
export type BrokerCall = z.infer<typeof CallSchema>;

/** Where each thing a question shows is, in the question's JSON (the read call's, or the list item). */
const ShowSchema = z
  .object({
    /** Which server asks (a name, or an object with `name`). */
    server: JsonPointerSchema,
    systemPrompt: JsonPointerSchema.optional(),
    messages: JsonPointerSchema,
    /** The full request, as the broker holds it. */
    request: JsonPointerSchema,
    /** The answer the broker offers to fill in (none: the broker offers no skeleton). */
    skeleton: JsonPointerSchema.optional(),
    /** "response" when the question is the model's response under review; anything else is a request. */
    stage: JsonPointerSchema.optional(),
    /** The model's response under review (response stage). */
    response: JsonPointerSchema.optional(),
  })
  .strict();

export const BrokerAnswererSchema = z
  .object({
    kind: z.literal("broker"),
    /** The pending questions: `items` points at the array in the output, `id` (and `stage`) into each item. */
    list: z
      .object({
        ...callShape,
        items: JsonPointerSchema.default(""),
        id: JsonPointerSchema.default("/id"),
        stage: JsonPointerSchema.optional(),
      })
      .strict()
      .refine(oneCall, ONE_CALL),
    /** One question by `{{id}}` (none: the list item is the question). */
    read: CallSchema.optional(),
    show: ShowSchema,
    accept: CallSchema,
    decline: CallSchema,
    cancel: CallSchema.optional(),
    /** Pass the question on to the model behind the broker, with `{{params}}` when edited (none: no model behind it). */
    approve: CallSchema.optional(),
    /** What the broker recorded for a question once answered; `at` points into the output. */
    recorded: z
      .object({ ...callShape, at: JsonPointerSchema.default("") })
      .strict()
      .refine(oneCall, ONE_CALL)
      .optional(),
  })
  .strict();
export type BrokerAnswerer = z.infer<typeof BrokerAnswererSchema>;

/**
 * A broker with nobody behind it (no approve call): the agent or person answering at the broker is the model, so the
 * relay never puts a question to its downstream MCP client (mcpx's elicit broker, internal/elicit in developing-today/code, pkgs/mcpx).
 */
export function brokerWithoutModel(answerer: { kind: string; approve?: unknown }): boolean {
  return answerer.kind === "broker" && answerer.approve === undefined;
}

export const BROKER_OPERATIONS = [
  "list",
  "read",
  "accept",
  "decline",
  "cancel",
  "approve",
  "recorded",
] as const;
export type BrokerOperation = (typeof BROKER_OPERATIONS)[number];

const PROFILE_VALUES = ["port", "tmp", "upstream.command", "upstream.url"];
/** The values each operation's templates may use, beyond the profile's own placeholders. */
export const OPERATION_VALUES: Record<BrokerOperation, readonly string[]> = {
  list: [],
  read: ["id"],
  accept: ["id", "result"],
  decline: ["id"],
  cancel: ["id"],
  approve: ["id", "params"],
  recorded: ["id"],
};
export const TEMPLATE_HELPERS = ["json", "url"] as const;

/**
 * Handlebars reads `}}}` as the end of a triple-stash, which a JSON body ending in a value (`{"result": {{json result}}}`)
 * writes naturally. Nothing is escaped here, so triple-stashes are never needed: outside one, `}}}` is a mustache's end
 * followed by a brace (the body gets a space before it, which JSON ignores).
 */
export function braced(text: string): string {
  return text.includes("{{{") ? text : text.replaceAll("}}}", "}} }");
}

/** Paths (`a.b`) a template reads, and the helpers it calls; throws on a template that does not parse. */
function templateNames(text: string): { paths: string[]; helpers: string[] } {
  const ast = Handlebars.parse(braced(text));
  const paths: string[] = [];
  const helpers: string[] = [];
  class Names extends Handlebars.Visitor {
    override MustacheStatement(node: hbs.AST.MustacheStatement): void {
      this.call(node);
      super.MustacheStatement(node);
    }
    override BlockStatement(node: hbs.AST.BlockStatement): void {
      this.call(node);
      super.BlockStatement(node);
    }
    override SubExpression(node: hbs.AST.SubExpression): void {
      this.call(node);
      super.SubExpression(node);
    }
    private call(node: {
      path: hbs.AST.PathExpression | hbs.AST.Literal;
      params: unknown[];
      hash?: unknown;
    }) {
      const hasArgs = node.params.length > 0 || node.hash !== undefined;
      if (hasArgs && node.path.type === "PathExpression")
        helpers.push((node.path as hbs.AST.PathExpression).original);
    }
    override PathExpression(node: hbs.AST.PathExpression): void {
      if (!helpers.includes(node.original)) paths.push(node.original);
    }
  }
  new Names().accept(ast);
  return { paths, helpers };
}

/**
 * What is wrong with one template of an operation, if anything: it does not parse, calls a helper other than
 * json/url (and the built-in if/unless), or reads a value the operation does not have.
 */
export function templateProblem(text: string, op: BrokerOperation): string | undefined {
  let names: { paths: string[]; helpers: string[] };
  try {
    names = templateNames(text);
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error)).split("\n")[0];
    return `a handlebars template, got one that does not parse (${first})`;
  }
  const helpers = [...TEMPLATE_HELPERS, "if", "unless"];
  const badHelper = names.helpers.find((h) => !helpers.includes(h));
  if (badHelper) return `a known helper (${helpers.join(", ")}), got {{${badHelper} …}}`;
  const known = [...PROFILE_VALUES, ...OPERATION_VALUES[op]];
  for (const path of names.paths) {
    if (helpers.includes(path)) continue;
    const root = path.split(".")[0]!;
    const ok = known.includes(path) || (["result", "params"].includes(root) && known.includes(root));
    if (!ok) return `a value ${op} has (${known.map((k) => `{{${k}}}`).join(", ")}), got {{${path}}}`;
  }
  return undefined;
}

/** Every template of the broker answerer with its path in the profile, for the load-time check. */
export function brokerTemplates(
  broker: BrokerAnswerer,
): Array<{ path: PropertyKey[]; text: string; op: BrokerOperation }> {
  const out: Array<{ path: PropertyKey[]; text: string; op: BrokerOperation }> = [];
  for (const op of BROKER_OPERATIONS) {
    const call = broker[op] as BrokerCall | undefined;
    if (!call) continue;
    const at = ["answerer", op];
    if (call.http) {
      out.push({ path: [...at, "http", "url"], text: call.http.url, op });
      if (call.http.body !== undefined) out.push({ path: [...at, "http", "body"], text: call.http.body, op });
      for (const [k, v] of Object.entries(call.http.headers ?? {}))
        out.push({ path: [...at, "http", "headers", k], text: v, op });
    }
    call.command?.forEach((arg, i) => {
      out.push({ path: [...at, "command", i], text: arg, op });
    });
  }
  return out;
}
