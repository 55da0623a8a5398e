/**
 * Escaping for every output format. Relay-provided text (reasons quote what a relay answered) is untrusted
 * in all of them: it must not become markup, links, mentions, workflow commands or script.
 */

const MD_ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "|": "&#124;",
  "[": "&#91;",
  "]": "&#93;",
  "*": "&#42;",
  _: "&#95;",
  "`": "&#96;",
  "\\": "&#92;",
  "~": "&#126;",
  "#": "&#35;",
  "@": "&#64;",
  $: "&#36;",
};

/**
 * Markdown text for one table cell or line: every character that markdown (or GFM: tables, autolinks,
 * @mentions, #references, math) could interpret becomes an entity, and line breaks become spaces.
 * Parentheses and `!` stay: with `[` and `]` escaped they cannot form a link or an image.
 * Bare URLs (`scheme://`, `www.`) are broken up so they do not become links.
 */
export function mdText(value: unknown): string {
  return String(value ?? "")
    .replace(/\r\n?|\n|\u2028|\u2029/g, " ")
    .replace(/[&<>|[\]*_`\\~#$]|@(?=[A-Za-z0-9])/g, (c) => MD_ENTITIES[c] ?? c)
    .replace(/:(?=\/\/)/g, "&#58;")
    .replace(/\b(www)\./gi, "$1&#46;");
}

/** A path as a markdown link destination, or null when it is not a plain relative path. */
export function mdHref(path: string): string | null {
  if (!isRelativePath(path)) return null;
  return encodeURI(path).replace(/\(/g, "%28").replace(/\)/g, "%29");
}

/** A relative path with no scheme, no protocol-relative prefix and no control characters. */
export function isRelativePath(path: string): boolean {
  return (
    path.length > 0 &&
    !/^[a-z][a-z0-9+.-]*:/i.test(path) &&
    !path.startsWith("//") &&
    !path.startsWith("\\") &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
    !/[\u0000-\u001f\u007f]/.test(path)
  );
}

/**
 * A markdown link destination for an evidence path (relative to results.json): under `linkBase` when given (an
 * https URL, or a relative folder), else the path itself. Null when the path is not a plain relative path.
 */
export function evidenceHref(path: string, linkBase: string | undefined): string | null {
  if (!isRelativePath(path)) return null;
  if (linkBase && isHttpsUrl(linkBase)) {
    const url = new URL(path, linkBase.endsWith("/") ? linkBase : `${linkBase}/`);
    return url.protocol === "https:"
      ? encodeURI(decodeURI(url.href)).replace(/\(/g, "%28").replace(/\)/g, "%29")
      : null;
  }
  const base = linkBase ? linkBase.replace(/\/+$/, "") : "";
  return mdHref(base && base !== "." ? `${base}/${path}` : path);
}

export function isHttpsUrl(url: string): boolean {
  try {
    return new URL(url).protocol === "https:";
  } catch {
    return false;
  }
}

/** Characters XML 1.0 forbids even as references. */
const XML_INVALID =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters XML 1.0 forbids
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** XML text or attribute value (attributes are always double-quoted). */
export function xmlText(value: unknown): string {
  return String(value ?? "")
    .replace(XML_INVALID, "\ufffd")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\r/g, "&#13;")
    .replace(/\t/g, "&#9;");
}

/** XML attribute value: like text, and line breaks survive attribute normalisation. */
export function xmlAttr(value: unknown): string {
  return xmlText(value).replace(/\n/g, "&#10;");
}

/**
 * JSON to embed inside <script type="application/json">: `<` (so no `</script` or `<!--`), `>` and `&`
 * become \u escapes, as do U+2028/U+2029. JSON.parse of the element's textContent gives the data back.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** GitHub workflow command message (the part after `::`): %, CR and LF are escaped. */
export function ghData(value: unknown): string {
  return String(value ?? "")
    .replace(/%/g, "%25")
    .replace(/\r/g, "%0D")
    .replace(/\n/g, "%0A");
}

/** GitHub workflow command property value (title=…): also `:` and `,`. */
export function ghProperty(value: unknown): string {
  return ghData(value).replace(/:/g, "%3A").replace(/,/g, "%2C");
}
