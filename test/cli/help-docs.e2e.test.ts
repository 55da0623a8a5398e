import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMAND_EXAMPLES } from "../../src/cli/examples.ts";
import { createProgram } from "../../src/main.ts";
import { cliInProcess, ROOT } from "../helpers/cli.ts";

/**
 * docs/cli.md (generated from the command definitions, test/docs/generated.e2e.test.ts) and the CLI name the same
 * commands and options; every option is in its command's `--help`, which ends with the command's example.
 */

/** docs/cli.md's command sections: command → the options its table names. */
function documentedOptions(): Map<string, Set<string>> {
  const page = readFileSync(join(ROOT, "docs/cli.md"), "utf8");
  const byCommand = new Map<string, Set<string>>();
  for (const section of page.split(/\n### mcpx-conform /).slice(1)) {
    const name = /^[a-z]+/.exec(section)![0];
    const table = section.split("\n").filter((l) => l.startsWith("| `-"));
    byCommand.set(
      name,
      new Set(table.flatMap((row) => [...row.matchAll(/--[a-z][a-z-]*/g)].slice(0, 1).map((m) => m[0]))),
    );
  }
  return byCommand;
}

function cliOptions(): Map<string, Set<string>> {
  const program = createProgram(() => undefined, {
    stdout: () => undefined,
    stderr: () => undefined,
    cwd: ROOT,
    isTTY: false,
  });
  return new Map(
    program.commands.map((c) => [c.name(), new Set([...c.options.map((o) => o.long!), "--help"])]),
  );
}

describe("every option is in --help and docs/cli.md, and vice versa", () => {
  const documented = documentedOptions();
  const cli = cliOptions();

  it("docs/cli.md documents every command, and only those, each with an example", () => {
    expect([...documented.keys()].sort()).toEqual([...cli.keys()].sort());
    expect(Object.keys(COMMAND_EXAMPLES).sort()).toEqual([...cli.keys()].sort());
  });

  for (const [command, options] of cli) {
    it(`${command}: docs/cli.md and the CLI name the same options; --help shows each and ends with the example`, async () => {
      expect([...(documented.get(command) ?? [])].sort(), `docs/cli.md's ${command}`).toEqual(
        [...options].sort(),
      );
      const help = await cliInProcess([command, "--help"]);
      expect(help.code).toBe(0);
      for (const option of options) expect(help.stdout, `${command} --help`).toContain(option);
      expect(help.stdout.trimEnd()).toMatch(
        new RegExp(
          `\\nExample:\\n  \\$ ${COMMAND_EXAMPLES[command]!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`,
        ),
      );
      // Help never shows where this copy is installed.
      expect(help.stdout).not.toContain(ROOT);
    });
  }

  it("detects an option the docs lack (the check can fail)", () => {
    const missing = new Set([...(cli.get("run") ?? [])]);
    missing.add("--not-documented");
    expect([...(documented.get("run") ?? [])].sort()).not.toEqual([...missing].sort());
  });
});
