/**
 * Chunks that append, as the entity they append to grows: one terminal's
 * `terminal_output_chunk`s (S12, bytes appended to a base64 output) and one
 * message's `agent_message_chunk`s (S11, a content block appended to its
 * list), each folded from an empty state into entities of growing size, timed
 * per chunk. A reducer that appends in the chunk's size keeps the same cost
 * per chunk however large the entity; one that reads or copies what is stored
 * pays its size on every chunk (quadratic in all).
 *
 * Contenders, in one process, interleaved (the order turns every round):
 * - ours: `reduceSession` (copying) and `reduceSessionOwned` (trusted), every
 *   intermediate state a valid, frozen state that keeps its own values;
 * - the hand-written in-place reducer of bench/naive-reducer.ts (the baseline
 *   of the reducer bench), on one mutable state: for output it decodes the
 *   stored output, appends the chunk's bytes and encodes it all again; for a
 *   message it stores a fresh entity with a fresh list per chunk. It runs up to
 *   `--naive-upto` chunks (default 2,000 of output, 16,000 of a message: beyond,
 *   one round takes minutes);
 * - for messages, the same reducer with each block pushed onto the stored
 *   list (`naiveReduceInPlacePushing`: a fresh entity per chunk, the list
 *   copied only once); and ours with the
 *   message read from every state as it comes (a view that renders each state;
 *   up to 16,000 chunks), each read handing out an array of all its blocks.
 * Every contender's end value is checked (the base64 of all the bytes; the
 * text of all the blocks, in order).
 *
 * Run with `--expose-gc`, it also reports memory: for output, the heap the
 * newest state of `reduceSession` holds (nothing else kept) beside the
 * output's length; for a message, the heap every state of the fold holds when
 * all are kept, per chunk.
 *
 * Options: `--kind terminal,message` (default both), `--chunks` (default
 * 1000,2000,4000,8000 for output, 1000,4000,16000,64000 for a message),
 * `--bytes 1024` (per output chunk), `--rounds 5` (timed, after one warm-up),
 * `--naive-upto` (default 2000 for output, 16000 for a message).
 */
import { emptySessionState, reduceSession, reduceSessionOwned, type SessionState, type SessionUpdate } from "../generated/src/v2/unstable/index.js";
import { stringArg } from "./corpus.js";
import { gc, median } from "./harness.js";
import { naiveEmpty, naiveReduceInPlace, naiveReduceInPlacePushing, type NaiveState } from "./naive-reducer.js";

/** Whole numbers of at least 1 from a comma-separated option, or exits naming it. */
function wholeNumbers(text: string, name: string): number[] {
  return text.split(",").map((part) => {
    const n = Number(part);
    if (!Number.isInteger(n) || n < 1) {
      console.error(`--${name} takes whole numbers of at least 1, not ${JSON.stringify(part)}`);
      process.exit(2);
    }
    return n;
  });
}

const bytesPerChunk = wholeNumbers(stringArg("bytes") ?? "1024", "bytes")[0]!;
const rounds = wholeNumbers(stringArg("rounds") ?? "5", "rounds")[0]!;
/** How many chunks the quadratic hand-written reducer runs up to: the option, else the kind's default. */
const naiveUpTo = (fallback: string) => wholeNumbers(stringArg("naive-upto") ?? fallback, "naive-upto")[0]!;

/** One way to fold the chunks; returns the end value to check (the output's base64, the message's text). */
interface Contender {
  readonly name: string;
  /** Runs only for workloads of at most this many chunks. */
  readonly upTo?: number;
  fold(updates: readonly SessionUpdate[]): string | undefined;
}

/** One kind of chunk: its workloads, contenders and memory reading. */
interface Kind {
  readonly name: string;
  readonly defaultChunks: string;
  /** A column for the size of the end value, and what it says for a workload (none for a message: its chunk count says it). */
  readonly size?: { readonly column: string; of(expected: string): string };
  workload(count: number): { updates: SessionUpdate[]; expected: string };
  readonly contenders: readonly Contender[];
  /** The memory table's heading, columns and one row per workload (MB held by what `reduceSession` folded). */
  readonly memory: { heading: string; columns: string; row(count: number, size: string, expected: string, held: number): string; keepAll: boolean };
}

type Stored = {
  terminals: ReadonlyMap<string, { output?: { data: string } }>;
  agentMessages: ReadonlyMap<string, { content: readonly { text?: string }[] }>;
};

