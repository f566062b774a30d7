/**
 * Terminal output as it grows (S12): one terminal's `terminal_output_chunk`
 * updates folded from an empty state, for outputs of growing length, timed
 * per chunk. A reducer that appends in the chunk's size keeps the same cost
 * per chunk however long the output; one that reads or rewrites the output
 * pays its length on every chunk (quadratic in all).
 *
 * Contenders, in one process, interleaved (the order turns every round):
 * - ours: `reduceSession` (copying) and `reduceSessionOwned` (trusted), every
 *   intermediate state a valid, frozen state;
 * - the hand-written in-place reducer of bench/naive-reducer.ts (the baseline
 *   of the reducer bench): what a client author writes to keep a base64 output
 *   current, decoding the stored output, appending the chunk's bytes and
 *   encoding again, on one mutable state. It is run up to `--naive-upto`
 *   chunks: beyond, one round of it takes minutes.
 * Every contender's end output is checked against the base64 of all the bytes.
 * Run with `--expose-gc`, it also reports the heap the newest state holds after
 * `reduceSession` folded each output (nothing else kept), beside the output's
 * own length: what the pieces of a string built by joins cost.
 *
 * Options: `--chunks 1000,2000,4000,8000` (outputs of that many chunks),
 * `--bytes 1024` (per chunk), `--rounds 5` (timed, after one warm-up),
 * `--naive-upto 2000`.
 */
import { emptySessionState, reduceSession, reduceSessionOwned, type SessionState, type SessionUpdate } from "../generated/src/v2/unstable/index.js";
import { stringArg } from "./corpus.js";
import { gc, median } from "./harness.js";
import { naiveEmpty, naiveReduceInPlace, type NaiveState } from "./naive-reducer.js";

/** A whole number of at least 1, or exits naming the option. */
function wholeNumber(text: string, name: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} takes whole numbers of at least 1, not ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return n;
}

const chunkCounts = (stringArg("chunks") ?? "1000,2000,4000,8000").split(",").map((n) => wholeNumber(n, "chunks"));
const bytesPerChunk = wholeNumber(stringArg("bytes") ?? "1024", "bytes");
const rounds = wholeNumber(stringArg("rounds") ?? "5", "rounds");
const naiveUpTo = wholeNumber(stringArg("naive-upto") ?? "2000", "naive-upto");

/** One way to fold the chunks; returns the terminal's output at the end. */
interface Contender {
  readonly name: string;
  fold(updates: readonly SessionUpdate[]): string | undefined;
}

type Terminals = { terminals: ReadonlyMap<string, { output?: { data: string } }> };

/** Ours, through `reduce` from an empty state. */
function ours(name: string, reduce: (state: SessionState, update: SessionUpdate) => SessionState): Contender {
  return {
    name,
    fold(updates) {
      let state = emptySessionState();
      for (const update of updates) state = reduce(state, update);
      return (state as unknown as Terminals).terminals.get("t")?.output?.data;
    },
  };
}

const naive: Contender = {
  name: "hand-written in place: decode the output, append, encode",
  fold(updates) {
    const state: NaiveState = naiveEmpty();
    for (const update of updates) naiveReduceInPlace(state, update as Record<string, unknown>);
    return (state.terminals.get("t") as { output?: { data: string } } | undefined)?.output?.data;
  },
};

const CONTENDERS: readonly Contender[] = [ours("ours: reduceSession", reduceSession), ours("ours: reduceSessionOwned (trusted)", reduceSessionOwned), naive];

/** `count` chunks of `bytesPerChunk` bytes each (a byte count not a multiple of 3 pads every chunk), and the base64 of them all. */
function workload(count: number): { updates: SessionUpdate[]; expected: string } {
  const bytes = Buffer.alloc(count * bytesPerChunk);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + (i >> 7)) & 0xff;
  const updates: SessionUpdate[] = [];
  for (let i = 0; i < count; i++) {
    const data = bytes.subarray(i * bytesPerChunk, (i + 1) * bytesPerChunk).toString("base64");
    updates.push({ sessionUpdate: "terminal_output_chunk", terminalId: "t", data } as SessionUpdate);
  }
  return { updates, expected: bytes.toString("base64") };
}

/** µs per chunk with its p10-p90 range. */
function perChunk(times: readonly number[], count: number): string {
  const sorted = [...times].sort((a, b) => a - b);
  const us = (ms: number) => ((ms * 1000) / count).toFixed(1);
  return `${us(median(sorted))} (${us(sorted[Math.floor((sorted.length - 1) * 0.1)]!)}–${us(sorted[Math.ceil((sorted.length - 1) * 0.9)]!)})`;
}

/** Heap (MB) that the state `reduceSession` folds from `updates` holds: the heap with it, less the heap once it is dropped; undefined without `--expose-gc`. */
function retainedMegabytes(updates: readonly SessionUpdate[]): number | undefined {
  if ((globalThis as { gc?: unknown }).gc === undefined) return undefined;
  const heap = () => (gc(), gc(), process.memoryUsage().heapUsed);
  let state: SessionState | undefined = emptySessionState();
  for (const update of updates) state = reduceSession(state!, update);
  if ((state as unknown as Terminals).terminals.get("t")?.output?.data === undefined) throw new Error("no output");
  // Held by an array that is emptied after the first reading: in use across it, unreachable for the second.
  const kept: unknown[] = [state];
  state = undefined;
  const withState = heap();
  kept.length = 0;
  return (withState - heap()) / 1e6;
}

console.log(`node ${process.version}, ${bytesPerChunk} bytes per chunk, ${rounds} timed rounds after 1 warm-up, contenders interleaved`);
console.log("\n| chunks | output | contender | µs per chunk, median (p10–p90) | time ÷ ours: reduceSession |");
console.log("|---:|---:|---|---:|---:|");
const memory: string[] = [];
for (const count of chunkCounts) {
  const { updates, expected } = workload(count);
  const running = CONTENDERS.filter((c) => c !== naive || count <= naiveUpTo);
  const times = running.map((): number[] => []);
  for (let round = 0; round <= rounds; round++) {
    for (let k = 0; k < running.length; k++) {
      const i = (round + k) % running.length;
      const started = performance.now();
      const output = running[i]!.fold(updates);
      const elapsed = performance.now() - started;
      if (output !== expected) {
        console.error(`${running[i]!.name}: the output after ${count} chunks is not the base64 of their bytes`);
        process.exit(1);
      }
      if (round > 0) times[i]!.push(elapsed);
    }
  }
  const base = median(times[0]!);
  const size = `${(expected.length / 1e6).toFixed(2)} MB`;
  running.forEach((c, i) => console.log(`| ${count.toLocaleString("en-US")} | ${size} | ${c.name} | ${perChunk(times[i]!, count)} | ${(median(times[i]!) / base).toFixed(2)}× |`));
  const held = retainedMegabytes(updates);
  if (held !== undefined) memory.push(`| ${count.toLocaleString("en-US")} | ${size} | ${held.toFixed(2)} MB | ${(held / (expected.length / 1e6)).toFixed(2)}× |`);
}
if (memory.length > 0) {
  console.log("\nHeap held by the newest state after `reduceSession` folded the output: the heap with it less the heap without it (two full GCs before each reading; the output is one-byte text)");
  console.log("\n| chunks | output | heap held | ÷ output's length |");
  console.log("|---:|---:|---:|---:|");
  for (const row of memory) console.log(row);
}
