import { z } from "zod";
import { EraSchema } from "./register.ts";

const TransportSchema = z.enum(["stdio", "streamable-http", "sse"]);

export const TargetProfileSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "a name usable as a folder name"),
    description: z.string().optional(),
    /** argv; items may hold {{upstream.command}}, {{upstream.url}}, {{port}}, {{tmp}}. */
    command: z.array(z.string()).min(1),
    downstream: z
      .object({ transport: TransportSchema, url: z.string().optional() })
      .strict()
      .refine((d) => d.transport === "stdio" || d.url !== undefined, {
        message: "a url is required for streamable-http and sse",
        path: ["url"],
      }),
    upstream: z.object({ transport: TransportSchema }).strict(),
    /**
     * Who answers: `client`, the harness MCP client downstream; `review`, a person at the relay's review surface
     * (`url`, e.g. http://127.0.0.1:{{port}}/v1), played by the harness, with the MCP client downstream as model.
     */
    answerer: z
      .discriminatedUnion("kind", [
        z.object({ kind: z.literal("client") }).strict(),
        z.object({ kind: z.literal("review"), url: z.string().min(1) }).strict(),
      ])
      .default({ kind: "client" }),
    eras: z.array(EraSchema).min(1).optional(),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    startupTimeoutMs: z.number().int().positive().default(15_000),
    /** How long the relay waits for an answer before it reports expiry (the harness waits a bit longer). */
    answerTimeoutMs: z.number().int().positive().default(2_000),
    /** Upper bound for one case once the relay is up. */
    caseTimeoutMs: z.number().int().positive().default(10_000),
  })
  .strict();
export type TargetProfile = z.infer<typeof TargetProfileSchema>;
