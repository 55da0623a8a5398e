import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { type Evidence, EvidenceSchema } from "../../src/model/evidence.ts";
import { type Register, RegisterSchema } from "../../src/model/register.ts";
import { type Results, ResultsSchema } from "../../src/model/results.ts";

export const FIXTURES = resolve(import.meta.dirname, "../fixtures/results");
export const PASS_RESULTS = join(FIXTURES, "pass/results.json");
export const FAIL_RESULTS = join(FIXTURES, "fail/results.json");
export const FIXTURE_REGISTER = join(FIXTURES, "register.yaml");

/** Relay-provided payloads planted in the failing fixture (see build.ts). */
export const XSS_SCRIPT = "<script>window.__mcpxPwned=1;alert(1)</script>";
export const XSS_IMG = '<img src=x onerror="window.__mcpxPwned=2;alert(1)">';
export const XSS_BREAKOUT = "</script><script>window.__mcpxPwned=3;alert(1)</script>";

/** Loads a fixture through the real zod contracts (a fixture that drifts from the schema fails here). */
export function loadFixtureResults(file: string): Results {
  return ResultsSchema.parse(JSON.parse(readFileSync(file, "utf8")));
}

export function loadFixtureRegister(): Register {
  return RegisterSchema.parse(parseYaml(readFileSync(FIXTURE_REGISTER, "utf8")));
}

export function loadFixtureEvidences(file: string, results: Results): Record<string, Evidence> {
  const out: Record<string, Evidence> = {};
  for (const cell of results.cells)
    for (const c of cell.cases) {
      if (!c.evidence) continue;
      const bytes = readFileSync(join(dirname(file), c.evidence));
      if (c.evidenceSha256 && createHash("sha256").update(bytes).digest("hex") !== c.evidenceSha256)
        throw new Error(`sha256 mismatch for ${c.evidence}`);
      out[c.evidence] = EvidenceSchema.parse(JSON.parse(bytes.toString("utf8")));
    }
  return out;
}

export interface Fixture {
  file: string;
  results: Results;
  evidences: Record<string, Evidence>;
}

export function fixture(which: "pass" | "fail"): Fixture {
  const file = which === "pass" ? PASS_RESULTS : FAIL_RESULTS;
  const results = loadFixtureResults(file);
  return { file, results, evidences: loadFixtureEvidences(file, results) };
}

export function caseCount(results: Results): number {
  return results.cells.reduce((n, c) => n + c.cases.length, 0);
}

// ------------------------------------------------------------------ a strict little XML parser

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

function decodeEntities(s: string, at: number): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);|&/g, (m, body: string | undefined) => {
    if (body === undefined) throw new Error(`bare '&' near offset ${at}`);
    if (body.startsWith("#x")) return String.fromCodePoint(Number.parseInt(body.slice(2), 16));
    if (body.startsWith("#")) return String.fromCodePoint(Number.parseInt(body.slice(1), 10));
    const named: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
    if (!(body in named)) throw new Error(`unknown entity ${m} near offset ${at}`);
    return named[body]!;
  });
}

/**
 * Parses well-formed XML (elements, attributes, text, the five entities and character references, an XML
 * declaration); throws on anything malformed: mismatched or unclosed tags, unquoted or duplicate
 * attributes, bare `&` or `<`, characters XML 1.0 forbids.
 */