const terminalOutput = (state: Stored) => state.terminals.get("t")?.output?.data;
const messageText = (state: Stored) => state.agentMessages.get("m")?.content.map((block) => block.text).join("");

/**
 * Ours, through `reduce` from an empty state; `read` picks the end value. With
 * `readEach`, each state's message is read as it comes (what a view that renders
 * every state does), up to `upTo` chunks.
 */
function ours(name: string, reduce: (state: SessionState, update: SessionUpdate) => SessionState, read: (state: Stored) => string | undefined, readEach?: { upTo: number }): Contender {
  return {
    name,
    ...(readEach === undefined ? {} : { upTo: readEach.upTo }),
    fold(updates) {
      let state = emptySessionState();
      let blocks = 0;
      for (const update of updates) {
        state = reduce(state, update);
        if (readEach !== undefined) blocks += (state as unknown as Stored).agentMessages.get("m")!.content.length;
      }
      if (readEach !== undefined && blocks !== (updates.length * (updates.length + 1)) / 2) return undefined;
      return read(state as unknown as Stored);
    },
  };
}

/** A hand-written reducer of naive-reducer.ts on one mutable state; `read` picks the end value. */
function naive(name: string, reduce: typeof naiveReduceInPlace, read: (state: NaiveState) => string | undefined, upTo?: number): Contender {
  return {
    name,
    ...(upTo === undefined ? {} : { upTo }),
    fold(updates) {
      const state: NaiveState = naiveEmpty();
      for (const update of updates) reduce(state, update as Record<string, unknown>);
      return read(state);
    },
  };
}

const naiveText = (s: NaiveState) => (s.agentMessages.get("m")?.["content"] as { text: string }[] | undefined)?.map((b) => b.text).join("");

const TERMINAL: Kind = {
  name: "terminal",
  defaultChunks: "1000,2000,4000,8000",
  size: { column: "output", of: (expected) => `${(expected.length / 1e6).toFixed(2)} MB` },
  /** `count` chunks of `bytesPerChunk` bytes each (a byte count not a multiple of 3 pads every chunk), and the base64 of them all. */
  workload(count) {
    const bytes = Buffer.alloc(count * bytesPerChunk);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + (i >> 7)) & 0xff;
    const updates: SessionUpdate[] = [];
    for (let i = 0; i < count; i++) {
      const data = bytes.subarray(i * bytesPerChunk, (i + 1) * bytesPerChunk).toString("base64");
      updates.push({ sessionUpdate: "terminal_output_chunk", terminalId: "t", data } as SessionUpdate);
    }
    return { updates, expected: bytes.toString("base64") };
  },
  contenders: [
    ours("ours: reduceSession", reduceSession, terminalOutput),
    ours("ours: reduceSessionOwned (trusted)", reduceSessionOwned, terminalOutput),
    naive("hand-written in place: decode the output, append, encode", naiveReduceInPlace, (s) => (s.terminals.get("t") as { output?: { data: string } } | undefined)?.output?.data, naiveUpTo("2000")),
  ],
  memory: {
    heading: "Heap held by the newest state after `reduceSession` folded the output: the heap with it less the heap without it (two full GCs before each reading; the output is one-byte text)",
    columns: "| chunks | output | heap held | ÷ output's length |\n|---:|---:|---:|---:|",
    row: (count, size, expected, held) => `| ${count.toLocaleString("en-US")} | ${size} | ${held.toFixed(2)} MB | ${(held / (expected.length / 1e6)).toFixed(2)}× |`,
    keepAll: false,
  },
};

const MESSAGE: Kind = {
  name: "message",
  defaultChunks: "1000,4000,16000,64000",
  /** `count` text blocks of one message, and their text. */
  workload(count) {
    const updates: SessionUpdate[] = [];
    for (let i = 0; i < count; i++) updates.push({ sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text: ` w${i}` } } as SessionUpdate);
    return { updates, expected: updates.map((u) => (u as { content: { text: string } }).content.text).join("") };
  },
  contenders: [
    ours("ours: reduceSession", reduceSession, messageText),
    ours("ours: reduceSessionOwned (trusted)", reduceSessionOwned, messageText),
    ours("ours: reduceSession, the message read after every chunk", reduceSession, messageText, { upTo: 16_000 }),
    naive("hand-written in place: a fresh entity and list per chunk", naiveReduceInPlace, naiveText, naiveUpTo("16000")),
    naive("hand-written in place: the block pushed onto the list", naiveReduceInPlacePushing, naiveText),
  ],
  memory: {
    heading: "Heap held by every state of `reduceSession`'s fold, all kept (the heap with them less the heap without them, two full GCs before each reading), per chunk",
    columns: "| chunks | heap held, all states | per chunk |\n|---:|---:|---:|",
    row: (count, _size, _expected, held) => `| ${count.toLocaleString("en-US")} | ${held.toFixed(2)} MB | ${Math.round((held * 1e6) / count)} bytes |`,
    keepAll: true,
  },
};

