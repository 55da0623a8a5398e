import { MRTR_ERA } from "../protocol/eras.ts";
import { CODE, isObject, METHOD } from "../protocol/wire.ts";
import { escapeToken, validateInputRequests } from "../validator/index.ts";
import type { Finding, SamplingCapabilities, Verdict } from "../validator/types.ts";
import type { RelayPolicy, WireError } from "./policy.ts";

/** 2026-07-28 input requests and responses as the relay checks them (both its 2026-07-28 paths and its bridges). */

export function withPrefix(verdict: Verdict, prefix: string): Verdict {
  const shift = (f: Finding): Finding => ({ ...f, pointer: prefix + f.pointer });
  return { ...verdict, errors: verdict.errors.map(shift), warnings: verdict.warnings.map(shift) };
}

export function merged(verdicts: Verdict[]): Verdict {
  const errors = verdicts.flatMap((v) => v.errors);
  const warnings = verdicts.flatMap((v) => v.warnings);
  const first = verdicts.find((v) => !v.legal);
  return { legal: errors.length === 0, errors, warnings, code: first ? first.code : null };
}

/** Only the findings about the input wrapper itself (its shape, methods, keys): each message is the policy's. */
export function wrapperOnly(verdict: Verdict): Verdict {
  const errors = verdict.errors.filter((f) => f.rule.startsWith("input."));
  return { legal: errors.length === 0, errors, warnings: [], code: errors[0]?.code ?? null };
}

/**
 * An upstream's 2026-07-28 inputRequests, checked before any question is passed down (the wrapper's shape, sampling
 * declared on the call, each sampling request by the policy); returns the refusal for the caller, if any.
 */
export function checkInputRequests(
  policy: RelayPolicy,
  inputRequests: unknown,
  capabilities: SamplingCapabilities | undefined,
): WireError | null {
  const ctx = { era: MRTR_ERA as typeof MRTR_ERA, capabilities: capabilities ?? {} };
  const wrapper = wrapperOnly(validateInputRequests(inputRequests, ctx));
  if (!wrapper.legal) return policy.refuseRequest(wrapper);
  const entries = Object.entries(inputRequests as Record<string, any>).filter(
    ([, r]) => isObject(r) && r.method === METHOD.createMessage,
  );
  if (entries.length === 0) return null;
  const sampling = isObject(capabilities?.sampling) ? capabilities.sampling : undefined;
  if (!sampling) {
    return {
      code: CODE.missingCapability,
      message:
        "Missing required client capability: the server asks for sampling, which this request's clientCapabilities do not declare",
      data: { requiredCapabilities: { sampling: {} } },
    };
  }
  const verdicts: Verdict[] = [];
  for (const [key, request] of entries) {
    const v = policy.checkRequest(request.params, ctx);
    if (v) verdicts.push(withPrefix(v, `/${escapeToken(key)}/params`));
  }
  const verdict = merged(verdicts);
  if (verdict.legal) return null;
  if (verdict.errors.every((f) => f.rule === "request.tools-capability")) {
    return {
      code: CODE.missingCapability,
      message: `Missing required client capability: ${verdict.errors[0]!.message} (at ${verdict.errors[0]!.pointer})`,
      data: { requiredCapabilities: { sampling: { tools: {} } } },
    };
  }
  return policy.refuseRequest(verdict);
}
