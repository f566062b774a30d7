/**
 * Session reducer throughput and memory over the v2-unstable corpus, one process run.
 *
 *   npx tsx --expose-gc bench/reducer.bench.ts [--rounds 15] [--warmup 3] [--seed N] [--size N] [--updates 1000000]
 *
 * The corpus (bench/corpus.ts) is a simulated transcript of many sessions.
 * Its `session/update` notifications are decoded once, outside timing
 * (JSON.parse, then `parse.SessionUpdate`; updates it rejects are left out),
 * and every contender folds the same list, in two workloads: one state per
 * session as in the corpus (short sessions of a few hundred updates), and the
 * whole corpus as one long session (thousands of entities per map):
 * - ours: the generated `reduceSession` (persistent maps, frozen values);
 * - naive: bench/naive-reducer.ts, hand-written with spread and copied Maps.
 * Before timing, the end states of both are asserted identical, session by
 * session (same entities in the same order, same JSON). Rounds interleave
 * the contenders (rotating their order); the table reports the median round
 * and the p10-p90 spread. Memory: each contender folds `--updates` updates
 * (the per-session list replayed, states reset every replay) while the heap
 * after GC is sampled every 10% of the way; flat means nothing accumulates
 * beyond the live states.
 */
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { emptySessionState, parse, reduceSession, type SessionState, type SessionUpdate } from "../generated/src/v2/unstable/index.js";
import { generateCorpus, numberArg } from "./corpus.js";
import { naiveEmpty, naiveReduce, type NaiveState } from "./naive-reducer.js";

/** One decoded update and the session it belongs to. */
interface Item {
  readonly sessionId: string;
  readonly update: SessionUpdate;
}

interface Contender<S> {
  readonly name: string;
  readonly empty: () => S;
  readonly reduce: (state: S, update: SessionUpdate) => S;
}

const ours: Contender<SessionState> = { name: "ours: reduceSession", empty: emptySessionState, reduce: reduceSession };
const naive: Contender<NaiveState> = { name: "naive: spread + Map copy", empty: naiveEmpty, reduce: naiveReduce as Contender<NaiveState>["reduce"] };

/** The corpus's session updates, parsed (outside timing). */
function loadItems(): { items: Item[]; skipped: number } {
  const items: Item[] = [];
  let skipped = 0;
  for (const line of generateCorpus({ seed: numberArg("seed"), size: numberArg("size") })) {
    const message = JSON.parse(line) as { method?: string; params?: { sessionId?: unknown; update?: unknown } };
    if (message.method !== "session/update" || typeof message.params?.sessionId !== "string") continue;
    const parsed = parse.SessionUpdate(message.params.update);
    if (parsed.ok) items.push({ sessionId: message.params.sessionId, update: parsed.value });
    else skipped++;
  }
  return { items, skipped };
}

/** Folds every item into its session's state. */
function fold<S>(contender: Contender<S>, items: readonly Item[]): Map<string, S> {
  const states = new Map<string, S>();
  for (const { sessionId, update } of items) states.set(sessionId, contender.reduce(states.get(sessionId) ?? contender.empty(), update));
  return states;
}

