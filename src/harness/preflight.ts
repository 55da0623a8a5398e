import { accessSync, constants, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { BROKER_OPERATIONS } from "../model/broker.ts";
import { InputError } from "../model/errors.ts";
import type { TargetProfile } from "../model/target.ts";
import { relayEnv } from "./env.ts";
import { checkProbeTemplate, downstreamHeaders } from "./probe-call.ts";

/** Script arguments the pre-flight checks exist (an interpreter's script: `node relays/x.mjs`). */
const SCRIPT = /\.(?:[cm]?js|[cm]?ts|py|sh|rb|pl)$/;

function executable(path: string): "ok" | "missing" | "not-executable" | "directory" {
  try {
    if (statSync(path).isDirectory()) return "directory";
  } catch {
    return "missing";
  }
  try {
    accessSync(path, constants.X_OK);
    return "ok";
  } catch {
    return "not-executable";
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A program the profile runs exists and is executable (a path relative to `from`, or a bare name on PATH). */
function checkProgram(
  profile: TargetProfile,
  profileFile: string | undefined,
  program: string,
  field: string,
  from: string,
): void {
  if (program.includes("{{")) return;
  if (program.includes("/")) {
    const path = isAbsolute(program) ? program : resolve(from, program);
    const state = executable(path);
    if (state !== "ok")
      throw new InputError(
        `cannot run '${program}': ${state === "missing" ? "no such file" : state === "directory" ? "it is a folder" : "not executable (EACCES)"} (${path})`,
        profileFile,
        field,
      );
  } else {
    const env = relayEnv(profile, profile.env);
    const dirs = (env.PATH ?? "").split(delimiter).filter(Boolean);
    if (!dirs.some((d) => executable(join(d, program)) === "ok"))
      throw new InputError(`cannot run '${program}': not found on PATH (ENOENT)`, profileFile, field);
  }
}

/**
 * Checks, before any case runs, that the profile's command can be started: the program exists and is executable
 * (a bare name on the PATH the relay will get, a path relative to the profile's folder), the working folder exists,
 * and script arguments (`relays/x.mjs`) exist; the probe template renders and the downstream headers' environment
 * variables are set. A problem is the profile's: an InputError naming the command and
 * the profile file (exit 2), instead of every case waiting out the start-up timeout.
 */
export function preflightProfile(profile: TargetProfile, profileFile: string | undefined): void {
  checkProbeTemplate(profile.probe, profileFile);
  downstreamHeaders(profile, profileFile);
  const base = profileFile ? dirname(profileFile) : process.cwd();
  const cwd = profile.cwd ? (isAbsolute(profile.cwd) ? profile.cwd : resolve(base, profile.cwd)) : base;
  if (profile.cwd && !profile.cwd.includes("{{") && !exists(cwd))
    throw new InputError(`expected an existing folder, got '${profile.cwd}' (${cwd})`, profileFile, "cwd");
  checkProgram(profile, profileFile, profile.command[0]!, "command[0]", base);
  // A broker's command lines run in the relay's folder with its environment: their programs must exist too.
  if (profile.answerer.kind === "broker")
    for (const op of BROKER_OPERATIONS) {
      const argv = (profile.answerer[op] as { command?: string[] } | undefined)?.command;
      if (argv) checkProgram(profile, profileFile, argv[0]!, `answerer.${op}.command[0]`, cwd);
    }
  if (profile.command[0]!.includes("{{")) return;
  const program = profile.command[0]!;
  profile.command.slice(1).forEach((arg, i) => {
    if (arg.includes("{{") || arg.startsWith("-") || /\s|:\/\//.test(arg) || !SCRIPT.test(arg)) return;
    const path = isAbsolute(arg) ? arg : resolve(cwd, arg);
    if (!exists(path))
      throw new InputError(
        `'${program} ${arg}': the script '${arg}' does not exist (${path})`,
        profileFile,
        `command[${i + 1}]`,
      );
  });
}
