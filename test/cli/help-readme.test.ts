import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { registerCommands } from "../../src/cli/commands.ts";
import { cliInProcess, ROOT } from "../helpers/cli.ts";

/**
 * The README's CLI synopsis and the CLI itself name the same options: every option a command has is in its README
 * line(s) and in its `--help`, and the README names none the command does not have.
 */

/** The README's synopsis block: command → the options its lines name. */
function readmeOptions(): Map<string, Set<string>> {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = /## CLI\n\n```\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block, "README.md has a CLI synopsis block").toBeDefined();
  const byCommand = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of block!.split("\n")) {
    const start = /^mcpx-conform (?:([a-z]+)\b)?/.exec(line);
    if (start) {
      const name = start[1] ?? "";
      current = byCommand.get(name) ?? new Set();
      byCommand.set(name, current);
    }
    for (const m of line.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)) current?.add(m[0]);
  }
  return byCommand;
}

function cliOptions(): Map<string, Set<string>> {
  const program = new Command("mcpx-conform");
  registerCommands(program, () => undefined, {
    stdout: () => undefined,
    stderr: () => undefined,
    cwd: ROOT,
    isTTY: false,
  });
  return new Map(
    program.commands.map((c) => [c.name(), new Set(c.options.map((o) => o.long!).filter(Boolean))]),
  );
}

describe("every documented option is in --help and the README, and vice versa", () => {
  const readme = readmeOptions();
  const cli = cliOptions();

  it("the README lists every command, and only those", () => {
    expect([...readme.keys()].filter((k) => k !== "").sort()).toEqual([...cli.keys()].sort());
    expect(readme.get("")).toEqual(new Set(["--version", "--help"]));
  });

  for (const [command, options] of cliOptions()) {
    it(`${command}: README and CLI name the same options, and --help shows each`, async () => {
      expect([...(readme.get(command) ?? [])].sort(), `README's ${command}`).toEqual([...options].sort());
      const help = await cliInProcess([command, "--help"]);
      expect(help.code).toBe(0);
      for (const option of options) expect(help.stdout, `${command} --help`).toContain(option);
      // Help never shows where this copy is installed.
      expect(help.stdout).not.toContain(ROOT);
    });
  }

  it("detects an option the README lacks (the check can fail)", () => {
    const missing = new Set([...(cli.get("run") ?? [])]);
    missing.add("--not-documented");
    expect([...(readme.get("run") ?? [])].sort()).not.toEqual([...missing].sort());
  });
});