/** A state as JSON with keys sorted; maps as their entries in order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Map || (typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as Map<string, unknown>).entries === "function")) {
      return { entries: [...(v as Map<string, unknown>).entries()] };
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]));
  });
}

/** Throws unless both contenders end every session in the same state. */
function assertIdentical(items: readonly Item[]): number {
  const a = fold(ours, items);
  const b = fold(naive, items);
  if (a.size !== b.size) throw new Error(`session count differs: ${a.size} vs ${b.size}`);
  for (const [id, state] of a) {
    const x = canonical(state);
    const y = canonical(b.get(id));
    if (x !== y) {
      let i = 0;
      while (x[i] === y[i]) i++;
      throw new Error(`end states differ for session ${id} at ...${x.slice(Math.max(0, i - 120), i + 80)}\n vs ...${y.slice(Math.max(0, i - 120), i + 80)}`);
    }
  }
  return a.size;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Milliseconds per fold of the whole list, over `reps` folds. */
function sample<S>(contender: Contender<S>, items: readonly Item[], reps: number): number {
  gc();
  const start = performance.now();
  for (let r = 0; r < reps; r++) fold(contender, items);
  return (performance.now() - start) / reps;
}

function measure(items: readonly Item[], list: readonly Contender<any>[], rounds: number, warmup: number, minSampleMs = 200): number[][] {
  const times = list.map((): number[] => []);
  const reps = list.map(() => 1);
  for (let round = -warmup; round < rounds; round++) {
    for (let k = 0; k < list.length; k++) {
      const i = (k + Math.max(round, 0)) % list.length;
      const ms = sample(list[i]!, items, reps[i]!);
      if (round < 0) reps[i] = Math.max(1, Math.ceil(minSampleMs / ms));
      else times[i]!.push(ms);
    }
  }
  return times;
}

/** Heap used after GC (MB) at every tenth of `total` updates folded by `contender`. */
function memory<S>(contender: Contender<S>, items: readonly Item[], total: number): number[] {
  const samples: number[] = [];
  const step = Math.ceil(total / 10);
  let states = new Map<string, S>();
  for (let done = 0; done < total; done++) {
    const { sessionId, update } = items[done % items.length]!;
    if (done % items.length === 0) states = new Map();
    states.set(sessionId, contender.reduce(states.get(sessionId) ?? contender.empty(), update));
    if ((done + 1) % step === 0) {
      gc();
      samples.push(process.memoryUsage().heapUsed / 1e6);
    }
  }
  return samples;
}

function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

function main(): void {
  const rounds = numberArg("rounds") ?? 15;
  const warmup = numberArg("warmup") ?? 3;
  const total = numberArg("updates") ?? 1_000_000;
  const { items, skipped } = loadItems();
  const workloads = [
    { name: "per session", items },
    { name: "one long session", items: items.map(({ update }) => ({ sessionId: "one", update })) },
  ];
  const sessions = workloads.map((w) => assertIdentical(w.items));
  const hasGc = typeof (globalThis as { gc?: unknown }).gc === "function";
  console.log(
    `corpus: ${fmt(items.length)} session updates in ${sessions[0]} sessions (${skipped} malformed ones rejected by parse.SessionUpdate); ` +
      `end states identical in both workloads\n` +
      `node ${process.version}, ${cpus()[0]?.model ?? "unknown cpu"} × ${cpus().length}, load average ${loadavg()[0]?.toFixed(2)}; ` +
      `${rounds} timed rounds after ${warmup} warm-up, gc between samples: ${hasGc ? "yes" : "no (run with --expose-gc)"}\n`,
  );
  const list: readonly Contender<any>[] = [ours, naive];
  console.log("| workload | reducer | updates/s median | spread (p10–p90) | µs/update | speed ÷ naive |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const work of workloads) {
    const times = measure(work.items, list, rounds, warmup);
    const median = times.map((t) => quantile([...t].sort((a, b) => a - b), 0.5));
    list.forEach((c, i) => {
      const sorted = [...times[i]!].sort((a, b) => a - b);
      const rate = (ms: number) => work.items.length / (ms / 1000);
      console.log(
        `| ${work.name} | ${c.name} | ${fmt(rate(median[i]!))} | ${fmt(rate(quantile(sorted, 0.9)))}–${fmt(rate(quantile(sorted, 0.1)))} | ` +
          `${fmt((median[i]! * 1000) / work.items.length, 2)} | ${fmt(median[1]! / median[i]!, 2)}× |`,
      );
    });
  }
  if (!hasGc) return;
  console.log(`\nheap after GC (MB), sampled every ${fmt(total / 10)} of ${fmt(total)} updates (states reset at every replay of the list):`);
  console.log("| reducer | samples | max − min |");
  console.log("|---|---|---:|");
  for (const c of list) {
    const samples = memory(c, items, total);
    console.log(`| ${c.name} | ${samples.map((m) => fmt(m, 1)).join(", ")} | ${fmt(Math.max(...samples) - Math.min(...samples), 1)} |`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
