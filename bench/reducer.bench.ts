/**
 * Session reducer throughput and memory over the v2-unstable corpus.
 *
 *   npx tsx --expose-gc bench/reducer.bench.ts [--rounds 15] [--warmup 3] [--processes 3] [--seed N] [--size N]
 *
 * The corpus (bench/corpus.ts) is a simulated transcript of many sessions.
 * Its `session/update` notifications are decoded (JSON.parse, then
 * `parse.SessionUpdate`; updates it rejects are left out), and every
 * contender folds the same updates. Workloads: every update, one state per
 * session as in the corpus; the 4-kind stream (tool_call_update,
 * agent_thought, agent_thought_chunk, subagent_update only), per session;
 * and every update as one long session (thousands of entities per map).
 *
 * What a client sees, and how the bench keeps to it (README.md, "Benchmark:
 * the reducer", gives the experiments behind each point):
 * - Real ES modules. generated/src and bench/naive-reducer.ts are compiled
 *   (bench/compiled-modules.ts, shared with the parse bench) file by file with esbuild (imports kept) into a temporary directory that
 *   holds a `{"type":"module"}` package.json, as the published package
 *   does. Without it, tsx loaded the `.js` files as CommonJS and every
 *   import between modules became a getter call.
 * - Fresh processes per workload (as JMH forks per benchmark): the type
 *   feedback one workload leaves in shared functions (the naive reducers'
 *   shared `reduceBy`, our `reduceWith`) does not shape another's code; and
 *   several of them (`--processes`, 3), since a process settles in a heap
 *   mode of its own (README.md, "Three processes per workload").
 * - Fresh input for every fold. A client reduces each update once, right
 *   after `parse` made it: before each fold (outside timing) every update is
 *   decoded anew from pristine data no reducer ever saw, and the fold drops
 *   each update from its list once reduced, so an update the reducer copied
 *   can die, as in a stream. Folding the same objects again instead handed
 *   `reduceSessionOwned` values it had frozen already (its freezing skipped)
 *   and every other contender frozen, old-generation input.
 * - One decode for all contenders: every contender's input is made by the
 *   `parse` of one copy of the modules that none of them runs and that never
 *   sees the long-lived pristine items (another copy makes those). V8 decides
 *   per allocation site whether to allocate its objects in the old
 *   generation (pretenuring); with a decode per contender, it decided so for
 *   some contenders' input and not for others' in the same process, and a
 *   contender fed old-generation input spent three times as long in
 *   scavenges (README.md, "One decode for all contenders").
 * - GC: one full GC before the rounds, none forced between samples (a forced
 *   GC leaves the young generation shrunk, which a client reducing a live
 *   stream never has). Before each timed sample, one untimed fold of the
 *   same contender pays the young garbage the previous contender left and
 *   brings the heap to this contender's steady state. Samples last >= 200 ms
 *   (reps calibrated in warm-up), so a sample holds its own GC pauses.
 * Contenders:
 * - naive in place (the baseline): bench/naive-reducer.ts with ONE state whose
 *   `Map`s are updated in place, a fresh object per entity update;
 * - naive in place, chunk lists pushed: the same, but a chunk pushes onto the
 *   entity's list instead of copying it (the stronger baseline since our
 *   lists grow at their end, runtime/growing-list.ts);
 * - naive copying: the same rules, a spread state and a copied `Map` per update;
 * - ours: the generated `reduceSession` (pure: copies what it takes from the
 *   update, old states stay valid and unchanged, stored values frozen);
 * - ours, owned: `reduceSessionOwned`, the trusted path for updates handed
 *   over (fresh `parse` output): no copy, values frozen in place.
 * On the 4-kind stream, one more row bounds what persistence alone costs:
 * `floor`, which only copies the state object and stores the update in one
 * `PersistentMap` per update (not a reducer; not in the identity check).
 * Before timing, the end states of all are asserted identical, session by
 * session (same entities in the same order, same timeline, same JSON).
 * Rounds interleave the contenders (rotating their order); the table reports
 * the median and p10-p90 spread of every sample of every process, and the
 * ratio to the baseline read within each process (their median, and each). Memory: the heap after GC with the
 * final states kept, and with every intermediate state kept, minus the heap
 * before the fold, per 1,000 updates; each update is decoded just before it
 * is reduced, so what a state keeps of its update is counted and the rest
 * of the decode is not.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { SessionUpdate } from "../generated/src/v2/unstable/index.js";
import { compileModules, importCompiled } from "./compiled-modules.js";
import { gc, inFreshProcess, median, processesArg, quantile } from "./harness.js";
import { FOUR_KINDS, generateCorpus, numberArg } from "./corpus.js";
import type { NaiveState } from "./naive-reducer.js";

type Bindings = typeof import("../generated/src/v2/unstable/index.js");
type Naive = typeof import("./naive-reducer.js");
type Pmap = typeof import("../generated/src/runtime/pmap.js");

/** The compiled modules a worker measures. */
interface Modules {
  readonly bindings: Bindings;
  readonly naive: Naive;
  readonly pmap: Pmap;
}

