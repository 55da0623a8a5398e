/**
 * `npm run bench` (`-- --json` for one JSON document instead of the table): speed (the default run against its floor,
 * one exchange through the harness against the raw SDK round trip, fuzz exchanges/s; bench/speed.ts), then the
 * validator against the SDK's own parse (bench/validator.ts) and harness throughput through three relays
 * (bench/harness.ts), and the harness's peak memory over 1,000 and 10,000 case runs (bench/memory.ts, bound 512 MB).
 * Keep it under about three minutes.
 */
import { benchHarness } from "./harness.ts";
import { benchMemory, memoryLines } from "./memory.ts";
import { benchSpeed, speedLines } from "./speed.ts";
import { benchValidator } from "./validator.ts";

const json = process.argv.includes("--json");
const started = performance.now();
const timings: Record<string, number> = {};

async function timed<T>(name: string, run: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const value = await run();
  timings[name] = Math.round(performance.now() - t0);
  if (!json) process.stderr.write(`(${name}: ${(timings[name]! / 1000).toFixed(1)} s)\n`);
  return value;
}

const speed = await timed("speed", benchSpeed);
if (!json) process.stdout.write(`${speedLines(speed).join("\n")}\n\n`);
const validator = await timed("validator", benchValidator);
if (!json) process.stdout.write(`${validator.join("\n")}\n\n`);
const harness = await timed("harness", benchHarness);
if (!json) process.stdout.write(`${harness.join("\n")}\n\n`);
const memory = await timed("memory", benchMemory);
if (!json) process.stdout.write(`${memoryLines(memory).join("\n")}\n`);
if (json)
  process.stdout.write(
    `${JSON.stringify({ node: process.version, speed, validator, harness, memory, timingsMs: timings, totalMs: Math.round(performance.now() - started) }, null, 2)}\n`,
  );
