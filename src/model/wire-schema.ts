import { ERAS, type Era, isEra, isModernEra, MRTR_ERA } from "../protocol/eras.ts";
import {
  checkFrame,
  type FrameContext,
  type SchemaFinding,
  schemaProvenance,
} from "../protocol/mcp-schema.ts";
import { METHOD } from "../protocol/wire.ts";
import type { Evidence, Frame } from "./evidence.ts";

/**
 * Frames of a transcript in the terms of the official MCP schema (src/protocol/mcp-schema.ts): who sent each frame,
 * in which revision, and, for a response, the method of the request it answers. Shared by the run (the relay's frames,
 * recorded in the evidence as `officialSchema`) and the harness's self-conformance test (the harness's own frames).
 */

/** The revision each end of the relay speaks: the upstream's is the case's era, the answerer's may differ (bridging). */
export interface EndEras {
  upstream: Era;
  downstream: Era;
}

type Message = Record<string, unknown>;

const messageOf = (frame: Pick<Frame, "message">): Message | undefined =>
  frame.message !== null && typeof frame.message === "object" && !Array.isArray(frame.message)
    ? (frame.message as Message)
    : undefined;

const NEWEST_LEGACY = ERAS.filter((e) => !isModernEra(e)).at(-1)!;

/**
 * A version probe speaks the revision it asks about, not the one its end speaks: `initialize` sent to a 2026-07-28
 * server (a client finding out whether it speaks a legacy revision) in the revision it names, `server/discover` sent to
 * a legacy server in 2026-07-28.
 */
function probeEra(era: Era, m: Message): Era {
  if (m.method === METHOD.initialize && isModernEra(era)) {
    const asked =
      m.params !== null && typeof m.params === "object" ? (m.params as Message).protocolVersion : undefined;
    return isEra(asked) && !isModernEra(asked) ? asked : NEWEST_LEGACY;
  }
  return m.method === METHOD.discover && !isModernEra(era) ? MRTR_ERA : era;
}

/** The schema context of each frame (by index), or undefined for a frame the schema does not judge. */
export function frameContexts(frames: ReadonlyArray<Omit<Frame, "t">>, eras: EndEras) {
  // Requests seen so far, by end, direction, connection and id: a response answers the latest one with its id.
  const requests = new Map<string, string>();
  const keyOf = (f: Omit<Frame, "t">, dir: Frame["dir"], id: unknown) =>
    `${f.end} ${dir} ${f.session ?? ""} ${JSON.stringify(id)}`;
  return frames.map((frame): FrameContext | undefined => {
    // The review surface and the control channel are not MCP; an unparsed frame (not JSON, or cut) is judged elsewhere.
    if ((frame.end !== "upstream" && frame.end !== "downstream") || frame.message === undefined)
      return undefined;
    // The harness is the server at the upstream end and the client at the downstream end; the relay the other.
    const harness = frame.end === "upstream" ? "server" : "client";
    const relay = harness === "server" ? "client" : "server";
    const from = frame.dir === "to-relay" ? harness : relay;
    const era = eras[frame.end];
    const m = messageOf(frame);
    if (m && typeof m.method === "string") {
      if ("id" in m) requests.set(keyOf(frame, frame.dir, m.id), m.method);
      return { era: "id" in m ? probeEra(era, m) : era, from };
    }
    const other = frame.dir === "to-relay" ? "from-relay" : "to-relay";
    const answers = m && "id" in m ? requests.get(keyOf(frame, other, m.id)) : undefined;
    return answers === undefined ? { era, from } : { era, from, answers };
  });
}

/** A finding of the official schema on one frame of a transcript. */
export interface FrameSchemaFinding extends SchemaFinding {
  /** Index of the frame in the transcript's `frames`. */
  frame: number;
  end: Frame["end"];
  era: Era;
}

/** The official schema on every frame sent in one direction (`from-relay`: what the relay sent to either end). */
export function schemaFindings(
  frames: ReadonlyArray<Omit<Frame, "t">>,
  eras: EndEras,
  dir: Frame["dir"],
): { checked: number; findings: FrameSchemaFinding[] } {
  const contexts = frameContexts(frames, eras);
  const findings: FrameSchemaFinding[] = [];
  let checked = 0;
  frames.forEach((frame, i) => {
    const context = contexts[i];
    if (!context || frame.dir !== dir) return;
    checked++;
    for (const f of checkFrame(frame.message, context))
      findings.push({ frame: i, end: frame.end, era: context.era, ...f });
  });
  return { checked, findings };
}

/** The evidence's `officialSchema`: the official schema on every frame the relay sent (none checked: left out). */
export function officialSchemaOf(
  frames: ReadonlyArray<Omit<Frame, "t">>,
  eras: EndEras,
): Evidence["officialSchema"] {
  const { checked, findings } = schemaFindings(frames, eras, "from-relay");
  return checked === 0 ? undefined : { commit: schemaProvenance().commit, checked, findings };
}
