import { execFile } from "node:child_process";
import Handlebars from "handlebars";
import { type BrokerAnswerer, type BrokerCall, braced } from "../model/broker.ts";

/**
 * The template and extraction layer of the broker answerer (src/model/broker.ts): renders one declared call with
 * the values at hand, runs it (HTTP or a command line), and pulls fields out of the JSON it returned by JSON pointer.
 */

/** A JSON pointer that does not lead to a value in what a broker returned: named with the field and what was there. */
export class BrokerFieldError extends Error {
  constructor(
    readonly field: string,
    readonly pointer: string,
    /** The deepest prefix of the pointer that holds a value, and that value: what was there instead. */
    readonly found: { at: string; value: unknown },
  ) {
    super(
      `${field}: no value at JSON pointer ${JSON.stringify(pointer)} (${found.at === "" ? "the document" : found.at} is ${quote(found.value)})`,
    );
  }
}

/** A short quote of a JSON value, for reasons and errors. */
export function quote(value: unknown, max = 200): string {
  const text = value === undefined ? "nothing" : typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** RFC 6901 lookup; throws BrokerFieldError naming `field` when a step is missing. */
export function pointerGet(doc: unknown, pointer: string, field: string): unknown {
  if (pointer === "") return doc;
  let here: unknown = doc;
  let at = "";
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(here) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < here.length)
      here = here[Number(token)];
    else if (here !== null && typeof here === "object" && !Array.isArray(here) && Object.hasOwn(here, token))
      here = (here as Record<string, unknown>)[token];
    else throw new BrokerFieldError(field, pointer, { at, value: here });
    at += `/${raw}`;
  }
  return here;
}

/** What a call's templates may read (src/model/broker.ts lists which operation has which). */
export interface CallValues {
  /** The profile's placeholders, by their flat names (`port`, `tmp`, `upstream.command`, `upstream.url`). */
  profile: Record<string, string | undefined>;
  id?: string;
  result?: unknown;
  params?: unknown;
}

export type RenderedCall =
  | { kind: "http"; method: string; url: string; headers: Record<string, string>; body?: string }
  | { kind: "command"; argv: string[] };

const templates = Handlebars.create();
templates.registerHelper("json", (value: unknown) => JSON.stringify(value ?? null));
templates.registerHelper("url", (value: unknown) => encodeURIComponent(String(value ?? "")));

function render(text: string, context: Record<string, unknown>): string {
  return templates.compile(braced(text), { noEscape: true })(context);
}

function contextOf(values: CallValues, inUrl: boolean): Record<string, unknown> {
  const p = values.profile;
  return {
    port: p.port,
    tmp: p.tmp,
    upstream: { command: p["upstream.command"], url: p["upstream.url"] },
    id: values.id === undefined ? undefined : inUrl ? encodeURIComponent(values.id) : values.id,
    result: values.result,
    params: values.params,
  };
}

/** The call with every template filled in: `{{id}}` URL-encoded in a URL, as it is in a body or argv item. */
export function renderCall(call: BrokerCall, values: CallValues): RenderedCall {
  if (call.command)
    return { kind: "command", argv: call.command.map((a) => render(a, contextOf(values, false))) };
  const http = call.http!;
  const plain = contextOf(values, false);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(http.headers ?? {})) headers[k] = render(v, plain);
  const body = http.body === undefined ? undefined : render(http.body, plain);
  if (body !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === "content-type"))
    headers["content-type"] = "application/json";
  return {
    kind: "http",
    method: http.method,
    url: render(http.url, contextOf(values, true)),
    headers,
    ...(body !== undefined ? { body } : {}),
  };
}

export interface CallOutput {
  /** 2xx, or exit code 0. */
  ok: boolean;
  /** The HTTP status, or the command's exit code. */
  status: number;
  /** The output parsed as JSON, or its text when it is not JSON. */
  json: unknown;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Runs a rendered call within `timeoutMs` (commands: in `cwd` with `env`). Throws when it cannot be made at all. */
export async function runCall(
  call: RenderedCall,
  options: { timeoutMs: number; cwd: string; env: Record<string, string>; signal?: AbortSignal },
): Promise<CallOutput> {
  if (call.kind === "http") {
    const response = await fetch(call.url, {
      method: call.method,
      headers: call.headers,
      ...(call.body !== undefined ? { body: call.body } : {}),
      signal: AbortSignal.any([
        AbortSignal.timeout(options.timeoutMs),
        ...(options.signal ? [options.signal] : []),
      ]),
    });
    return { ok: response.ok, status: response.status, json: parsed(await response.text()) };
  }
  const [program, ...args] = call.argv;
  return await new Promise<CallOutput>((resolve, reject) => {
    execFile(
      program!,
      args,
      {
        cwd: options.cwd,
        env: options.env,
        timeout: options.timeoutMs,
        maxBuffer: 16 * 1024 * 1024,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        if (error && typeof code !== "number") return reject(error);
        const out = stdout.trim();
        resolve({ ok: code === 0, status: code as number, json: out ? parsed(out) : stderr.trim() });
      },
    );
  });
}

/** A question as the harness records it: the review surface's shape, filled from what the broker showed. */
export interface BrokerQuestion extends Record<string, unknown> {
  id: string;
  stage: "request" | "response";
  /** Everything the broker showed for the question, as it showed it. */
  shown: unknown;
  /** Fields the profile points at that the broker did not show, each with why. */
  notShown?: Record<string, string>;
}

/** The fields of `show` the profile declares, pulled out of one question's JSON into the review surface's shape. */
export function extractQuestion(id: string, doc: unknown, show: BrokerAnswerer["show"]): BrokerQuestion {
  const notShown: Record<string, string> = {};
  const get = (field: keyof BrokerAnswerer["show"]): unknown => {
    const pointer = show[field];
    if (pointer === undefined) return undefined;
    try {
      return pointerGet(doc, pointer, `show.${field}`);
    } catch (error) {
      notShown[field] = (error as Error).message;
      return undefined;
    }
  };
  const server = get("server");
  const stage = get("stage") === "response" ? "response" : "request";
  // A response is shown at the response stage only; a skeleton, to answer a request.
  const response = stage === "response" ? get("response") : undefined;
  const skeleton = stage === "request" ? get("skeleton") : undefined;
  return {
    id,
    stage,
    server: typeof server === "string" ? { name: server } : server,
    show: { systemPrompt: get("systemPrompt") ?? null, messages: get("messages") },
    request: get("request"),
    ...(skeleton !== undefined ? { resultSkeleton: skeleton } : {}),
    ...(stage === "response" ? { response } : {}),
    shown: doc,
    ...(Object.keys(notShown).length > 0 ? { notShown } : {}),
  };
}
