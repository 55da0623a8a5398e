import { dirname, resolve } from "node:path";

/** Node's modules that spawn or listen, and the packages that do (a browser, esbuild's service, the SDK's stdio). */
const STARTS =
  /^(?:node:)?(?:child_process|net|http|https|http2|tls|dgram|cluster|worker_threads)$|^playwright-core$|^esbuild$|^@modelcontextprotocol\/sdk\/client\/stdio|^mcpx-conform(?:\/|$)/;
/** Value imports and re-exports, side-effect imports and dynamic imports with a literal path. */
const IMPORTS =
  /(?:^|\n)\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s+["']([^"']+)["']/g;

/**
 * The import chain from `file` to the first module that spawns or listens, or undefined when there is none.
 * `read` gives a module's text (undefined: no such module).
 */
export function startingChain(
  file: string,
  read: (path: string) => string | undefined,
  seen = new Set<string>(),
): string[] | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  const text = read(file);
  if (text === undefined) return undefined;
  for (const m of text.matchAll(IMPORTS)) {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    if (STARTS.test(spec)) return [file, spec];
    if (!spec.startsWith(".")) continue;
    const chain = startingChain(resolve(dirname(file), spec), read, seen);
    if (chain) return [file, ...chain];
  }
  return undefined;
}
