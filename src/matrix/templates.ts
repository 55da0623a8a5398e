import { readFileSync } from "node:fs";
import { join } from "node:path";
import Handlebars from "handlebars";
import { PROJECT_ROOT } from "../model/load.ts";
import { mdHref, mdText, xmlAttr, xmlText } from "./escape.ts";

/**
 * The renderers' own Handlebars instance (helpers and partials never leak into, or come from, the global
 * one). `noEscape` stays off: `{{x}}` is HTML-escaped, so raw insertion is always a visible `{{{ }}}`.
 * The markdown and XML templates use the format's own escaping helpers (`md`, `xml`, `xmlattr`), which
 * return SafeStrings so the value is escaped exactly once.
 */
export const hbs = Handlebars.create();

const TEMPLATE_DIR = join(PROJECT_ROOT, "src/matrix/templates");

hbs.registerHelper("md", (value: unknown) => new hbs.SafeString(mdText(value)));
hbs.registerHelper("mdhref", (value: unknown) => new hbs.SafeString(mdHref(String(value ?? "")) ?? ""));
hbs.registerHelper("xml", (value: unknown) => new hbs.SafeString(xmlText(value)));
hbs.registerHelper("xmlattr", (value: unknown) => new hbs.SafeString(xmlAttr(value)));
hbs.registerHelper("eq", (a: unknown, b: unknown) => a === b);
hbs.registerHelper("join", (items: unknown, sep: unknown) =>
  Array.isArray(items) ? items.map(String).join(typeof sep === "string" ? sep : ", ") : "",
);

/** A static asset next to the templates (CSS, the viewer's script), read once. */
const assets = new Map<string, string>();
export function templateAsset(name: string): string {
  let text = assets.get(name);
  if (text === undefined) {
    text = readFileSync(join(TEMPLATE_DIR, name), "utf8");
    assets.set(name, text);
  }
  return text;
}

const compiled = new Map<string, Handlebars.TemplateDelegate>();

/** Compiles `templates/<name>.hbs` once with the dedicated instance. */
export function template(name: string): Handlebars.TemplateDelegate {
  let fn = compiled.get(name);
  if (!fn) {
    fn = hbs.compile(templateAsset(`${name}.hbs`), { noEscape: false, preventIndent: true });
    compiled.set(name, fn);
  }
  return fn;
}

/** Renders a template; every renderer goes through this so options stay uniform. */
export function renderTemplate(name: string, view: unknown): string {
  return template(name)(view, {
    allowProtoPropertiesByDefault: false,
    allowProtoMethodsByDefault: false,
  });
}