/** The compiled modules (`compileModules` with the naive reducer) in `dir`, imported as ES modules. */
async function load(dir: string): Promise<Modules> {
  return {
    bindings: (await importCompiled(dir, "generated/src/v2/unstable/index.js")) as Bindings,
    naive: (await importCompiled(dir, "bench/naive-reducer.js")) as Naive,
    pmap: (await importCompiled(dir, "generated/src/runtime/pmap.js")) as Pmap,
  };
}

/** One decoded update and the session it belongs to. */
interface Item {
  readonly sessionId: string;
  readonly update: SessionUpdate;
}

/** A reducer, made from a copy of the modules of its own. */
interface Contender<S> {
  readonly name: string;
  readonly empty: () => S;
  readonly reduce: (state: S, update: SessionUpdate) => S;
  /** It changes one state in place: no state to keep, so no "all states kept" memory. */
  readonly inPlace?: boolean;
}

/** A fresh decode of a pristine update (a new value), as a client has just before it reduces. */
type Decode = (update: SessionUpdate) => SessionUpdate;

/**
 * The five reducers, the in-place baseline first. Each is made from its own
 * copy of the modules (see `measureWorkload`).
 */
const REDUCERS: readonly ((modules: Modules) => Contender<any>)[] = [
  (modules) => ({ name: "naive in place (baseline)", empty: modules.naive.naiveEmpty, reduce: modules.naive.naiveReduceInPlace as Contender<NaiveState>["reduce"], inPlace: true }),
  (modules) => ({ name: "naive in place, chunk lists pushed", empty: modules.naive.naiveEmpty, reduce: modules.naive.naiveReduceInPlacePushing as Contender<NaiveState>["reduce"], inPlace: true }),
  (modules) => ({ name: "naive copying: spread + Map copy", empty: modules.naive.naiveEmpty, reduce: modules.naive.naiveReduce as Contender<NaiveState>["reduce"] }),
  (modules) => ({ name: "ours: reduceSession", empty: modules.bindings.emptySessionState, reduce: modules.bindings.reduceSession }),
  (modules) => ({ name: "ours: reduceSessionOwned (trusted)", empty: modules.bindings.emptySessionState, reduce: modules.bindings.reduceSessionOwned }),
];

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
function floor(modules: Modules): Contender<FloorState> {
  const { pmap } = modules;
  return {
    name: "bound: state copy + map insert only (not a reducer)",
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
}

/** The workloads by name, each from the corpus's items. */
const WORKLOADS: readonly { readonly name: string; readonly items: (items: readonly Item[]) => readonly Item[] }[] = [
  { name: "all kinds, per session", items: (items) => items },
  { name: "4-kind stream, per session", items: (items) => items.filter(({ update }) => FOUR_KINDS.has(update.sessionUpdate)) },
  { name: "all kinds, one long session", items: (items) => items.map(({ update }) => ({ sessionId: "one", update })) },
];
const FOUR_KIND_WORKLOAD = 1;

/** The corpus's session updates, parsed: pristine data no reducer is ever handed (see `decoded`). */
function loadItems({ bindings }: Modules): { items: Item[]; skipped: number } {
  const items: Item[] = [];
  let skipped = 0;
  for (const line of generateCorpus({ seed: numberArg("seed"), size: numberArg("size") })) {
    const message = JSON.parse(line) as { method?: string; params?: { sessionId?: unknown; update?: unknown } };
    if (message.method !== "session/update" || typeof message.params?.sessionId !== "string") continue;
    const parsed = bindings.parse.SessionUpdate(message.params.update);
    if (parsed.ok) items.push({ sessionId: message.params.sessionId, update: parsed.value });
    else skipped++;
  }
  return { items, skipped };
}

/**
 * The decode every contender's input comes from: `parse` of one copy of the
 * modules that no contender runs (README.md, "One decode for all contenders").
 */
function decoder({ bindings }: Modules): Decode {
  return (update) => {
    const result = bindings.parse.SessionUpdate(update);
    if (!result.ok) throw new Error("a decoded update no longer parses");
    return result.value;
  };
}

/** The items with every update freshly decoded: the input of one fold. */
function decoded(decode: Decode, items: readonly Item[]): (Item | undefined)[] {
  return items.map(({ sessionId, update }) => ({ sessionId, update: decode(update) }));
}

/**
 * Folds every item into its session's state. The list is handed over: each
 * slot is cleared once reduced, so that what the reducer did not keep of an
 * update can be collected, as in a stream.
 */
function fold<S>(contender: Contender<S>, input: (Item | undefined)[]): Map<string, S> {
  const states = new Map<string, S>();
  for (let i = 0; i < input.length; i++) {
    const { sessionId, update } = input[i]!;
    input[i] = undefined;
    states.set(sessionId, contender.reduce(states.get(sessionId) ?? contender.empty(), update));
  }
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

/** Throws unless every contender ends every session in the same state as the first; returns the session count. */
function assertIdentical(items: readonly Item[], list: readonly Contender<any>[], decode: Decode): number {
  const expected = fold(list[0]!, decoded(decode, items));
  for (const contender of list.slice(1)) {
    const actual = fold(contender, decoded(decode, items));
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

/** Milliseconds per fold over `reps` folds, each of freshly decoded input (decoding not timed), after one untimed fold. */
function sample<S>(contender: Contender<S>, items: readonly Item[], reps: number, decode: Decode): number {
  fold(contender, decoded(decode, items));
  let ms = 0;
  for (let r = 0; r < reps; r++) {
    const input = decoded(decode, items);
    const start = performance.now();
    fold(contender, input);
    ms += performance.now() - start;
  }
  return ms / reps;
}

/** Interleaved rounds (rotating order) after `warmup` rounds that set each contender's reps so that a sample lasts >= `minSampleMs`. */
function measure(items: readonly Item[], list: readonly Contender<any>[], decode: Decode, rounds: number, warmup: number, minSampleMs = 200): number[][] {
  gc();
  const times = list.map((): number[] => []);
  const reps = list.map(() => 1);
  for (let round = -warmup; round < rounds; round++) {
    for (let k = 0; k < list.length; k++) {
      const i = (k + Math.max(round, 0)) % list.length;
      const ms = sample(list[i]!, items, reps[i]!, decode);
      if (round < 0) reps[i] = Math.max(1, Math.ceil(minSampleMs / ms));
      else times[i]!.push(ms);
    }
  }
  return times;
}

/**
 * MB retained per 1,000 updates after folding `items`: with only the final
 * states kept, and with every intermediate state kept (`undefined` for the
 * in-place baseline, which has no intermediate states). Each update is
 * decoded just before it is reduced: what a state keeps of it is counted.
 */
function memory<S>(contender: Contender<S>, items: readonly Item[], inPlace: boolean, decode: Decode): { final: number; all: number | undefined } {
  const perThousand = (bytes: number) => bytes / 1e6 / (items.length / 1000);
  const retained = (keepAll: boolean): number => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept: S[] = [];
    const states = new Map<string, S>();
    for (const { sessionId, update } of items) {
      const next = contender.reduce(states.get(sessionId) ?? contender.empty(), decode(update));
      states.set(sessionId, next);
      if (keepAll) kept.push(next);
    }
    gc();
    const bytes = process.memoryUsage().heapUsed - before;
    return states.size + kept.length > 0 ? bytes : 0;
  };
  return { final: perThousand(retained(false)), all: inPlace ? undefined : perThousand(retained(true)) };
}

/** What a worker reports for its workload. */
interface WorkloadResult {
  readonly updates: number;
  readonly corpusUpdates: number;
  readonly skipped: number;
  readonly sessions: number;
  readonly names: string[];
  readonly times: number[][];
  readonly memories: ({ final: number; all: number | undefined } | undefined)[];
}

/**
 * Measures one workload in this (fresh) process. Every contender runs from
 * its own copy of the compiled modules (`dir/0`, `dir/1`, ...), as a client
 * runs one reducer: the type feedback of one contender's calls does not
 * shape the code another runs (the two naive reducers share `reduceBy`, ours
 * share `reduceWith`). One more copy makes the pristine items, and one more
 * decodes every contender's input from them (`decoder`): its allocation
 * sites never see the long-lived pristine items.
 */
async function measureWorkload(workload: number, dir: string): Promise<WorkloadResult> {
  const makers = workload === FOUR_KIND_WORKLOAD ? [...REDUCERS, floor] : REDUCERS;
  const list: Contender<any>[] = [];
  for (const [i, make] of makers.entries()) list.push(make(await load(join(dir, String(i)))));
  const { items, skipped } = loadItems(await load(join(dir, String(makers.length))));
  const decode = decoder(await load(join(dir, String(makers.length + 1))));
  const work = WORKLOADS[workload]!.items(items);
  const sessions = assertIdentical(work, list.slice(0, REDUCERS.length), decode);
  // All timing first, then the memory passes (which keep every state alive), so that no timed round follows one.
  const times = measure(work, list, decode, numberArg("rounds") ?? 15, numberArg("warmup") ?? 3);
  const hasGc = typeof (globalThis as { gc?: unknown }).gc === "function";
  const memories = list.map((c) => (hasGc ? memory(c, work, c.inPlace === true, decode) : undefined));
  return { updates: work.length, corpusUpdates: items.length, skipped, sessions, names: list.map((c) => c.name), times, memories };
}


const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * The table rows of one workload, from its processes' results: rates and spread over
 * every sample of every process; the ratio to the in-place baseline is read within each
 * process (medians of its interleaved rounds) and the median of those is shown, beside
 * each process's own (V8 decides per process, e.g. which allocation sites to pretenure,
 * and a process can settle in a slower or faster mode for a contender); memory: the
 * median over the processes.
 */
function rows(name: string, results: readonly WorkloadResult[]): string[] {
  const first = results[0]!;
  const rate = (ms: number) => first.updates / (ms / 1000);
  const mb = (n: number | undefined) => (n === undefined ? "—" : fmt(n, 2));
  return first.names.map((reducer, i) => {
    const sorted = results.flatMap((r) => r.times[i]!).sort((a, b) => a - b);
    const ratios = results.map((r) => median(r.times[0]!) / median(r.times[i]!));
    const memories = results.map((r) => r.memories[i]);
    const memory = (pick: (m: { final: number; all: number | undefined }) => number | undefined) => {
      const values = memories.map((m) => (m ? pick(m) : undefined)).filter((v): v is number => v !== undefined);
      return values.length ? median(values) : undefined;
    };
    return (
      `| ${name} | ${reducer} | ${fmt(rate(median(sorted)))} | ${fmt(rate(quantile(sorted, 0.9)))}–${fmt(rate(quantile(sorted, 0.1)))} | ` +
      `${fmt((median(sorted) * 1000) / first.updates, 2)} | ${fmt(median(ratios), 2)}× | ${ratios.map((r) => fmt(r, 2)).join(" / ")} | ` +
      `${mb(memory((m) => m.final))} | ${mb(memory((m) => m.all))} |`
    );
  });
}

async function main(): Promise<void> {
  const rounds = numberArg("rounds") ?? 15;
  const warmup = numberArg("warmup") ?? 3;
  const processes = processesArg(3);
  const dir = mkdtempSync(join(tmpdir(), "reducer-bench-"));
  const load0 = loadavg()[0]!;
  try {
    await compileModules(fileURLToPath(new URL("..", import.meta.url)), join(dir, "0"), ["bench/naive-reducer.ts"]);
    for (let copy = 1; copy <= REDUCERS.length + 2; copy++) cpSync(join(dir, "0"), join(dir, String(copy)), { recursive: true });
    // Workload by workload, PROCESSES times over: a drift of the machine spreads over all workloads.
    const runs: WorkloadResult[][] = WORKLOADS.map(() => []);
    for (let p = 0; p < processes; p++) {
      for (let w = 0; w < WORKLOADS.length; w++) {
        runs[w]!.push(await inFreshProcess<WorkloadResult>(fileURLToPath(import.meta.url), ["--workload", String(w), "--modules", dir], `workload "${WORKLOADS[w]!.name}", process ${p + 1}`));
      }
    }
    const [every, four] = runs.map((r) => r[0]!) as [WorkloadResult, WorkloadResult];
    const hasGc = typeof (globalThis as { gc?: unknown }).gc === "function";
    console.log(
      `corpus: ${fmt(every.corpusUpdates)} session updates in ${every.sessions} sessions (${every.skipped} malformed ones rejected by parse.SessionUpdate); ` +
        `4-kind stream: ${fmt(four.updates)} updates; end states identical for every contender and workload\n` +
        `node ${process.version}, ${cpus()[0]?.model ?? "unknown cpu"} × ${cpus().length}, load average ${load0.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end; ` +
        `each workload in ${processes} fresh processes, one after another; ${rounds} timed rounds after ${warmup} warm-up in each; memory columns: ${hasGc ? "measured" : "need --expose-gc"}\n`,
    );
    console.log("| workload | reducer | updates/s median | spread (p10–p90) | µs/update | speed ÷ in place | ÷ in place, each process | MB/1k updates, final states | MB/1k updates, all states kept |");
    console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    runs.forEach((results, w) => console.log(rows(WORKLOADS[w]!.name, results).join("\n")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const workload = numberArg("workload");
  const dir = process.argv[process.argv.indexOf("--modules") + 1];
  if (workload === undefined) await main();
  else process.send!(await measureWorkload(workload, dir!));
}
