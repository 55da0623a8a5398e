/**
 * Differential test of the allocation-free pre-check (src/validator/fast.ts) against the era zod schemas it
 * mirrors: for legal values and random single perturbations of them (a key deleted or a value replaced by an
 * "interesting" one), in every era, `fast ok` ⇔ `zod success`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { era as eraArb, legalExchange } from "../../src/fuzz/arbitraries.ts";
import { requestParamsOk, resultOk } from "../../src/validator/fast.ts";
import { ERAS, SCHEMAS } from "../../src/validator/index.ts";

const INTERESTING: unknown[] = [
  undefined,
  null,
  0,
  -1,
  0.5,
  1.5,
  2,
  1e21,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  "",
  "x",
  "AA==",
  "AAA",
  "user",
  "assistant",
  "none",
  "thisServer",
  "object",
  "toolUse",
  true,
  [],
  {},
  ["x"],
  [1],
  { type: "text", text: "t" },
  [{ type: "text", text: "t" }],
  { type: "image", data: "AA==", mimeType: "image/png" },
  { type: "audio", data: "AA==", mimeType: "audio/wav" },
  { type: "tool_use", id: "a", name: "n", input: {} },
  { type: "tool_result", toolUseId: "a", content: [] },
  [{ type: "tool_result", toolUseId: "a", content: [{ type: "resource_link", uri: "u", name: "n" }] }],
  { type: "resource", resource: { uri: "u", blob: "AA==" } },
  { type: "resource_link", uri: "u", name: "n" },
  { type: "object" },
  { name: "t", inputSchema: { type: "object" } },
  { mode: "auto" },
  { progressToken: 1.5 },
];

/** Keys an added field may take (declared somewhere in the schemas, so the addition can matter). */
const KEYS = [
  "type",
  "role",
  "content",
  "data",
  "id",
  "_meta",
  "mode",
  "structuredContent",
  "isError",
  "mimeType",
  "annotations",
  "input",
  "text",
  "name",
  "uri",
  "priority",
  "audience",
  "toolUseId",
  "hints",
  "model",
  "stopReason",
  "blob",
  "resource",
  "task",
  "tools",
  "toolChoice",
  "lastModified",
  "inputSchema",
  "outputSchema",
  "size",
  "title",
  "description",
  "ttl",
  "progressToken",
  "properties",
  "required",
  "costPriority",
  "metadata",
  "systemPrompt",
];

type Path = (string | number)[];

function paths(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) paths(v, [...prefix, i], out);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  }
  return out;
}

/** Applies one perturbation at a random path: delete the key / replace the value / add an interesting key. */
function perturb(value: unknown, pick: number, replacement: unknown, mode: number): unknown {
  const all = paths(value);
  const path = all[pick % all.length]!;
  if (path.length === 0) return mode === 0 ? replacement : value;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent: any = copy;
  for (const p of path.slice(0, -1)) parent = parent[p];
  const last = path[path.length - 1]!;
  if (mode === 1 && !Array.isArray(parent)) delete parent[last];
  else if (
    mode === 2 &&
    typeof parent[last] === "object" &&
    parent[last] !== null &&
    !Array.isArray(parent[last])
  ) {
    parent[last] = { ...parent[last], [KEYS[pick % KEYS.length]!]: replacement };
  } else parent[last] = replacement;
  return copy;
}

const perturbed = (pick: "params" | "result") =>
  fc
    .tuple(eraArb, fc.nat(), fc.constantFrom(...INTERESTING), fc.nat({ max: 2 }))
    .chain(([era, n, replacement, mode]) =>
      legalExchange(era, { maxRounds: 2 }).map((ex) =>
        perturb(pick === "params" ? ex.params : ex.result, n, replacement, mode),
      ),
    );

// ---- near-valid values: (almost) every declared field present and valid, then one perturbation ----

const ABSENT = Symbol("absent");
/** A declared field: mostly present and valid (single perturbations are applied afterwards). */
const field = (valid: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 8, arbitrary: valid }, { weight: 1, arbitrary: fc.constant(ABSENT) });
const rec = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .record(Object.fromEntries(Object.entries(fields).map(([k, a]) => [k, field(a)])))
    .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== ABSENT)));
