import { sessionGroup } from "../harness/case-instance.ts";
import { HOLD_INITIALIZED_MS } from "../harness/waits.ts";
import { caseSide } from "../judge/cells.ts";
import { caseKey, ROUNDTRIP_ROW } from "../model/case-key.ts";
import { InputError } from "../model/errors.ts";
import type { Register } from "../model/register.ts";
import type { TargetProfile } from "../model/target.ts";
import { type Era, isModernEra } from "../protocol/eras.ts";
import type { RunPlan, WorkItem } from "./plan.ts";

/** `run --shard i/n`: this run is slice `index` (1-based) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** Parses `i/n` (1 ≤ i ≤ n); anything else is an InputError naming the flag (exit 2). */
export function parseShard(spec: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(spec);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count)
    throw new InputError(`expected i/n with 1 ≤ i ≤ n (e.g. 2/4), got '${spec}'`, undefined, "--shard");
  return { index, count };
}

/**
 * Expected cost of a case that waits for nothing in particular (one exchange through a running relay). The figures
 * only need to be right relative to each other: they balance the shards, they never bound a run.
 */
const EXCHANGE_MS = 40;
/** A 2026-07-28 case that ends without a delivered result waits the harness's settle time before it is judged. */
const MODERN_SETTLE_MS = 500;
/** A two-session (isolation) case starts a relay of its own. */
const OWN_RELAY_MS = 800;

/**
 * The wait a case cannot avoid against this profile: the deadline or delay its script makes the run sit out (the
 * answerer never answers, answers late, or a 2026-07-28 answer is withheld until the relay's deadline).
 */
export function unavoidableWaitMs(item: WorkItem, profile: Pick<TargetProfile, "answerTimeoutMs">): number {
  const { kase, era } = item;
  const answer = kase.answer;
  let wait = 0;
  if (answer.action === "expire") wait = profile.answerTimeoutMs;
  else if (answer.action === "accept" && answer.delayMs !== undefined) wait = answer.delayMs;
  else if (answer.action === "accept" && answer.delayOfAnswerTimeout !== undefined)
    wait = answer.delayOfAnswerTimeout * profile.answerTimeoutMs;
  if (isModernEra(era) && outcomesIn(item).some((e) => e.outcome === "withheld"))
    wait = Math.max(wait, profile.answerTimeoutMs);
  // A 2026-07-28 answerer declines by silence: a legacy upstream behind it hears only at the relay's deadline.
  if (
    !isModernEra(era) &&
    kase.downstreamEra &&
    isModernEra(kase.downstreamEra) &&
    answer.action !== "accept"
  )
    wait = Math.max(wait, profile.answerTimeoutMs);
  // The answerer holds notifications/initialized back: a relay that waits for it (as it should) asks no sooner.
  if (kase.holdInitialized) wait = Math.max(wait, HOLD_INITIALIZED_MS);
  return wait;
}

/**
 * Where the cases that wait on purpose run. A legacy case that waits holds its relay session for the whole wait (legacy
 * sessions run one case at a time), so it leaves its group's session: its waits then overlap the group's other cases
 * instead of holding them up. The waiting cases of one group share sessions apart, chained longest first; a chain is
 * expected to end before the run does: it takes no longer than the run's lanes need for the whole plan, nor than its
 * group's other cases or its own longest wait where either is more. A run thus starts a relay per chain, not per
 * waiting case: a relay start costs CPU the lanes need, a wait costs none. (A 2026-07-28 case hands its session on
 * while it settles, so it needs none.)
 *
 * Returns, for a case of `work`, the chain it runs on (cases with the same key share a relay session apart from their
 * group's), or undefined where it stays with its group.
 */
export function waitChains(
  work: WorkItem[],
  profile: Pick<TargetProfile, "answerTimeoutMs"> & Partial<Pick<TargetProfile, "caseTimeoutMs">>,
  lanes: number,
): (item: WorkItem) => string | undefined {
  let total = 0;
  const groups = new Map<string, { rest: number; waiting: Array<{ key: string; cost: number }> }>();
  const chainOf = new Map<string, string>();
  let alone = 0;
  for (const item of work) {
    const cost = expectedCostMs(item, profile);
    // A wait longer than the profile's case timeout is the relay's own long deadline (an SDK's 60 s): such a wait
    // holds no lane, and chained, two of them would make the run twice as long as either. Each gets a session alone.
    if (
      item.kase.sessions !== 2 &&
      !isModernEra(item.era) &&
      profile.caseTimeoutMs !== undefined &&
      unavoidableWaitMs(item, profile) > profile.caseTimeoutMs
    ) {
      chainOf.set(itemKey(item), `waits alone ${alone++}`);
      continue;
    }
    total += cost;
    if (item.kase.sessions === 2) continue;
    const key = sessionGroup(item);
    const group = groups.get(key) ?? { rest: 0, waiting: [] };
    groups.set(key, group);
    if (isModernEra(item.era) || unavoidableWaitMs(item, profile) === 0) group.rest += cost;
    else group.waiting.push({ key: itemKey(item), cost });
  }
  for (const { rest, waiting } of groups.values()) {
    waiting.sort((a, b) => b.cost - a.cost || cmp(a.key, b.key));
    const cap = Math.max(total / Math.max(1, lanes), rest, waiting[0]?.cost ?? 0);
    // First fit, longest first: each case joins the first chain it fits in, else starts one.
    const chains: number[] = [];
    for (const { key, cost } of waiting) {
      let chain = chains.findIndex((sum) => sum + cost <= cap);
      if (chain < 0) chain = chains.push(0) - 1;
      chains[chain] = (chains[chain] ?? 0) + cost;
      chainOf.set(key, `waits ${chain}`);
    }
  }
  return (item) => chainOf.get(itemKey(item));
}

