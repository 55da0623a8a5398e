/** Replaces every `{{canary}}` in the strings of a JSON value (keys included) with the token. */
export function withCanary<T>(value: T, canary: string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return v.replaceAll("{{canary}}", canary);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => [k.replaceAll("{{canary}}", canary), walk(x)]),
      );
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * A canary token unique to one case × era run: traceable in any frame at either end. Mixed case and non-ASCII on
 * purpose: a relay that lower-cases, normalises or re-encodes text shows up as a fidelity difference.
 */
export function canaryFor(caseId: string, era: string, seed: number, n: number): string {
  return `Cnry-${caseId}-${era.replaceAll("-", "")}-${seed.toString(36)}${n.toString(36)}-ÄΩ`;
}