export function parseXml(xml: string): XmlElement {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: checking for forbidden characters
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(xml)) throw new Error("a character XML 1.0 forbids");
  let i = 0;
  const root: XmlElement = { name: "#document", attrs: {}, children: [], text: "" };
  const stack: XmlElement[] = [root];
  if (xml.startsWith("<?xml")) i = xml.indexOf("?>") + 2;
  while (i < xml.length) {
    const lt = xml.indexOf("<", i);
    const text = xml.slice(i, lt < 0 ? xml.length : lt);
    if (text.includes(">") && /[^\s]/.test(text) && text.includes("]]>")) throw new Error("']]>' in text");
    stack[stack.length - 1]!.text += decodeEntities(text, i);
    if (lt < 0) break;
    if (xml.startsWith("</", lt)) {
      const end = xml.indexOf(">", lt);
      const name = xml.slice(lt + 2, end).trim();
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`</${name}> closes <${open?.name}> at ${lt}`);
      i = end + 1;
      continue;
    }
    const m = /^<([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.:-]*\s*=\s*"[^"<]*")*)\s*(\/?)>/.exec(xml.slice(lt));
    if (!m) throw new Error(`malformed tag at ${lt}: ${xml.slice(lt, lt + 60)}`);
    const attrs: Record<string, string> = {};
    for (const a of m[2]!.matchAll(/([A-Za-z_][\w.:-]*)\s*=\s*"([^"<]*)"/g)) {
      if (a[1]! in attrs) throw new Error(`duplicate attribute ${a[1]} at ${lt}`);
      attrs[a[1]!] = decodeEntities(a[2]!, lt);
    }
    const el: XmlElement = { name: m[1]!, attrs, children: [], text: "" };
    stack[stack.length - 1]!.children.push(el);
    if (m[3] !== "/") stack.push(el);
    i = lt + m[0].length;
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]!.name}>`);
  if (root.children.length !== 1) throw new Error("expected exactly one root element");
  return root.children[0]!;
}

export function descendants(el: XmlElement, name: string): XmlElement[] {
  return el.children.flatMap((c) => [...(c.name === name ? [c] : []), ...descendants(c, name)]);
}

// ------------------------------------------------------------------ relay-provided strings that try to run

/** Payloads a hostile relay can put in any string it controls: a script element and an attribute breakout. */
export const PWN_SCRIPT = "<script>window.__pwned=1</script>";
export const PWN_ATTR = '"><img src=x onerror="window.__pwned=2">';
const PWN = `${PWN_SCRIPT} ${PWN_ATTR}`;

/** The cell whose relay error message carries the payloads, and the one whose result's model name does. */
export const PWN_ERROR_CELL = "sampling-client-errors-user-rejected-and-tool-shape|2025-11-25|client";
export const PWN_MODEL_CELL = "sampling-both-validate-message-content|2025-11-25|server";
export const PWN_ERROR_CASE = "decline-is-minus-one";
export const PWN_MODEL_CASE = "result-without-role-refused";
export const PWN_ERROR_MESSAGE = `client error: ${PWN}`;
export const PWN_MODEL = `gpt-${PWN}`;

/** Replaces, everywhere under `value`, every error's message and every `model` name with the payloads. */
function plant(value: unknown, what: "error" | "model"): unknown {
  if (Array.isArray(value)) return value.map((v) => plant(v, what));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (what === "model" && k === "model" && typeof v === "string") out[k] = PWN_MODEL;
    else if (what === "error" && k === "error" && v !== null && typeof v === "object" && "message" in v)
      out[k] = { ...v, message: PWN_ERROR_MESSAGE };
    else out[k] = plant(v, what);
  }
  return out;
}

/**
 * The failing fixture, with what a hostile relay controls rewritten: in PWN_ERROR_CELL the relay's error message, in
 * PWN_MODEL_CELL the model name of the result it delivered, in every frame and observation of the named case's evidence,
 * and quoted (as the judge quotes them) in that case's reason, its checks and its cell's note.
 */
export function relayPayloadFixture(): Fixture {
  const { file, results, evidences } = structuredClone(fixture("fail"));
  for (const [key, id, what, quoted] of [
    [PWN_ERROR_CELL, PWN_ERROR_CASE, "error", `the upstream received error -32603 "${PWN_ERROR_MESSAGE}"`],
    [PWN_MODEL_CELL, PWN_MODEL_CASE, "model", `the relay delivered a result from model "${PWN_MODEL}"`],
  ] as const) {
    const cell = results.cells.find((c) => `${c.row}|${c.era}|${c.side}` === key);
    const first = cell?.cases.find((c) => c.id === id);
    if (!cell || !first?.evidence) throw new Error(`fixture has no evidence for ${id} in ${key}`);
    first.reason = `${first.reason} (${quoted})`;
    cell.note = quoted;
    const ev = evidences[first.evidence!]!;
    ev.frames = plant(ev.frames, what) as typeof ev.frames;
    ev.observation = plant(ev.observation, what) as typeof ev.observation;
    ev.verdict.reason = first.reason;
    ev.verdict.checks = ev.verdict.checks.map((c) => ({ ...c, detail: `${c.detail}; ${quoted}` }));
  }
  return { file, results, evidences };
}