const outcomesIn = ({ kase, era }: WorkItem) => kase.expect.filter((e) => !e.eras || e.eras.includes(era));

/**
 * How long a work item is expected to take against this profile: its unavoidable wait, the settle time of a
 * 2026-07-28 case that delivers nothing, one exchange, and a relay of its own for a two-session case.
 */
export function expectedCostMs(item: WorkItem, profile: Pick<TargetProfile, "answerTimeoutMs">): number {
  const { kase, era } = item;
  let wait = unavoidableWaitMs(item, profile);
  if (isModernEra(era) && !outcomesIn(item).some((e) => e.outcome === "delivered"))
    wait = Math.max(wait, MODERN_SETTLE_MS);
  return EXCHANGE_MS + wait + (kase.sessions === 2 ? OWN_RELAY_MS : 0);
}

const itemKey = (w: WorkItem) => caseKey(w.kase, w.era);

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byRowIdEra = (a: WorkItem, b: WorkItem) =>
  cmp(a.kase.row, b.kase.row) || cmp(a.kase.id, b.kase.id) || cmp(a.era, b.era);

/**
 * Assigns every work item to a shard (0-based), balanced by expected duration: longest first onto the least loaded
 * shard (ties: the lower shard), items of equal cost in row/id/era order, so every shard computes the same split.
 */
export function assignShards(
  work: WorkItem[],
  count: number,
  profile: Pick<TargetProfile, "answerTimeoutMs">,
) {
  const costed = work.map((w) => ({ w, cost: expectedCostMs(w, profile) }));
  costed.sort((a, b) => b.cost - a.cost || byRowIdEra(a.w, b.w));
  const load = new Array<number>(count).fill(0);
  const owner = new Map<string, number>();
  for (const { w, cost } of costed) {
    let best = 0;
    for (let s = 1; s < count; s++) if (load[s]! < load[best]!) best = s;
    load[best]! += cost;
    owner.set(itemKey(w), best);
  }
  return { owner, load };
}

/** One shard's share of a plan. */
export interface ShardPlan extends RunPlan {
  /**
   * Round-trip cases this shard runs only because its other cases of that era need them (the judge withholds credit
   * from an era whose round trip did not run here): judged, never reported, since another shard reports them.
   */
  prerequisiteOnly: Set<string>;
}

/** The key by which a run's case is matched against `prerequisiteOnly`. */

/**
 * The slice of `plan` that shard `index` of `count` runs: its balanced share of the work, plus each era's round trip
 * wherever it has work in that era (reported only by the shard it was assigned to), and the cases this target cannot
 * run (recorded by shard 1 alone). Work keeps the plan's order.
 */
export function shardPlan(
  plan: RunPlan,
  shard: Shard,
  profile: Pick<TargetProfile, "answerTimeoutMs">,
): ShardPlan {
  const mine = shard.index - 1;
  const { owner } = assignShards(plan.work, shard.count, profile);
  const isMine = (w: WorkItem) => owner.get(itemKey(w)) === mine;
  const erasWithWork = new Set<Era>(
    plan.work.filter((w) => w.kase.row !== ROUNDTRIP_ROW && isMine(w)).map((w) => w.era),
  );
  const prerequisiteOnly = new Set<string>();
  const work = plan.work.filter((w) => {
    if (isMine(w)) return true;
    if (w.kase.row !== ROUNDTRIP_ROW || !erasWithWork.has(w.era)) return false;
    prerequisiteOnly.add(itemKey(w));
    return true;
  });
  return { work, unrun: shard.index === 1 ? plan.unrun : [], prerequisiteOnly };
}

/** The eras whose differential fuzzing this shard runs: each era in exactly one shard, round robin. */
export function shardFuzzEras<T>(eras: T[], shard: Shard | undefined): T[] {
  return shard ? eras.filter((_, i) => i % shard.count === shard.index - 1) : eras;
}

/**
 * The cells (`row era side`) the whole plan has cases for. A cell of a shard's own results with no case here had its
 * cases run in another shard: its note says so, instead of "no case in the corpus exercises this cell" (merge rebuilds
 * every cell from all shards).
 */
export function plannedCells(register: Register, plan: RunPlan): Set<string> {
  const rows = new Map(register.rows.map((r) => [r.id, r]));
  const keys = new Set<string>();
  for (const w of plan.work) {
    const row = rows.get(w.kase.row);
    if (row) keys.add(`${w.kase.row} ${w.era} ${caseSide(row, w.kase.side)}`);
  }
  for (const u of plan.unrun) keys.add(`${u.row} ${u.era} ${u.side}`);
  return keys;
}
