/**
 * Harness throughput: the same generated legal exchanges driven through real relay processes, side by side in
 * one run: the naive pass-through (no validation), the reference relay (validates request and result), and the
 * reference relay with its review surface (two review questions per exchange, answered by the harness).
 * Prints exchanges per second and each relay's cost relative to the pass-through.
 */
import { join } from "node:path";
import fc from "fast-check";
import { legalExchange } from "../src/fuzz/arbitraries.ts";
import { ControlServer } from "../src/harness/channels.ts";
import { RelaySession } from "../src/harness/session.ts";
import { loadTarget, PROJECT_ROOT } from "../src/model/load.ts";

const ERA = "2025-11-25" as const;
const EXCHANGES = 150;
const TARGETS = [
  "targets/broken/naive-passthrough.yaml",
  "targets/reference.yaml",
  "targets/reference-review.yaml",
];

export async function benchHarness(): Promise<string[]> {
  const exchanges = fc.sample(legalExchange(ERA, { maxRounds: 3 }), { seed: 7, numRuns: EXCHANGES });
  const control = new ControlServer();
  await control.start();
  const rates: Array<{ name: string; perSecond: number; msEach: number }> = [];
  try {
    for (const rel of TARGETS) {
      const file = join(PROJECT_ROOT, rel);
      const profile = loadTarget(file);
      const session = await RelaySession.open({
        profile,
        profileFile: file,
        era: ERA,
        capabilities: { sampling: { tools: {} } },
        control,
      });
      try {
        let delivered = 0;
        const t0 = performance.now();
        for (const [i, x] of exchanges.entries()) {
          const out = await session.runCase({
            caseKey: `bench/${i}`,
            params: x.params,
            answer: { action: "accept", result: x.result },
          });
          if (out.observation.upstream.kind === "result") delivered++;
        }
        const ms = performance.now() - t0;
        if (delivered !== exchanges.length)
          throw new Error(`${profile.name} delivered ${delivered}/${exchanges.length}`);
        rates.push({
          name: profile.name,
          perSecond: (exchanges.length / ms) * 1000,
          msEach: ms / exchanges.length,
        });
      } finally {
        await session.close();
      }
    }
  } finally {
    await control.close();
  }
  const base = rates[0]!;
  return [
    `harness: ${EXCHANGES} legal ${ERA} exchanges (tool loops up to 3 rounds) through each relay, one session each`,
    ...rates.map(
      (r) =>
        `  ${r.name.padEnd(20)} ${r.perSecond.toFixed(0).padStart(5)} exchanges/s  ${r.msEach.toFixed(2)} ms each  ${(r.msEach / base.msEach).toFixed(2)}× the pass-through`,
    ),
  ];
}
