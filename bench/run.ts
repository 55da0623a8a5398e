/**
 * `npm run bench`: runs every bench module in turn and prints its lines. Add a module by appending it to
 * BENCHES (each exports an async function returning the lines to print).
 */
import { benchHarness } from "./harness.ts";
import { benchValidator } from "./validator.ts";

const BENCHES: Array<[name: string, run: () => Promise<string[]>]> = [
  ["validator", benchValidator],
  ["harness", benchHarness],
];

for (const [name, run] of BENCHES) {
  const started = performance.now();
  const lines = await run();
  for (const line of lines) process.stdout.write(`${line}\n`);
  process.stdout.write(`(${name}: ${((performance.now() - started) / 1000).toFixed(1)} s)\n\n`);
}
