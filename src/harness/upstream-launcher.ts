import { spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../model/load.ts";

/**
 * The executable a stdio relay launches as its upstream server. It is only a pipe: it connects to the harness's
 * loopback control channel, introduces itself with the session's token (read from a 0600 file, never on a command
 * line) and copies bytes both ways, so the scripted upstream sees every frame exactly as the relay wrote it.
 *
 * Every stdio session of a run launches one, so its start-up is paid once per session: a Node process costs about
 * 110 ms of CPU before it runs a line (half a relay's start), bash a few ms. Where bash can open a TCP connection
 * (`/dev/tcp`) and wait for the first of two jobs (`wait -n`, bash ≥ 4.3), the launcher is a bash script; elsewhere
 * (no bash, macOS's bash 3.2, a bash built without network redirections) it runs the Node shim
 * (src/harness/upstream-shim.mjs). MCPX_CONFORM_NODE_SHIM=1 forces the Node shim. Both behave alike: bytes copied
 * unchanged; when the relay closes the upstream's stdin the connection closes; when the harness closes the
 * connection the shim exits.
 */

const NODE_SHIM = join(PROJECT_ROOT, "src/harness/upstream-shim.mjs");

/** POSIX single quotes around any text. */
const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The bash pipe. fd 3 is the connection; the relay's stdin is handed to the copy on fd 4 because bash gives a
 * background job /dev/null as its stdin. The first copy to end (the relay closed stdin, or the harness closed the
 * connection) ends the other and the shim, which closes the connection and the relay's pipes.
 */
function bashScript(pipe: BashPipe, host: string, port: string, tokenFile: string): string {
  const cat = quoted(pipe.cat);
  return [
    // -p: no BASH_ENV file sourced and no functions imported from the environment the relay gives its upstream.
    `#!${pipe.bash} -p`,
    "# mcpx-conform's upstream: a pipe between the relay's stdio and the harness (src/harness/upstream-launcher.ts).",
    // A relay that stops its upstream with a signal stops both copies with it (their pipes and the connection
    // close); set before the hello, so from the moment the harness knows the shim. `$!` too: a trap may run between
    // a copy's start and the assignment of its pid.
    `trap 'kill "$reader" "$writer" $! 2>/dev/null; exit 0' TERM INT HUP`,
    `exec 3<>/dev/tcp/${host}/${port} || exit 1`,
    // The token file has no final newline: read then reports end of file, with the token read.
    `IFS= read -r token < ${quoted(tokenFile)} || [ -n "$token" ] || exit 2`,
    `printf '{"hello":"%s","pid":%d}\\n' "$token" "$$" >&3`,
    "exec 4<&0",
    // cat by its full path: a relay may start its upstream with no PATH.
    `${cat} <&3 & reader=$!`,
    `${cat} <&4 >&3 & writer=$!`,
    "wait -n",
    'kill "$reader" "$writer" 2>/dev/null',
    "exit 0",
    "",
  ].join("\n");
}

/** The programs the bash pipe runs, by absolute path. */
interface BashPipe {
  bash: string;
  cat: string;
}

let probed: { pipe: BashPipe | undefined } | undefined;

/**
 * A bash that can run the pipe, and its cat, probed once per process: version ≥ 4.3 and network redirections (a
 * connection to port 1 is refused, not "No such file").
 */
function pipeBash(): BashPipe | undefined {
  if (process.env.MCPX_CONFORM_NODE_SHIM === "1") return undefined;
  if (probed) return probed.pipe;
  const probe = spawnSync(
    "bash",
    [
      "-c",
      '(( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 3) )) || exit 3; (exec 3<>/dev/tcp/127.0.0.1/1) 2>&1; printf "\\n%s\\n%s" "$BASH" "$(command -v cat)"',
    ],
    { encoding: "utf8", timeout: 5_000 },
  );
  const lines = (probe.status === 0 ? probe.stdout : "").split("\n");
  const [bash, cat] = lines.slice(-2);
  // Absolute paths without blanks: the shebang line takes one program path and one argument.
  const path = (p: string | undefined) => p?.startsWith("/") === true && !/\s/.test(p);
  const usable = /refused/i.test(lines.join("\n")) && path(bash) && path(cat);
  probed = { pipe: usable ? { bash: bash!, cat: cat! } : undefined };
  return probed.pipe;
}

/** Writes the launcher (0700) into the session's private folder and returns its path. */
export function writeUpstreamLauncher(tmp: string, controlAddress: string, tokenFile: string): string {
  const path = join(tmp, "upstream");
  const colon = controlAddress.lastIndexOf(":");
  const pipe = pipeBash();
  writeFileSync(
    path,
    pipe
      ? bashScript(pipe, controlAddress.slice(0, colon), controlAddress.slice(colon + 1), tokenFile)
      : `#!/bin/sh\nexec ${quoted(process.execPath)} ${quoted(NODE_SHIM)} ${quoted(controlAddress)} ${quoted(tokenFile)}\n`,
  );
  chmodSync(path, 0o700);
  return path;
}

/** Which pipe this process's launchers run (for tests and the benchmark). */
export const upstreamPipe = (): "bash" | "node" => (pipeBash() ? "bash" : "node");
