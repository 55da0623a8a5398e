import type { TargetProfile } from "../model/target.ts";

/**
 * The relay under test is untrusted: it gets the environment a program needs to run (where programs are, whose
 * home, which locale, where temporary files go), never the harness's whole environment, so a CI job's tokens do
 * not reach it. The profile's `env` is added on top; `inheritEnv: true` opts out and passes everything.
 *
 * Not passed on purpose: NODE_OPTIONS (it would load the harness's own hooks, e.g. a test runner's, into a
 * Node relay; a relay that needs flags puts them in its argv), npm_* and every credential-shaped variable.
 */
export const ENV_ALLOWLIST: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "TZ",
  "LANG",
  "LANGUAGE",
  "TMPDIR",
  "TEMP",
  "TMP",
  // Windows needs these to start any program.
  "SystemRoot",
  "ComSpec",
  "PATHEXT",
  // Harness diagnostics reach the reference relay too.
  "MCPX_CONFORM_DEBUG",
];

const ALLOWED_PREFIXES = ["LC_"];

/** The relay's environment: the allowlisted variables of `from`, then the profile's `env` (already filled). */
export function relayEnv(
  profile: Pick<TargetProfile, "inheritEnv">,
  extra: Record<string, string>,
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(from)) {
    if (v === undefined) continue;
    if (profile.inheritEnv || ENV_ALLOWLIST.includes(k) || ALLOWED_PREFIXES.some((p) => k.startsWith(p)))
      env[k] = v;
  }
  return { ...env, ...extra };
}