const str = fc.constantFrom("a", "b64", "x y");
const b64 = fc.constantFrom("", "AA==", "AAAA", "AAA=");
const obj = fc.constantFrom({}, { k: 1 });
const unit = fc.constantFrom(0, 0.25, 1);
const annotations = rec({
  audience: fc.constantFrom(["user"], ["assistant", "user"]),
  priority: unit,
  lastModified: str,
});
const media = fc.oneof(
  rec({ type: fc.constant("text"), text: str, annotations, _meta: obj }),
  rec({ type: fc.constantFrom("image", "audio"), data: b64, mimeType: str, annotations, _meta: obj }),
);
const contentBlock = fc.oneof(
  media,
  rec({
    type: fc.constant("resource_link"),
    uri: str,
    name: str,
    title: str,
    description: str,
    mimeType: str,
    size: fc.constantFrom(0, 12),
    annotations,
    _meta: obj,
  }),
  rec({
    type: fc.constant("resource"),
    resource: rec({ uri: str, mimeType: str, text: str, blob: b64, _meta: obj }),
    annotations,
    _meta: obj,
  }),
);
const samplingBlock = fc.oneof(
  media,
  rec({ type: fc.constant("tool_use"), id: str, name: str, input: obj, _meta: obj }),
  rec({
    type: fc.constant("tool_result"),
    toolUseId: str,
    content: fc.array(contentBlock, { maxLength: 2 }),
    structuredContent: fc.constantFrom({}, { t: 1 }),
    isError: fc.boolean(),
    _meta: obj,
  }),
);
const content = fc.oneof(samplingBlock, fc.array(samplingBlock, { maxLength: 2 }));
const nearParams = rec({
  messages: fc.array(rec({ role: fc.constantFrom("user", "assistant"), content, _meta: obj }), {
    maxLength: 2,
  }),
  maxTokens: fc.constantFrom(1, 100, 2 ** 60),
  modelPreferences: rec({
    hints: fc.array(rec({ name: str }), { maxLength: 2 }),
    costPriority: unit,
    speedPriority: unit,
    intelligencePriority: unit,
  }),
  systemPrompt: str,
  includeContext: fc.constantFrom("none", "thisServer", "allServers"),
  temperature: fc.constantFrom(0, 0.7, -3),
  stopSequences: fc.constantFrom([], ["a"]),
  metadata: obj,
  _meta: rec({ progressToken: fc.constantFrom("t", 3) }),
  task: rec({ ttl: fc.constantFrom(0, 1000) }),
  tools: fc.array(
    rec({
      name: str,
      title: str,
      description: str,
      inputSchema: rec({
        type: fc.constant("object"),
        properties: obj,
        required: fc.constantFrom([], ["a"]),
      }),
      outputSchema: rec({ type: fc.constant("object") }),
      annotations: obj,
      _meta: obj,
    }),
    { maxLength: 2 },
  ),
  toolChoice: rec({ mode: fc.constantFrom("auto", "required", "none") }),
});
const nearResult = rec({
  role: fc.constantFrom("user", "assistant"),
  content,
  model: str,
  stopReason: fc.constantFrom("endTurn", "toolUse", "custom"),
  _meta: obj,
});

describe("fast pre-check ⇔ zod schemas", () => {
  it("agree on near-valid params with one field deleted or replaced", () => {
    fc.assert(
      fc.property(
        nearParams,
        fc.nat(),
        fc.constantFrom(...INTERESTING),
        fc.nat({ max: 2 }),
        (base, n, r, mode) => {
          const value = perturb(base, n, r, mode);
          for (const era of ERAS) {
            const s = SCHEMAS[era];
            expect(requestParamsOk(value, s.features), era).toBe(
              s.createMessageRequestParams.safeParse(value).success,
            );
          }
        },
      ),
      { numRuns: 1500, seed: 10 },
    );
  });
  it("agree on near-valid results with one field deleted or replaced", () => {
    fc.assert(
      fc.property(
        nearResult,
        fc.nat(),
        fc.constantFrom(...INTERESTING),
        fc.nat({ max: 2 }),
        (base, n, r, mode) => {
          const value = perturb(base, n, r, mode);
          for (const era of ERAS) {
            const s = SCHEMAS[era];
            expect(resultOk(value, s.features), era).toBe(s.createMessageResult.safeParse(value).success);
          }
        },
      ),
      { numRuns: 1500, seed: 11 },
    );
  });
  it("agree on legal values of every era, judged in every era", () => {
    fc.assert(
      fc.property(
        eraArb.chain((e) => legalExchange(e, { maxRounds: 2 })),
        (ex) => {
          for (const era of ERAS) {
            const s = SCHEMAS[era];
            expect(requestParamsOk(ex.params, s.features), era).toBe(
              s.createMessageRequestParams.safeParse(ex.params).success,
            );
            expect(resultOk(ex.result, s.features), era).toBe(
              s.createMessageResult.safeParse(ex.result).success,
            );
          }
        },
      ),
      { numRuns: 150, seed: 7 },
    );
  });
  it("agree on perturbed request params", () => {
    fc.assert(
      fc.property(perturbed("params"), (value) => {
        for (const era of ERAS) {
          const s = SCHEMAS[era];
          expect(requestParamsOk(value, s.features), era).toBe(
            s.createMessageRequestParams.safeParse(value).success,
          );
        }
      }),
      { numRuns: 300, seed: 8 },
    );
  });
  it("agree on perturbed results", () => {
    fc.assert(
      fc.property(perturbed("result"), (value) => {
        for (const era of ERAS) {
          const s = SCHEMAS[era];
          expect(resultOk(value, s.features), era).toBe(s.createMessageResult.safeParse(value).success);
        }
      }),
      { numRuns: 300, seed: 9 },
    );
  });
});
