import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Everything the harness starts that could outlive it: relay process groups and temporary folders. Relays run in
 * a process group of their own (a relay's children — the upstream shim, npx wrappers, grandchildren — share it),
 * so a terminal's Ctrl-C never reaches them: the harness reaps them itself, on every way out.
 */

/** How long a relay has to exit after SIGTERM before its whole process group gets SIGKILL (see waits.ts). */
export { KILL_GRACE_MS } from "./waits.ts";

const groups = new Set<number>();
const dirs = new Set<string>();
let keepTemp = false;
let hooked = false;

/** Signals a whole process group; a group that is already gone is no error. */
export function killGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  // Last resort (an uncaught error, process.exit): nothing the harness started survives it.
  process.once("exit", () => reapAllNow());
}

/** Records a process group the harness started (its leader's pid). */
export function trackGroup(pgid: number | undefined): void {
  if (pgid === undefined) return;
  hook();
  groups.add(pgid);
}

/** The group has been reaped. */
export function untrackGroup(pgid: number | undefined): void {
  if (pgid !== undefined) groups.delete(pgid);
}

/** `--keep`: leave temporary folders in place (for debugging a relay); they are listed at the end instead. */
export function keepTemporaryDirs(keep: boolean): void {
  keepTemp = keep;
}

/** A fresh private (0700) temporary folder, removed by `removeTempDir` or when the harness exits. */
export function makeTempDir(prefix = "mcpx-conform-"): string {
  hook();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // mkdtemp already creates 0700; said outright, since the upstream shim's token file lives here.
  chmodSync(dir, 0o700);
  dirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  dirs.delete(dir);
  if (!keepTemp) rmSync(dir, { recursive: true, force: true });
}

/** Folders kept by `--keep` (or not yet removed). */
export function liveTempDirs(): string[] {
  return [...dirs];
}

/** Process groups still tracked (started and not yet reaped). */
export function liveGroups(): number[] {
  return [...groups];
}

/** SIGKILL to every tracked group and removal of every temporary folder, synchronously (safe in an exit hook). */
export function reapAllNow(): void {
  for (const pgid of groups) killGroup(pgid, "SIGKILL");
  groups.clear();
  if (!keepTemp) for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}
