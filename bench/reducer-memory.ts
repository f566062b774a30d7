/**
 * Where the bytes of the session states go: the 4-kind stream of issue 11
 * (see reducer.bench.ts) folded with every intermediate state kept, each
 * update decoded just before it is reduced, and the heap objects this made
 * counted by what holds them, in bytes per update (V8's own object sizes).
 *
 *   npx tsx --expose-gc bench/reducer-memory.ts [--owned] [--size N]
 *
 * Method: a heap snapshot (`v8.writeHeapSnapshot`, after two `gc()`) before
 * and after the fold; every object new in the second is given the category
 * of the object that holds it (an object's internal stores, e.g. an array's
 * elements, go with their object), starting from what can be told by itself:
 * a state (it has `toolCalls`), a timeline entry, a `PersistentMap` (map
 * version, which holds its newest edit), a trie `Leaf`. The value of a leaf
 * or of a version's edit is an entity, its `content` array the entity's content list, and so on. Strings
 * are left out (the decoded updates share them with the pristine corpus);
 * this script's own objects, code and V8's fall under "other", not counted.
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeHeapSnapshot } from "node:v8";
import * as bindings from "../generated/src/v2/unstable/index.js";
import { FOUR_KINDS, generateCorpus, numberArg } from "./corpus.js";

/** The heap snapshot format's parts this script reads. */
interface Snapshot {
  readonly snapshot: { readonly meta: { readonly node_fields: string[]; readonly node_types: [string[]]; readonly edge_fields: string[]; readonly edge_types: [string[]] } };
  readonly nodes: number[];
  readonly edges: number[];
  readonly strings: string[];
}

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error("run with --expose-gc");
  collect();
  collect();
}

function snapshot(): Snapshot {
  gc();
  const file = writeHeapSnapshot(join(tmpdir(), `reducer-memory-${process.pid}.heapsnapshot`));
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Snapshot;
  } finally {
    rmSync(file, { force: true });
  }
}

/** The node ids of a snapshot. */
function idsOf(heap: Snapshot): Set<number> {
  const width = heap.snapshot.meta.node_fields.length;
  const ids = new Set<number>();
  for (let i = 0; i < heap.nodes.length; i += width) ids.add(heap.nodes[i + 2]!);
  return ids;
}

