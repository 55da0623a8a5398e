import type { CaseRun } from "../model/case-run.ts";
import { type Era, featuresOf } from "../protocol/eras.ts";
import { hasPointer } from "./json-diff.ts";

/**
 * When the answerer is the relay's broker (answerer.kind: broker), the question goes to the broker, not to the
 * downstream MCP client: what the downstream declared does not bound what the upstream may send or who is asked.
 * What does is what the relay declared upstream for its broker. A case whose rule is about what the answering side
 * declared (sampling.tools, sampling.context: the answerer's capabilities in the case) is judged against that
 * declaration when the two agree on what the request uses, and is `n/a` with the reason when they do not: a broker
 * declared as taking tools may be asked a tool-enabled request a tools-less client must never see, and a broker
 * declared without tools must not be sent one (refusing it is sampling-client-error-on-tools-without-capability's
 * rule), so a case expecting delivery to a client that declared tools does not apply.
 */

type Facet = "tools" | "context";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The sampling sub-capabilities a request exercises in its era (only from 2025-11-25, which defines them). */
function facetsUsed(sent: unknown, era: Era): Facet[] {
  if (!featuresOf(era).tools || !isObject(sent)) return [];
  const used: Facet[] = [];
  if (sent.tools !== undefined || sent.toolChoice !== undefined) used.push("tools");
  if (sent.includeContext === "thisServer" || sent.includeContext === "allServers") used.push("context");
  return used;
}

function declares(capabilities: unknown, facet: Facet): boolean {
  const sampling = isObject(capabilities) ? capabilities.sampling : undefined;
  return isObject(sampling) && sampling[facet] !== undefined && sampling[facet] !== null;
}

const WHAT: Record<Facet, string> = {
  tools: "tool-enabled request (tools, toolChoice)",
  context: "request with includeContext other than none",
};

/** What follows when the relay did not declare the facet the request uses. */
const UNDECLARED: Record<Facet, string> = {
  tools:
    "this tool-enabled request is not the upstream's to send (refusing it is sampling-client-error-on-tools-without-capability's rule)",
  context: "the upstream should not ask for included context (the relay may ignore includeContext)",
};

/**
 * Why a case does not apply to a broker-answered target, judged by what the relay declared upstream (the handshake
 * the upstream saw), if it does not; undefined when the case's premise holds for the broker (it is then judged) or
 * the relay declared nothing the harness saw.
 */
export function brokerPremise(
  run: Pick<CaseRun, "era" | "capabilities" | "observation">,
): string | undefined {
  const declared = run.observation.declared;
  if (!isObject(declared)) return undefined;
  for (const facet of facetsUsed(run.observation.sent, run.era)) {
    const relay = declares(declared, facet);
    if (relay === declares(run.capabilities, facet)) continue;
    const cap = `sampling.${facet}`;
    return relay
      ? `n/a: the answerer is the relay's broker, and the relay declared ${cap} upstream for it, so the upstream may send this ${WHAT[facet]} and the broker may be asked it; the case is about an answerer that did not declare ${cap} (what the downstream client declared does not bound what the broker is asked)`
      : `n/a: the answerer is the relay's broker, and the relay declared no ${cap} upstream for it, so ${UNDECLARED[facet]}; the case is about an answerer that declared ${cap}`;
  }
  return undefined;
}

/**
 * A case that needs the relay to have declared a capability upstream (`requiresDeclared`, e.g. /sampling/tools for a
 * tool-enabled request) does not apply to a relay that declared it not: the upstream may not send it such a request
 * (2025-11-25 sampling: "Servers MUST NOT send tool-enabled sampling requests to Clients that have not declared
 * support for tool use"), so what the relay does with one says nothing about the case's rule. Undefined when the
 * premise holds or the harness saw no declaration.
 */
export function declaredPremise(run: Pick<CaseRun, "kase" | "observation">): string | undefined {
  const declared = run.observation.declared;
  if (!isObject(declared)) return undefined;
  const missing = (run.kase.requiresDeclared ?? []).filter((p) => !hasPointer(declared, p));
  if (missing.length === 0) return undefined;
  return `n/a: the relay declared no ${missing.join(", ")} to the upstream (capabilities ${JSON.stringify(declared)}), so this request is not one the upstream may send it, and what the relay does with it says nothing about this case's rule`;
}
