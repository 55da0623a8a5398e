/**
 * The parts of docs/ written from the code that defines them, so they cannot drift from it: the CLI reference of
 * docs/cli.md (from the commander definitions) and the field table of docs/profiles.md (from TargetProfileSchema).
 * Each is a block between marker comments; the hand-written text around it stays. Pure: strings in, strings out.
 * scripts/gen-docs.ts writes the files; test/docs/generated.e2e.test.ts fails when a committed file differs.
 */
import type { Argument, Command, Option } from "commander";
import { z } from "zod";
import { COMMAND_EXAMPLES } from "../src/cli/examples.ts";
import { TOOL_NAME } from "../src/cli/main.ts";
import { createProgram } from "../src/main.ts";
import { TargetProfileSchema } from "../src/model/target.ts";

export const REGENERATE = "npm run docs:gen";

/** The generated pages and the blocks each holds, by path from the repository root. */
export const GENERATED: ReadonlyArray<{ file: string; block: string; render: () => string }> = [
  { file: "docs/cli.md", block: "cli", render: () => renderCliReference() },
  { file: "docs/profiles.md", block: "profile-fields", render: () => renderProfileFields() },
];

const begin = (block: string) =>
  `<!-- BEGIN GENERATED ${block}: written by scripts/gen-docs.ts (${REGENERATE}); edit the code, not this block -->`;
const end = (block: string) => `<!-- END GENERATED ${block} -->`;

/** `text` with its generated block replaced by `content`; throws when the markers are missing. */
export function replaceBlock(text: string, block: string, content: string, file: string): string {
  const from = text.indexOf(begin(block));
  const to = text.indexOf(end(block));
  if (from < 0 || to < from)
    throw new Error(`${file}: expected the marker lines\n${begin(block)}\n…\n${end(block)}`);
  return `${text.slice(0, from)}${begin(block)}\n\n${content.trim()}\n\n${text.slice(to)}`;
}

/** Text for one markdown line or table cell: one line, pipes escaped, `<x>` shown rather than read as HTML. */
function cell(text: string): string {
  return text
    .replace(/\s*\n\s*/g, " ")
    .replace(/\|/g, "\\|")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

function optionDefault(option: Option): string {
  if (option.defaultValueDescription) return option.defaultValueDescription;
  if (option.negate || option.defaultValue === undefined) return "";
  return `\`${JSON.stringify(option.defaultValue)}\``;
}

function argumentLine(arg: Argument): string {
  const name = arg.variadic ? `${arg.name()}...` : arg.name();
  const shown = arg.required ? `<${name}>` : `[${name}]`;
  const choices = arg.argChoices ? ` (one of: ${arg.argChoices.join(", ")})` : "";
  const byDefault = arg.defaultValue !== undefined ? ` (default: ${JSON.stringify(arg.defaultValue)})` : "";
  return `- \`${shown}\`: ${cell(arg.description)}${choices}${byDefault}`;
}

function usage(command: Command): string {
  return `${TOOL_NAME} ${command.name()} ${command.usage()}`;
}

function renderCommand(command: Command): string {
  const lines = [`### ${TOOL_NAME} ${command.name()}`, "", `${cell(command.description())}.`, ""];
  lines.push("```", usage(command), "```", "");
  if (command.registeredArguments.length > 0) {
    lines.push("Arguments:", "", ...command.registeredArguments.map(argumentLine), "");
  }
  lines.push("| Option | Description | Default |", "| --- | --- | --- |");
  for (const option of command.options) {
    const required = option.mandatory ? " (required)" : "";
    lines.push(`| \`${option.flags}\` | ${cell(option.description)}${required} | ${optionDefault(option)} |`);
  }
  lines.push("| `-h, --help` | display help for command | |", "");
  const example = COMMAND_EXAMPLES[command.name()];
  if (example) lines.push("Example:", "", "```sh", example, "```", "");
  return lines.join("\n");
}

/** The synopsis and one section per command, as `--help` shows them. */
export function renderCliReference(): string {
  const program = createProgram(() => undefined, {
    stdout: () => undefined,
    stderr: () => undefined,
    cwd: ".",
    isTTY: false,
  });
  const synopsis = program.commands.map(usage);
  const globals = program.options.map((o) => o.flags).join(" | ");
  return [
    "## Synopsis",
    "",
    "```",
    ...synopsis,
    `${TOOL_NAME} ${globals} | -h, --help`,
    "```",
    "",
    "## Commands",
    "",
    ...program.commands.map(renderCommand),
  ].join("\n");
}

type JsonSchema = {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  required?: string[];
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  default?: unknown;
  description?: string;
  minItems?: number;
  exclusiveMinimum?: number;
  pattern?: string;
};

function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((v) => `\`${String(v)}\``).join(" \\| ");
  if (schema.const !== undefined) return `\`${String(schema.const)}\``;
  const union = schema.oneOf ?? schema.anyOf;
  if (union) return union.map(typeOf).join(" \\| ");
  if (schema.type === "array") return `list of ${schema.items ? typeOf(schema.items) : "values"}`;
  if (schema.type === "object") {
    if (schema.properties?.kind?.const !== undefined)
      return `\`{kind: ${String(schema.properties.kind.const)}, …}\``;
    if (schema.properties) return "object";
    const values =
      typeof schema.additionalProperties === "object" ? typeOf(schema.additionalProperties) : "value";
    return `map of name → ${values}`;
  }
  if (schema.type === "integer" && schema.exclusiveMinimum === 0) return "positive integer";
  return schema.type ?? "any";
}

function fieldRows(schema: JsonSchema, prefix: string, missing: string[]): string[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).flatMap(([name, field]) => {
    const path = `${prefix}${name}`;
    if (!field.description) missing.push(path);
    const byDefault = field.default !== undefined ? `\`${JSON.stringify(field.default)}\`` : "";
    const row = `| \`${path}\` | ${typeOf(field)} | ${required.has(name) ? "yes" : ""} | ${byDefault} | ${cell(field.description ?? "")} |`;
    return field.type === "object" && field.properties
      ? [row, ...fieldRows(field, `${path}.`, missing)]
      : [row];
  });
}

/** The target profile's fields, from TargetProfileSchema as its JSON Schema (the input a user writes). */
export function renderProfileFields(profileSchema: z.ZodType = TargetProfileSchema): string {
  const schema = z.toJSONSchema(profileSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const missing: string[] = [];
  const rows = fieldRows(schema, "", missing);
  if (missing.length > 0)
    throw new Error(
      `src/model/target.ts: expected a .describe("…") on every target profile field; none on ${missing.join(", ")}`,
    );
  return [
    "| Field | Type | Required | Default | What it is |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

/** What each generated file should hold, given its committed text. */
export function expectedText(committed: string, entry: (typeof GENERATED)[number]): string {
  return replaceBlock(committed, entry.block, entry.render(), entry.file);
}
