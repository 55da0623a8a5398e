import { afterEach, describe, expect, it } from "vitest";
import { ReviewSurface } from "../../src/relay/review-surface.ts";

/**
 * The review surface's long poll (`GET /v1/questions?wait=MS&since=V`): a reviewer is told of a new question when it
 * opens instead of polling. Without `wait` the list answers at once, as it always did.
 */
let surface: ReviewSurface;

afterEach(async () => {
  await surface?.close();
});

async function open(): Promise<string> {
  surface = new ReviewSurface();
  await surface.listen(0);
  return `http://127.0.0.1:${surface.port}/v1/questions`;
}

function ask(id: string, deadlineMs = 5_000) {
  return surface.ask("request", {
    id,
    server: { name: "test" },
    request: { messages: [], maxTokens: 1 },
    deadline: Date.now() + deadlineMs,
    check: () => null,
  });
}

describe("review surface long poll", () => {
  it("answers a plain GET at once, with the question version in a header", async () => {
    const url = await open();
    const t0 = performance.now();
    const res = await fetch(url);
    expect(await res.json()).toEqual([]);
    expect(res.headers.get("x-questions-version")).toBe("0");
    expect(performance.now() - t0).toBeLessThan(1_000);
  });

  it("holds ?wait= until a question opens, then answers with it", async () => {
    const url = await open();
    const t0 = performance.now();
    const polled = fetch(`${url}?wait=5000&since=0`).then(async (r) => ({
      at: performance.now() - t0,
      version: r.headers.get("x-questions-version"),
      body: (await r.json()) as Array<{ id: string }>,
    }));
    await new Promise((r) => setTimeout(r, 150));
    ask("q-1");
    const got = await polled;
    expect(got.at).toBeGreaterThanOrEqual(140);
    expect(got.at).toBeLessThan(2_000);
    expect(got.body.map((q) => q.id)).toEqual(["q-1"]);
    expect(got.version).toBe("1");
  });

  it("answers at once when the version moved since the caller's, and after MS when nothing changes", async () => {
    const url = await open();
    ask("q-1");
    const moved = await fetch(`${url}?wait=5000&since=0`);
    expect(((await moved.json()) as unknown[]).length).toBe(1);
    const t0 = performance.now();
    const still = await fetch(`${url}?wait=200&since=${moved.headers.get("x-questions-version")}`);
    expect(((await still.json()) as unknown[]).length).toBe(1);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
  });

  it("wakes a long poll when a question closes, and when the surface closes", async () => {
    const url = await open();
    const q = ask("q-1");
    const first = await fetch(`${url}?wait=5000&since=0`);
    const version = first.headers.get("x-questions-version");
    const polled = fetch(`${url}?wait=5000&since=${version}`).then((r) => r.json());
    await new Promise((r) => setTimeout(r, 50));
    await fetch(`${url}/q-1/decline`, { method: "POST", body: "{}" });
    expect(await polled).toEqual([]);
    expect(await q.decision).toEqual({ kind: "decline" });
    const t0 = performance.now();
    const hanging = fetch(`${url}?wait=30000&since=${Number(version) + 1}`).then((r) => r.status);
    await new Promise((r) => setTimeout(r, 50));
    await surface.close();
    expect(await hanging).toBe(200);
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});