/** Bytes per category of the objects of `heap` whose ids are not in `old`. */
function categorise(heap: Snapshot, old: ReadonlySet<number>): Map<string, number> {
  const meta = heap.snapshot.meta;
  const width = meta.node_fields.length;
  const edgeWidth = meta.edge_fields.length;
  const count = heap.nodes.length / width;
  const type = (n: number) => meta.node_types[0][heap.nodes[n * width]!]!;
  const name = (n: number) => heap.strings[heap.nodes[n * width + 1]!]!;
  const isNew = (n: number) => !old.has(heap.nodes[n * width + 2]!);
  const properties: string[][] = Array.from({ length: count }, () => []);
  const holder = new Int32Array(count).fill(-1);
  const holderEdge: string[] = [];
  for (let n = 0, e = 0; n < count; n++) {
    const edges = heap.nodes[n * width + 4]!;
    for (let k = 0; k < edges; k++, e += edgeWidth) {
      const edgeType = meta.edge_types[0][heap.edges[e]!]!;
      if (edgeType === "weak" || edgeType === "shortcut") continue;
      const to = heap.edges[e + 2]! / width;
      const edgeName = edgeType === "element" || edgeType === "hidden" ? "#" : heap.strings[heap.edges[e + 1]!]!;
      if (edgeType === "property") properties[n]!.push(edgeName);
      // A new object's holder: a new JS object, else a new internal store.
      const candidate = isNew(n) && (type(n) === "object" || type(n) === "array");
      const better = holder[to] === -1 || (type(holder[to]!) !== "object" && type(n) === "object");
      if (candidate && better) {
        holder[to] = n;
        holderEdge[to] = edgeName;
      }
    }
  }
  const known = new Map<number, string>();
  const categoryOf = (n: number, depth = 0): string => {
    const cached = known.get(n);
    if (cached !== undefined) return cached;
    const category = classify(n, depth);
    known.set(n, category);
    return category;
  };
  const classify = (n: number, depth: number): string => {
    const props = properties[n]!;
    if (type(n) === "object" && name(n) === "PersistentMap") return "map version (PersistentMap)";
    if (type(n) === "object" && name(n) === "Leaf") return "trie leaf";
    if (type(n) === "object" && props.includes("toolCalls") && props.includes("timeline")) return "state object";
    if (type(n) === "object" && props.length === 2 && props.includes("kind") && props.includes("id")) return "timeline entry";
    if (type(n) === "object" && name(n) === "GrowingList") return "entity's content list, a view (unread)";
    if (type(n) === "object" && name(n) === "ListStore") return "content list store (shared by its views)";
    if (holder[n] === -1 || depth > 64) return "other";
    const outer = categoryOf(holder[n]!, depth + 1);
    const edge = holderEdge[n]!;
    if (type(n) !== "object") return outer; // an internal store goes with its object
    if ((outer === "trie leaf" && edge === "value") || (outer === "map version (PersistentMap)" && edge === "#value")) return "entity";
    if (outer === "map version (PersistentMap)" || outer === "trie path copy (inner nodes)") return name(n) === "Array" ? "trie path copy (inner nodes)" : "other";
    if (outer === "state object" && edge === "timeline") return "timeline, copied per new entity";
    if (outer === "entity" && edge === "content") return "entity's content list";
    if (outer === "content list store (shared by its views)" && edge === "items") return outer;
    if (outer === "entity's content list" || outer === "content list store (shared by its views)" || outer === "content item") return "content item";
    if (outer === "entity" || outer === "other values inside entities") return "other values inside entities";
    return outer === "state object" ? "state's other values" : "other";
  };
  const bytes = new Map<string, number>();
  for (let n = 0; n < count; n++) {
    const t = type(n);
    if (!isNew(n) || t === "string" || t === "concatenated string" || t === "sliced string" || t === "synthetic") continue;
    const category = categoryOf(n);
    bytes.set(category, (bytes.get(category) ?? 0) + heap.nodes[n * width + 3]!);
  }
  return bytes;
}

function main(): void {
  const owned = process.argv.includes("--owned");
  const reduce = owned ? bindings.reduceSessionOwned : bindings.reduceSession;
  const items: { sessionId: string; update: bindings.SessionUpdate }[] = [];
  for (const line of generateCorpus({ size: numberArg("size") })) {
    const message = JSON.parse(line) as { method?: string; params?: { sessionId?: unknown; update?: unknown } };
    if (message.method !== "session/update" || typeof message.params?.sessionId !== "string") continue;
    const parsed = bindings.parse.SessionUpdate(message.params.update);
    if (parsed.ok && FOUR_KINDS.has(parsed.value.sessionUpdate)) items.push({ sessionId: message.params.sessionId, update: parsed.value });
  }
  const before = idsOf(snapshot());
  const kept: bindings.SessionState[] = [];
  const states = new Map<string, bindings.SessionState>();
  for (const { sessionId, update } of items) {
    const decoded = bindings.parse.SessionUpdate(update);
    if (!decoded.ok) throw new Error("a decoded update no longer parses");
    const next = reduce(states.get(sessionId) ?? bindings.emptySessionState(), decoded.value);
    states.set(sessionId, next);
    kept.push(next);
  }
  const bytes = categorise(snapshot(), before);
  const perUpdate = (n: number) => (n / items.length).toFixed(1);
  const other = bytes.get("other") ?? 0;
  bytes.delete("other");
  console.log(`${owned ? "reduceSessionOwned" : "reduceSession"}, 4-kind stream, ${items.length} updates, ${kept.length} states kept; bytes per update:\n`);
  console.log("| what | bytes per update |\n|---|---:|");
  for (const [category, n] of [...bytes].sort((a, b) => b[1] - a[1])) console.log(`| ${category} | ${perUpdate(n)} |`);
  console.log(`| **the states** | **${perUpdate([...bytes.values()].reduce((a, b) => a + b, 0))}** |`);
  console.log(`\nnot counted: ${perUpdate(other)} bytes per update of other new objects (this script's own, such as the snapshot's id set and the list of kept states; code; V8's)`);
}

main();
