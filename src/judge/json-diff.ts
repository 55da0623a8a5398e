/** Deep JSON equality that reports where two values first differ (key order does not matter). */
export function firstDifference(a: unknown, b: unknown, pointer = ""): string | null {
  if (a === b) return null;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") {
    return pointer || "/";
  }
  if (Array.isArray(a) !== Array.isArray(b)) return pointer || "/";
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return pointer || "/";
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${pointer}/${i}`);
      if (d) return d;
    }
    return null;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const key of keys) {
    const escaped = key.replaceAll("~", "~0").replaceAll("/", "~1");
    if (!(key in ao) || !(key in bo)) return `${pointer}/${escaped}`;
    const d = firstDifference(ao[key], bo[key], `${pointer}/${escaped}`);
    if (d) return d;
  }
  return null;
}

/** Whether an RFC 6901 JSON pointer resolves to a present value (null counts as present). */
export function hasPointer(value: unknown, pointer: string): boolean {
  if (pointer === "") return value !== undefined;
  let current: unknown = value;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (current === null || typeof current !== "object") return false;
    if (Array.isArray(current)) {
      const index = Number(key);
      if (!Number.isInteger(index) || index < 0 || index >= current.length) return false;
      current = current[index];
    } else {
      if (!Object.hasOwn(current, key)) return false;
      current = (current as Record<string, unknown>)[key];
    }
  }
  return true;
}

/** The value an RFC 6901 JSON pointer resolves to, or undefined. */
export function valueAt(value: unknown, pointer: string): unknown {
  if (pointer === "" || pointer === "/") return value;
  let current: unknown = value;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (current === null || typeof current !== "object") return undefined;
    current = Array.isArray(current) ? current[Number(key)] : (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A copy of `value` without the members the pointers name (object members only; the rest is shared, not copied). */
export function withoutPointers(value: unknown, pointers: readonly string[]): unknown {
  let out = value;
  for (const pointer of pointers) out = without(out, pointer.slice(1).split("/"));
  return out;
}

function without(value: unknown, keys: string[]): unknown {
  const [raw, ...rest] = keys;
  if (raw === undefined || value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
  if (!Object.hasOwn(value, key)) return value;
  const copy = { ...(value as Record<string, unknown>) };
  if (rest.length === 0) delete copy[key];
  else copy[key] = without(copy[key], rest);
  return copy;
}