/** µs per chunk with its p10-p90 range. */
function perChunk(times: readonly number[], count: number): string {
  const sorted = [...times].sort((a, b) => a - b);
  const us = (ms: number) => ((ms * 1000) / count).toFixed(2);
  return `${us(median(sorted))} (${us(sorted[Math.floor((sorted.length - 1) * 0.1)]!)}–${us(sorted[Math.ceil((sorted.length - 1) * 0.9)]!)})`;
}

/**
 * Heap (MB) held by what `reduceSession` folds from `updates`: the newest state,
 * or every state when `keepAll`; the heap with it less the heap once it is
 * dropped. Undefined without `--expose-gc`.
 */
function retainedMegabytes(updates: readonly SessionUpdate[], keepAll: boolean): number | undefined {
  if ((globalThis as { gc?: unknown }).gc === undefined) return undefined;
  const heap = () => (gc(), gc(), process.memoryUsage().heapUsed);
  let state: SessionState | undefined = emptySessionState();
  let all: SessionState[] | undefined = [];
  for (const update of updates) {
    state = reduceSession(state!, update);
    if (keepAll) all!.push(state);
  }
  // Held by an array that is emptied after the first reading: in use across it, unreachable for the second
  // (not by a variable of this function: its frame would hold it across both).
  const kept: unknown[] = [state, all];
  state = all = undefined;
  const withStates = heap();
  kept.length = 0;
  return (withStates - heap()) / 1e6;
}

function runKind(kind: Kind, chunkCounts: readonly number[]): void {
  console.log(`\n### ${kind.name}\n`);
  console.log(`| chunks |${kind.size ? ` ${kind.size.column} |` : ""} contender | µs per chunk, median (p10–p90) | time ÷ ours: reduceSession |`);
  console.log(`|---:|${kind.size ? "---:|" : ""}---|---:|---:|`);
  const memory: string[] = [];
  for (const count of chunkCounts) {
    const { updates, expected } = kind.workload(count);
    const running = kind.contenders.filter((c) => c.upTo === undefined || count <= c.upTo);
    const times = running.map((): number[] => []);
    for (let round = 0; round <= rounds; round++) {
      for (let k = 0; k < running.length; k++) {
        const i = (round + k) % running.length;
        const started = performance.now();
        const end = running[i]!.fold(updates);
        const elapsed = performance.now() - started;
        if (end !== expected) {
          console.error(`${kind.name}, ${running[i]!.name}: the end value after ${count} chunks is not what the chunks make`);
          process.exit(1);
        }
        if (round > 0) times[i]!.push(elapsed);
      }
    }
    const base = median(times[0]!);
    const size = kind.size?.of(expected) ?? "";
    running.forEach((c, i) => console.log(`| ${count.toLocaleString("en-US")} |${size ? ` ${size} |` : ""} ${c.name} | ${perChunk(times[i]!, count)} | ${(median(times[i]!) / base).toFixed(2)}× |`));
    const held = retainedMegabytes(updates, kind.memory.keepAll);
    if (held !== undefined) memory.push(kind.memory.row(count, size, expected, held));
  }
  if (memory.length > 0) console.log(`\n${kind.memory.heading}\n\n${kind.memory.columns}\n${memory.join("\n")}`);
}

const KINDS = [TERMINAL, MESSAGE];
const chosen = (stringArg("kind") ?? KINDS.map((k) => k.name).join(",")).split(",");
for (const name of chosen) {
  if (!KINDS.some((k) => k.name === name)) {
    console.error(`--kind takes ${KINDS.map((k) => k.name).join(", ")}, not ${JSON.stringify(name)}`);
    process.exit(2);
  }
}
console.log(`node ${process.version}, ${rounds} timed rounds after 1 warm-up, contenders interleaved; output chunks of ${bytesPerChunk} bytes`);
for (const kind of KINDS) if (chosen.includes(kind.name)) runKind(kind, wholeNumbers(stringArg("chunks") ?? kind.defaultChunks, "chunks"));
