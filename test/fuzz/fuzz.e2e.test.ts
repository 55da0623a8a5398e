/**
 * Differential fuzzing end to end, through the real CLI and real relay processes: a relay that decides every
 * exchange right but lower-cases the result's `model` (test/fixtures/fuzz-relays/lowercases-model.yaml: the
 * reference relay behind a pass-through) is caught with a shrunk counterexample on
 * sampling-relay-content-unchanged, and the reference relay agrees on every exchange of the same seed. In 2026-07-28
 * (answers carried in inputResponses) the same is shown with targets/broken/rewrites-model.yaml, beside a relay that
 * skips the image checks. Legacy exchanges go under JSON-RPC ids from the whole id space: a relay that retypes a
 * response's id (test/fixtures/fuzz-relays/retypes-ids.yaml) is caught on sampling-relay-roundtrip.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type Results, ResultsSchema } from "../../src/model/results.ts";
import { cli, tempDir } from "../helpers/cli.ts";

const run = (target: string, out: string, era = "2025-11-25", runs = 60) =>
  cli(
    [
      "run",
      ...["--target", target, "--era", era, "--rows", "sampling-relay-roundtrip"],
      ...["--fuzz", String(runs), "--seed", "1", "--out", out, "--quiet"],
    ],
    { timeoutMs: 55_000 },
  );

const results = (dir: string): Results =>
  ResultsSchema.parse(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")));

describe("mcpx-conform run --fuzz", () => {
  it("catches a relay that lower-cases model; the reference relay agrees on the same seed", async () => {
    const broken = tempDir();
    const reference = tempDir();
    const [b, r] = await Promise.all([
      run("test/fixtures/fuzz-relays/lowercases-model.yaml", broken),
      run("targets/reference.yaml", reference),
    ]);

    expect(b.code, b.stderr).toBe(1);
    const [fb] = results(broken).fuzz!;
    expect(fb).toMatchObject({ era: "2025-11-25", seed: 1, status: "fail" });
    expect(fb!.reason).toMatch(
      /the result the upstream received differs from the one the answerer sent: \/model changed/i,
    );
    expect(fb!.caseFile).toMatch(/^fuzz\/counterexamples\/sampling-relay-content-unchanged\//);
    // Branches count the generated exchanges up to the first disagreement, never the shrink candidates after it: on
    // seed 1 the second exchange is the first the relay gets wrong (counting the candidates gave 52 on that branch).
    expect(fb!.branches).toEqual({
      "sampling-both-validate-message-content/client": 1,
      "sampling-relay-content-unchanged/intermediary": 1,
    });
    const saved = parse(readFileSync(join(broken, fb!.caseFile!), "utf8"));
    // Shrunk: a model with an upper-case letter (the lower-casing is the whole defect), and a short request.
    expect(saved.answer.result.model).not.toBe(saved.answer.result.model.toLowerCase());
    expect(saved.request.messages.length).toBe(1);
    expect(existsSync(join(broken, fb!.evidence!))).toBe(true);

    expect(r.code, r.stderr).toBe(0);
    const [fr] = results(reference).fuzz!;
    expect(fr, fr?.reason).toMatchObject({ era: "2025-11-25", seed: 1, runs: 60, status: "pass" });
    // The 60 exchanges reached all three branches of the oracle.
    expect(Object.keys(fr!.branches).sort()).toEqual([
      "sampling-both-validate-message-content/client",
      "sampling-both-validate-message-content/server",
      "sampling-relay-content-unchanged/intermediary",
    ]);
  });

  it("sends under ids from the whole id space: a relay that retypes the response's id fails the round trip, shrunk to id 0", async () => {
    const out = tempDir();
    const r = await run("test/fixtures/fuzz-relays/retypes-ids.yaml", out, "2024-11-05");
    expect(r.code, r.stderr).toBe(1);
    const [f] = results(out).fuzz!;
    expect(f).toMatchObject({ era: "2024-11-05", status: "fail" });
    expect(f!.caseFile).toMatch(/^fuzz\/counterexamples\/sampling-relay-roundtrip\//);
    expect(f!.reason).toMatch(/the response to request id 0 came back under id "0" \(number → string\)/i);
    expect(readFileSync(join(out, f!.caseFile!), "utf8")).toContain("under JSON-RPC id 0.");
    const cell = results(out).cells.find((c) => c.row === "sampling-relay-roundtrip");
    expect(cell?.status).toBe("fail");
  });

  it("in 2026-07-28, its runs cut into streams side by side, catches a relay that skips image checks and one that rewrites model", async () => {
    // 100 runs: four streams of 25, each on its own relay session; the reference agrees on every one.
    const images = tempDir();
    const model = tempDir();
    const reference = tempDir();
    const [i, m, r] = await Promise.all([
      run("targets/broken/image-unchecked.yaml", images, "2026-07-28", 100),
      run("targets/broken/rewrites-model.yaml", model, "2026-07-28", 100),
      run("targets/reference.yaml", reference, "2026-07-28", 100),
    ]);
    expect(i.code, i.stderr).toBe(1);
    const [fi] = results(images).fuzz!;
    expect(fi).toMatchObject({ era: "2026-07-28", seed: 1, runs: 100, status: "fail" });
    expect(fi!.reason).toMatch(/mimeType is required|base64/);
    expect(existsSync(join(images, fi!.caseFile!))).toBe(true);

    // Fidelity in this era: the result the answerer put in inputResponses reaches the upstream changed.
    expect(m.code, m.stderr).toBe(1);
    const [fm] = results(model).fuzz!;
    expect(fm).toMatchObject({ era: "2026-07-28", status: "fail" });
    expect(fm!.caseFile).toMatch(/^fuzz\/counterexamples\/sampling-relay-content-unchanged\//);
    expect(fm!.reason).toMatch(/\/model changed/);

    expect(r.code, r.stderr).toBe(0);
    const [fr] = results(reference).fuzz!;
    expect(fr, fr?.reason).toMatchObject({ era: "2026-07-28", seed: 1, runs: 100, status: "pass" });
    expect(Object.values(fr!.branches).reduce((n, c) => n + c, 0)).toBe(100);
  });
});
