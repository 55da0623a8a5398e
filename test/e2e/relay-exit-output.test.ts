import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { RelayProcess } from "../../src/harness/relay-process.ts";
import { TargetProfileSchema } from "../../src/model/target.ts";

/**
 * A relay that answers and exits at once (rmcp's serve() writes an initialize refusal and returns it; the relay's
 * main returns) can reach the harness as an exit before its last line is read. The start-up step races the relay's
 * exit (whenExited), so the exit must wait for the relay's stdout to be read to its end, else the refusal that
 * should settle the step (the cases that need that kind of client n/a) becomes "exited during start-up" (`error`).
 * The relay here exits first and its line arrives 100 ms later, from a child that shares its stdout: the line must
 * be read before the exit is reported.
 */
describe("a relay's exit is reported after its stdout is read", () => {
  it("reads the line written just after the exit before rejecting", async () => {
    const profile = TargetProfileSchema.parse({
      name: "answers-then-exits",
      command: ["sh", "-c", "(sleep 0.1; echo late-answer) & exit 0"],
      downstream: { transport: "stdio" },
      upstream: { transport: "stdio" },
    });
    const relay = new RelayProcess(profile, undefined, { port: "0", tmp: "/tmp" });
    const seen: string[] = [];
    createInterface({ input: relay.child.stdout }).on("line", (line) => seen.push(`line ${line}`));
    try {
      await relay.whenExited("during start-up").catch((error: Error) => seen.push(error.message));
      expect(seen).toEqual(["line late-answer", "the relay exited with code 0 during start-up"]);
    } finally {
      await relay.stop();
    }
  });

  it("reports the exit after a bounded wait when a child keeps the relay's stdout open", async () => {
    const profile = TargetProfileSchema.parse({
      name: "exits-child-holds-stdout",
      command: ["sh", "-c", "(sleep 3) & exit 0"],
      downstream: { transport: "stdio" },
      upstream: { transport: "stdio" },
    });
    const relay = new RelayProcess(profile, undefined, { port: "0", tmp: "/tmp" });
    const started = performance.now();
    try {
      await expect(relay.whenExited("during start-up")).rejects.toThrow("exited with code 0");
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      await relay.stop();
    }
  });
});
