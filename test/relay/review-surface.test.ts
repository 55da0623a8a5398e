import type { IncomingMessage, Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { Reviewer } from "../../src/harness/reviewer.ts";
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

describe("a decision and the version", () => {
  it("a decision's 200 carries the version as it stands once its question closed", async () => {
    const url = await open();
    const q = ask("q-1");
    const decided = await fetch(`${url}/q-1/approve`, { method: "POST", body: "{}" });
    expect(decided.status).toBe(200);
    // Opened (1), closed (2).
    expect(decided.headers.get("x-questions-version")).toBe("2");
    expect(await q.decision).toEqual({ kind: "approve" });
  });

  it("the harness's reviewer does not look again for its own close: one long poll per question", async () => {
    const url = await open();
    let lists = 0;
    (surface as unknown as { server: Server }).server.prependListener("request", (req: IncomingMessage) => {
      if (req.method === "GET") lists++;
    });
    const reviewer = new Reviewer(url.replace(/\/questions$/, ""), true);
    reviewer.script(undefined, {
      action: "accept",
      result: { role: "assistant", content: { type: "text", text: "x" }, model: "m" },
    });
    try {
      for (let i = 1; i <= 6; i++) {
        expect(await ask(`q-${i}`).decision).toEqual({ kind: "approve" });
        // The next question comes a little later, as a relay's next stage does (after the model's answer).
        await new Promise((r) => setTimeout(r, 40));
      }
      // The first plain look, then one long poll woken by each question's opening (a surface without the header on
      // its decisions costs a second look per question: 13 here).
      expect(lists).toBeLessThanOrEqual(8);
      expect(reviewer.records.map((r) => r.question.id)).toEqual(["q-1", "q-2", "q-3", "q-4", "q-5", "q-6"]);
    } finally {
      reviewer.stop();
    }
  });

  it("looks again at once when another question opened while it decided", async () => {
    const url = await open();
    const reviewer = new Reviewer(url.replace(/\/questions$/, ""), true);
    // The first question's check opens a second one: the decision's version is then two past the one the reviewer saw.
    let second: ReturnType<typeof ask> | undefined;
    const first = surface.ask("request", {
      id: "q-1",
      server: { name: "test" },
      request: { messages: [], maxTokens: 1 },
      deadline: Date.now() + 5_000,
      check: () => {
        second = ask("q-2", 5_000);
        return null;
      },
    });
    reviewer.script(undefined, {
      action: "accept",
      result: { role: "assistant", content: { type: "text", text: "x" }, model: "m" },
    });
    try {
      expect(await first.decision).toEqual({ kind: "approve" });
      const t0 = performance.now();
      // Decided well before the long poll's 10 s: the reviewer did not wait from a version past q-2's opening.
      expect(await second!.decision).toEqual({ kind: "approve" });
      expect(performance.now() - t0).toBeLessThan(2_000);
    } finally {
      reviewer.stop();
    }
  });
});
