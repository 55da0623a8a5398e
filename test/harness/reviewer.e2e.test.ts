import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Reviewer } from "../../src/harness/reviewer.ts";
import type { Answer } from "../../src/model/case.ts";

/**
 * The harness reviewer against a scripted review surface (a plain HTTP server in this test): which case's script
 * decides a question, whose evidence records it, and how many decisions are in flight at once. No relay: these are
 * the reviewer's own rules, which the reference relay only shows under load (a burst's questions still open when
 * the next 2026-07-28 case is scripted on the same session).
 */

const ACCEPT: Answer = {
  action: "accept",
  result: { role: "assistant", content: { type: "text", text: "ok" }, model: "m" },
};
const CANARY_A = "Cnry-case-a-20260728-1a-ÄΩ";
const CANARY_B = "Cnry-case-b-20260728-1b-ÄΩ";

function question(id: string, canary: string) {
  return {
    id,
    stage: "request",
    server: { name: "upstream" },
    request: {
      messages: [{ role: "user", content: { type: "text", text: `hello ${canary}` } }],
      maxTokens: 8,
    },
  };
}

interface Surface {
  url: string;
  show(questions: unknown[]): void;
  decisions: string[];
  /** The most decisions that were in flight at the same time. */
  mostAtOnce: number;
  /** Decisions are answered once this many are in flight (or after a short wait): shows whether they overlap. */
  holdUntil: number;
}

const servers: Server[] = [];
const reviewers: Reviewer[] = [];
afterEach(async () => {
  for (const r of reviewers.splice(0)) r.stop();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A review surface without long polling (no x-questions-version): the reviewer polls it every few ms. */
async function surface(): Promise<Surface> {
  let shown: unknown[] = [];
  let inFlight = 0;
  const held: Array<() => void> = [];
  const s: Surface = {
    url: "",
    show: (q) => {
      shown = q;
    },
    decisions: [],
    mostAtOnce: 0,
    holdUntil: 1,
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      if (req.method === "GET") {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(shown));
        return;
      }
      s.decisions.push(req.url ?? "");
      shown = shown.filter((q) => !(req.url ?? "").includes(`/${(q as { id: string }).id}/`));
      inFlight++;
      s.mostAtOnce = Math.max(s.mostAtOnce, inFlight);
      const answer = () => {
        inFlight--;
        res.setHeader("content-type", "application/json");
        res.end('{"ok":true}');
      };
      held.push(answer);
      const release = () => {
        for (const a of held.splice(0)) a();
      };
      if (held.length >= s.holdUntil) release();
      else setTimeout(release, 300);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  s.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return s;
}

/** Waits for `ok` (vitest's own polling wait), bounded. */
const until = (ok: () => boolean) => vi.waitUntil(ok, { timeout: 5_000, interval: 10 });

/** A reviewer at a fresh surface, scripted for case A (decline the request) and then for case B (no review step). */
async function afterTwoCases(modelConnected: boolean): Promise<{ surf: Surface; reviewer: Reviewer }> {
  const surf = await surface();
  const reviewer = new Reviewer(surf.url, modelConnected);
  reviewers.push(reviewer);
  reviewer.script({ request: { action: "decline" } }, ACCEPT, undefined, CANARY_A);
  reviewer.script(undefined, ACCEPT, undefined, CANARY_B);
  return { surf, reviewer };
}

describe("the harness reviewer", () => {
  it("decides a late question of an earlier case by that case's script, and keeps it out of the next case's records", async () => {
    const { surf, reviewer } = await afterTwoCases(false);
    // Case A's question opens only now, while case B is scripted.
    surf.show([question("qa", CANARY_A)]);
    await until(() => surf.decisions.length === 1);
    expect(surf.decisions).toEqual(["/questions/qa/decline"]);
    expect(reviewer.records).toEqual([]);

    surf.show([question("qb", CANARY_B)]);
    await until(() => surf.decisions.length === 2);
    // Case B's script: no review step, no model downstream: the case's accepted result is the answer.
    expect(surf.decisions[1]).toBe("/questions/qb/answer");
    expect(reviewer.records.map((r) => r.question.id)).toEqual(["qb"]);
  });

  it("a question that shows no known canary is the scripted case's", async () => {
    const { surf, reviewer } = await afterTwoCases(true);
    surf.show([question("qx", "no canary here")]);
    await until(() => surf.decisions.length === 1);
    expect(surf.decisions).toEqual(["/questions/qx/approve"]);
    expect(reviewer.records.map((r) => r.question.id)).toEqual(["qx"]);
  });

  it("decides the questions open together side by side, not one round trip after another", async () => {
    const surf = await surface();
    surf.holdUntil = 3;
    const reviewer = new Reviewer(surf.url, true);
    reviewers.push(reviewer);
    reviewer.script(undefined, ACCEPT, undefined, CANARY_A);
    surf.show([question("q1", CANARY_A), question("q2", CANARY_A), question("q3", CANARY_A)]);
    await until(() => surf.decisions.length === 3);
    expect(surf.mostAtOnce).toBe(3);
    expect(reviewer.records.map((r) => r.question.id)).toEqual(["q1", "q2", "q3"]);
  });
});
