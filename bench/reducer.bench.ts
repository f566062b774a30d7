/**
 * Session reducer throughput and memory over the v2-unstable corpus, one process run.
 *
 *   npx tsx --expose-gc bench/reducer.bench.ts [--rounds 15] [--warmup 3] [--seed N] [--size N]
 *
 * The corpus (bench/corpus.ts) is a simulated transcript of many sessions.
 * Its `session/update` notifications are decoded once, outside timing
 * (JSON.parse, then `parse.SessionUpdate`; updates it rejects are left out),
 * and every contender folds the same list. Workloads: every update, one state
 * per session as in the corpus; the 4-kind stream (tool_call_update,
 * agent_thought, agent_thought_chunk, subagent_update only), per session;
 * and every update as one long session (thousands of entities per map).
 * Every contender runs as plain ES modules, as a user runs the built
 * package: generated/src and bench/naive-reducer.ts are first compiled file
 * by file with esbuild (imports kept) into a temporary directory and
 * imported from there. Run straight from tsx's loader, the generated
 * modules' imports of each other went through accessor functions, which
 * slowed our reducer (many small calls across modules) by about a third
 * and the one-module baseline hardly at all.
 * Contenders:
 * - naive in place (the baseline): bench/naive-reducer.ts with ONE state whose
 *   `Map`s are updated in place, a fresh object per entity update;
 * - naive copying: the same rules, a spread state and a copied `Map` per update;
 * - ours: the generated `reduceSession` (pure: copies what it takes from the
 *   update, old states stay valid and unchanged, stored values frozen);
 * - ours, owned: `reduceSessionOwned`, the trusted path for updates handed
 *   over (fresh `parse` output): no copy, values frozen in place.
 * On the 4-kind stream, one more row bounds what persistence alone costs:
 * `floor`, which only copies the state object and inserts the update into
 * one trie per update (not a reducer; not in the identity check).
 * Before timing, the end states of all are asserted identical, session by
 * session (same entities in the same order, same timeline, same JSON).
 * Rounds interleave the contenders (rotating their order); the table reports
 * the median round and the p10-p90 spread (one full GC before each workload,
 * none between samples, see `measure`). Memory: the heap after GC with the
 * final states kept, and with every intermediate state kept, minus the heap
 * before the fold, per 1,000 updates (the decoded updates are live throughout
 * and not counted).
 */
import { build } from "esbuild";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { SessionState, SessionUpdate } from "../generated/src/v2/unstable/index.js";
import { generateCorpus, numberArg } from "./corpus.js";
import type { NaiveState } from "./naive-reducer.js";

type Bindings = typeof import("../generated/src/v2/unstable/index.js");
type Naive = typeof import("./naive-reducer.js");
type Pmap = typeof import("../generated/src/runtime/pmap.js");

