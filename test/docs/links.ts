/**
 * Relative links and #anchors of markdown pages, resolved as GitHub renders them: a link to a file or folder must
 * exist, an anchor must be a heading's slug (or an `id`/`name` attribute) in the page it points into. External links
 * (a scheme such as https: or mailto:) are not followed. Pure: the pages and the existing paths come in as data.
 */
import { dirname, join, normalize } from "node:path";

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
export function slugs(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const heading of headings(markdown)) {
    const base = heading
      .replace(/<[^>]+>/g, "")
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  return out;
}

/** The lines outside fenced code blocks (headings and links in code are not markdown). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

function headings(markdown: string): string[] {
  return prose(markdown).flatMap((line) => {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    return m ? [m[1]!] : [];
  });
}

/** Every link target of a page: inline links and images, and reference definitions; inline code left out. */
export function linkTargets(markdown: string): string[] {
  const text = prose(markdown)
    .join("\n")
    .replace(/`[^`\n]*`/g, "");
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const defined = [...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!);
  return [...inline, ...defined];
}

export interface DocSet {
  /** Markdown pages by path from the repository root. */
  pages: ReadonlyMap<string, string>;
  /** Whether a path from the repository root exists (file or folder). */
  exists: (path: string) => boolean;
}

/** What does not resolve, one line each: `page: target (why)`. */
export function brokenLinks(docs: DocSet): string[] {
  const broken: string[] = [];
  for (const [page, markdown] of docs.pages) {
    for (const target of linkTargets(markdown)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [pathPart, anchor] = splitAnchor(target);
      const file = pathPart === "" ? page : normalize(join(dirname(page), decodeURI(pathPart)));
      if (file.startsWith("..")) {
        broken.push(`${page}: ${target} (outside the repository)`);
        continue;
      }
      if (pathPart !== "" && !docs.exists(file)) {
        broken.push(`${page}: ${target} (no such file: ${file})`);
        continue;
      }
      if (anchor === undefined || !file.endsWith(".md")) continue;
      const into = docs.pages.get(file);
      if (into === undefined) broken.push(`${page}: ${target} (anchor into a page not checked: ${file})`);
      else if (!slugs(into).has(decodeURIComponent(anchor)))
        broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
    }
  }
  return broken;
}

function splitAnchor(target: string): [string, string | undefined] {
  const at = target.indexOf("#");
  return at < 0 ? [target, undefined] : [target.slice(0, at), target.slice(at + 1)];
}