/** generated/src and the naive reducer compiled to plain ES modules (one output file per source, imports kept), imported. */
async function compiled(): Promise<{ bindings: Bindings; naive: Naive; pmap: Pmap }> {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const out = mkdtempSync(join(tmpdir(), "reducer-bench-"));
  try {
    const sources = readdirSync(join(root, "generated/src"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
    const entryPoints = [...sources.map((f) => join(root, "generated/src", f)), join(root, "bench/naive-reducer.ts")];
    await build({ entryPoints, outbase: root, outdir: out, format: "esm", platform: "node", target: "node20", logLevel: "error" });
    const load = (path: string) => import(pathToFileURL(join(out, path)).href);
    return {
      bindings: (await load("generated/src/v2/unstable/index.js")) as Bindings,
      naive: (await load("bench/naive-reducer.js")) as Naive,
      pmap: (await load("generated/src/runtime/pmap.js")) as Pmap,
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const { bindings, naive, pmap } = await compiled();
const { emptySessionState, parse, reduceSession, reduceSessionOwned } = bindings;
const { naiveEmpty, naiveReduce, naiveReduceInPlace } = naive;

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

const inPlace: Contender<NaiveState> = { name: "naive in place (baseline)", empty: naiveEmpty, reduce: naiveReduceInPlace as Contender<NaiveState>["reduce"] };
const copying: Contender<NaiveState> = { name: "naive copying: spread + Map copy", empty: naiveEmpty, reduce: naiveReduce as Contender<NaiveState>["reduce"] };
const ours: Contender<SessionState> = { name: "ours: reduceSession", empty: emptySessionState, reduce: reduceSession };
const owned: Contender<SessionState> = { name: "ours: reduceSessionOwned (trusted)", empty: emptySessionState, reduce: reduceSessionOwned };
const CONTENDERS: readonly Contender<any>[] = [inPlace, copying, ours, owned];

/** The map slot and id field of each tag of the 4-kind stream, for the floor below. */
const FLOOR_ROUTES: Readonly<Record<string, readonly [slot: string, id: string]>> = {
  tool_call_update: ["toolCalls", "toolCallId"],
  agent_thought: ["agentThoughts", "messageId"],
  agent_thought_chunk: ["agentThoughts", "messageId"],
  subagent_update: ["subagents", "sessionId"],
};

type FloorState = Record<string, unknown>;

/**
 * Not a reducer: the floor of any reducer built like ours, on the 4-kind
 * stream. Per update it only copies the state object (the same 13 slots, one
 * literal) and stores the update itself in one `PersistentMap` (no entity
 * built, nothing copied or frozen, no timeline). What it costs bounds what
 * the persistence alone costs.
 */
const floor: Contender<FloorState> = {
  name: "bound: state copy + trie insert only (not a reducer)",
  empty: () => {
    const e = pmap.PersistentMap.empty();
    return { toolCalls: e, userMessages: e, agentMessages: e, agentThoughts: e, sessionMessages: e, terminals: e, compactions: e, subagents: e, plans: e, state: {}, notices: [], custom: [], timeline: [] };
  },
  reduce: (s, update) => {
    const [slot, idField] = FLOOR_ROUTES[update.sessionUpdate]!;
    const next: FloorState = { toolCalls: s["toolCalls"], userMessages: s["userMessages"], agentMessages: s["agentMessages"], agentThoughts: s["agentThoughts"], sessionMessages: s["sessionMessages"], terminals: s["terminals"], compactions: s["compactions"], subagents: s["subagents"], plans: s["plans"], state: s["state"], notices: s["notices"], custom: s["custom"], timeline: s["timeline"] };
    next[slot] = (s[slot] as import("../generated/src/runtime/pmap.js").PersistentMap<unknown>).with((update as unknown as Record<string, string>)[idField]!, update);
    return next;
  },
};

/** The tags of the 4-kind stream (issue 11's profile workload). */
const FOUR_KINDS = new Set(["tool_call_update", "agent_thought", "agent_thought_chunk", "subagent_update"]);

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

/** A fresh decode of an update (`parse` output is a new value). */
function reparsed(update: SessionUpdate): SessionUpdate {
  const result = parse.SessionUpdate(update);
  if (!result.ok) throw new Error("a decoded update no longer parses");
  return result.value;
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

/** Throws unless every contender ends every session in the same state as the baseline; returns the session count. */
function assertIdentical(items: readonly Item[]): number {
  const expected = fold(CONTENDERS[0]!, items);
  for (const contender of CONTENDERS.slice(1)) {
    // Reading an owned fold's states freezes the updates it was handed: give it fresh ones, as `parse` would.
    const actual = fold(contender, contender === owned ? items.map(({ sessionId, update }) => ({ sessionId, update: reparsed(update) })) : items);
    if (actual.size !== expected.size) throw new Error(`${contender.name}: session count differs: ${actual.size} vs ${expected.size}`);
    for (const [id, state] of expected) {
      const x = canonical(state);
      const y = canonical(actual.get(id));
      if (x !== y) {
        let i = 0;
        while (x[i] === y[i]) i++;
        throw new Error(`${contender.name}: end state differs for session ${id} at ...${y.slice(Math.max(0, i - 120), i + 80)}\n baseline ...${x.slice(Math.max(0, i - 120), i + 80)}`);
      }
    }
  }
  return expected.size;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Milliseconds per fold of the whole list, over `reps` folds. */
function sample<S>(contender: Contender<S>, items: readonly Item[], reps: number): number {
  const start = performance.now();
  for (let r = 0; r < reps; r++) fold(contender, items);
  return (performance.now() - start) / reps;
}

/**
 * Interleaved rounds, one full GC before the workload only: a forced full GC
 * before every sample made our reducer 2-3x slower in its next sample than in
 * a steady run (the baseline lost far less), which a client reducing a live
 * stream never sees.
 */
function measure(items: readonly Item[], list: readonly Contender<any>[], rounds: number, warmup: number, minSampleMs = 200): number[][] {
  gc();
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

/**
 * MB retained per 1,000 updates after folding `items`: with only the final
 * states kept, and with every intermediate state kept (the in-place
 * baseline has no intermediate states: `undefined`).
 */
function memory<S>(contender: Contender<S>, items: readonly Item[]): { final: number; all: number | undefined } {
  const perThousand = (bytes: number) => bytes / 1e6 / (items.length / 1000);
  const retained = (keepAll: boolean): number => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept: S[] = [];
    const states = new Map<string, S>();
    for (const { sessionId, update } of items) {
      const next = contender.reduce(states.get(sessionId) ?? contender.empty(), update);
      states.set(sessionId, next);
      if (keepAll) kept.push(next);
    }
    gc();
    const bytes = process.memoryUsage().heapUsed - before;
    return states.size + kept.length > 0 ? bytes : 0;
  };
  return { final: perThousand(retained(false)), all: contender === (inPlace as Contender<unknown>) ? undefined : perThousand(retained(true)) };
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
  const { items, skipped } = loadItems();
  const workloads = [
    { name: "all kinds, per session", items },
    { name: "4-kind stream, per session", items: items.filter(({ update }) => FOUR_KINDS.has(update.sessionUpdate)) },
    { name: "all kinds, one long session", items: items.map(({ update }) => ({ sessionId: "one", update })) },
  ];
  const sessions = workloads.map((w) => assertIdentical(w.items));
  const hasGc = typeof (globalThis as { gc?: unknown }).gc === "function";
  console.log(
    `corpus: ${fmt(items.length)} session updates in ${sessions[0]} sessions (${skipped} malformed ones rejected by parse.SessionUpdate); ` +
      `4-kind stream: ${fmt(workloads[1]!.items.length)} updates; end states identical for every contender and workload\n` +
      `node ${process.version}, ${cpus()[0]?.model ?? "unknown cpu"} × ${cpus().length}, load average ${loadavg()[0]?.toFixed(2)}; ` +
      `${rounds} timed rounds after ${warmup} warm-up; memory columns: ${hasGc ? "measured" : "need --expose-gc"}\n`,
  );
  // All timing first, then the memory passes (which keep every state alive), so that no timed round follows one.
  // The floor runs on the 4-kind stream only, in the same interleaved rounds as the reducers.
  const contenders = workloads.map((work) => (work === workloads[1] ? [...CONTENDERS, floor] : CONTENDERS));
  const timed = workloads.map((work, w) => measure(work.items, contenders[w]!, rounds, warmup));
  const memories = workloads.map((work, w) => contenders[w]!.map((c) => (hasGc ? memory(c, work.items) : undefined)));
  console.log("| workload | reducer | updates/s median | spread (p10–p90) | µs/update | speed ÷ in place | MB/1k updates, final states | MB/1k updates, all states kept |");
  console.log("|---|---|---:|---:|---:|---:|---:|---:|");
  workloads.forEach((work, w) => {
    const times = timed[w]!;
    const median = times.map((t) => quantile([...t].sort((a, b) => a - b), 0.5));
    contenders[w]!.forEach((c, i) => {
      const sorted = [...times[i]!].sort((a, b) => a - b);
      const rate = (ms: number) => work.items.length / (ms / 1000);
      const mem = memories[w]![i];
      const mb = (n: number | undefined) => (n === undefined ? "—" : fmt(n, 2));
      console.log(
        `| ${work.name} | ${c.name} | ${fmt(rate(median[i]!))} | ${fmt(rate(quantile(sorted, 0.9)))}–${fmt(rate(quantile(sorted, 0.1)))} | ` +
          `${fmt((median[i]! * 1000) / work.items.length, 2)} | ${fmt(median[0]! / median[i]!, 2)}× | ${mb(mem?.final)} | ${mb(mem?.all)} |`,
      );
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
