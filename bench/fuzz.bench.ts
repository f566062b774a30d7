/**
 * Fuzz bench (issue 9, "Done when"): mutated ACP messages through every public
 * function of acp-bindings v1 and v2/unstable, counting throws, input mutations
 * and prototype changes (all three must be 0) and the disagreements between
 * the owned-tree path and `parse` (must be 0).
 *
 *   npx tsx bench/fuzz.bench.ts [--messages 1000000] [--seed N] [--size 20000]
 *
 * `--messages` is the total, half per surface; `--size` the number of corpus
 * messages taken as seeds (the quick run of the tests uses few). Seeds: the corpus of bench/corpus.ts (its
 * payloads and whole JSON-RPC lines as envelopes, v2/unstable) and the rulebook
 * fixtures (test/fixtures/parse, test/fixtures/session, every surface). Each
 * message is a fresh `JSON.parse` of a seed with one to three mutations:
 * replace, delete or insert a value anywhere (`__proto__`, `constructor`, ...
 * as keys; wrong types, huge integers, vendor tags as values), retag a union,
 * or, for one message in 2,000, nest a value 10^3, 10^4 or 10^5 levels deep.
 * Each message then goes through `validate.X` (and `{ all: true }` when invalid), `parse.X` (and `{ forgiven: true }` when it decodes; `parse.XFor` for
 * responses), `parseOwned.X` (on its own copy), its JSON text through
 * `parseOwned.fromText` and, 64 texts at a time, `parseOwned.fromLines` (both
 * compared with `parse.X` of `JSON.parse` of the text), and, when it carries a session
 * update: `parse.SessionUpdate`, `reduceSession`, `apply.<payload type>`,
 * `applyMeta`, and a `build.SessionUpdateToolCallUpdate` holding the message as
 * `rawInput` (which must then validate). Every input is fingerprinted before
 * and after; `Object.prototype` and the prototypes of every result are checked.
 */
import { readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import * as v1 from "../generated/src/v1/index.js";
import * as v2u from "../generated/src/v2/unstable/index.js";
import { copyJson } from "../generated/src/runtime/decode.js";
import { generateCorpus, numberArg, Rng } from "./corpus.js";
import { buildMethodTable, indexRequests, loadSchema, routeMessage, type Route } from "./route.js";

type Surface = "v1" | "v2/unstable";
type Fn = (...args: any[]) => any;
type Entry = Record<"parse" | "validate" | "parseOwned" | "apply" | "build", Record<string, Fn>> & {
  reduceSession: Fn;
  emptySessionState: Fn;
  applyMeta: Fn;
};
const ENTRIES: Record<Surface, Entry> = { v1: v1 as unknown as Entry, "v2/unstable": v2u as unknown as Entry };

/** A message to mutate: its type (def name) and JSON text; `method` for a response decoded by method. */
interface Seed {
  readonly type: string;
  readonly text: string;
  readonly method?: string;
}

// ---------------------------------------------------------------------------
// Seeds

const FIXTURES = new URL("../test/fixtures/", import.meta.url);

function fixtureCases(folder: string): { surfaces: string[]; type?: string; input?: unknown; updates?: unknown[] }[] {
  const dir = new URL(`${folder}/`, FIXTURES);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .flatMap((f) => JSON.parse(readFileSync(new URL(f, dir), "utf8")).cases);
}

function seedsOf(surface: Surface, corpusSize: number | undefined): Seed[] {
  const seeds: Seed[] = [];
  for (const c of fixtureCases("parse")) if (c.surfaces.includes(surface)) seeds.push({ type: c.type!, text: JSON.stringify(c.input) });
  const notification = surface === "v1" ? "SessionNotification" : "UpdateSessionNotification";
  for (const c of fixtureCases("session")) {
    if (!c.surfaces.includes(surface)) continue;
    for (const update of c.updates!) {
      seeds.push({ type: "SessionUpdate", text: JSON.stringify(update) });
      seeds.push({ type: notification, text: JSON.stringify({ sessionId: "s1", update }) });
    }
  }
  if (surface === "v2/unstable") seeds.push(...corpusSeeds(corpusSize));
  return seeds;
}

/** The envelope a routed message arrives in (a connection knows its side). */
function envelopeOf(route: Route): string | undefined {
  if (route.receiver !== "agent" && route.receiver !== "client") return undefined;
  const sender = route.receiver === "agent" ? "Client" : "Agent";
  if (route.kind === "request") return `${sender}Request`;
  if (route.kind === "notification") return `${sender}Notification`;
  return route.kind === "response" ? `${sender}Response` : undefined;
}

function corpusSeeds(size: number | undefined): Seed[] {
  const lines = generateCorpus({ size });
  const table = buildMethodTable(loadSchema());
  const requests = indexRequests(lines.map((l) => JSON.parse(l)));
  const seeds: Seed[] = [];
  for (const line of lines) {
    const route = routeMessage(JSON.parse(line), table, requests);
    if (route === undefined) continue;
    seeds.push({ type: route.def, text: JSON.stringify(route.value ?? null) });
    const envelope = envelopeOf(route);
    if (envelope) seeds.push({ type: envelope, text: line, ...(route.kind === "response" ? { method: route.method } : {}) });
  }
  return seeds;
}

// ---------------------------------------------------------------------------
// Mutations

const KEYS = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "_meta", "type", "sessionUpdate", "content", "title", "x_unknown", "method", "params", "result"];
const TAGS = ["tool_call", "tool_call_update", "agent_message_chunk", "state_update", "text", "image", "idle", "running", "_vendor/x", "zzz", ""];
const POOL_TEXT = [
  "null", "true", "0", "-1", "1.5", "18446744073709551615", "18446744073709555712", "-9223372036854775808", "1e308", '""', '"x"', '"_vendor"',
  "[]", "{}", '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":1}}}', '[{"__proto__":[]},null]', '{"type":"text","text":"t"}',
];

type Json = unknown;
type Container = Record<string, Json> | Json[];

/** Every container of `root` with its keys, iteratively (messages of the seed set are small). */
function containers(root: Json): Container[] {
  const out: Container[] = [];
  const pending = [root];
  for (let v = pending.pop(); v !== undefined; v = pending.pop()) {
    if (typeof v !== "object" || v === null) continue;
    out.push(v as Container);
    for (const child of Object.values(v)) pending.push(child);
  }
  return out;
}

/** Defines `key` as an own data property (a `__proto__` key stays data, S34). */
function define(target: Container, key: string | number, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** JSON text `depth` containers deep, with `__proto__` keys on the way. */
function deepText(depth: number): string {
  const open: string[] = [];
  for (let i = 0; i < depth; i++) open.push(i % 3 === 0 ? '{"__proto__":' : i % 3 === 1 ? '{"k":' : "[");
  return open.join("") + "1" + open.map((o) => (o === "[" ? "]" : "}")).reverse().join("");
}

const DEEP = [1e3, 1e4, 1e5].map(deepText);

function mutate(rng: Rng, root: { value: Json }, seeds: readonly Seed[]): boolean {
  const all = containers(root.value);
  const target = all[rng.int(0, all.length - 1)];
  if (target === undefined) {
    root.value = JSON.parse(POOL_TEXT[rng.int(0, POOL_TEXT.length - 1)]!);
    return false;
  }
  const keys = Object.keys(target);
  const key = Array.isArray(target) ? rng.int(0, Math.max(0, target.length - 1)) : keys[rng.int(0, Math.max(0, keys.length - 1))] ?? "x";
  const deep = rng.chance(1 / 2000);
  const value = deep
    ? JSON.parse(DEEP[rng.int(0, DEEP.length - 1)]!)
    : rng.chance(0.2)
      ? JSON.parse(seeds[rng.int(0, seeds.length - 1)]!.text)
      : JSON.parse(POOL_TEXT[rng.int(0, POOL_TEXT.length - 1)]!);
  switch (deep ? 0 : rng.int(0, 3)) {
    case 0:
      define(target, key, value);
      break;
    case 1:
      if (Array.isArray(target)) target.splice(Number(key), 1);
      else delete target[key];
      break;
    case 2:
      if (!Array.isArray(target)) define(target, KEYS[rng.int(0, KEYS.length - 1)]!, value);
      break;
    default:
      for (const tag of ["type", "sessionUpdate", "state", "outcome", "method"]) {
        if (!Array.isArray(target) && Object.hasOwn(target, tag)) define(target, tag, TAGS[rng.int(0, TAGS.length - 1)]!);
      }
  }
  return deep;
}

// ---------------------------------------------------------------------------
// Fingerprints (iterative: messages can be 10^5 levels deep)

/** A hash of a JSON value; `sorted` ignores key order (the owned path keeps wire order). */
function fingerprint(value: Json, sorted = false): string {
  let h1 = 0x811c9dc5;
  let h2 = 0;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) h1 = Math.imul(h1 ^ text.charCodeAt(i), 16777619);
    h2 = (h2 + text.length * 31 + 7) | 0;
  };
  const pending: Json[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v !== "object" || v === null) {
      mix(typeof v === "string" ? `s${v}` : `${typeof v}${String(v)}`);
      continue;
    }
    const keys = Object.keys(v);
    if (sorted && !Array.isArray(v)) keys.sort();
    mix(Array.isArray(v) ? `[${keys.length}` : `{${keys.length}`);
    for (const key of keys) {
      mix(key);
      pending.push((v as Record<string, Json>)[key]);
    }
  }
  return `${h1 >>> 0}:${h2}`;
}

/** Every object in `value` has a plain prototype (S34). */
function plainPrototypes(value: Json): boolean {
  const pending = [value];
  for (let v = pending.pop(); v !== undefined; v = pending.pop()) {
    if (typeof v !== "object" || v === null) continue;
    if (Object.getPrototypeOf(v) !== (Array.isArray(v) ? Array.prototype : Object.prototype)) return false;
    for (const child of Object.values(v)) pending.push(child);
  }
  return true;
}

function prototypesUntouched(): boolean {
  return Object.keys(Object.prototype).length === 0 && Object.keys(Array.prototype).length === 0 && ({} as { polluted?: unknown }).polluted === undefined;
}

// ---------------------------------------------------------------------------
// The run

interface Counts {
  calls: Map<string, number>;
  throws: Map<string, number>;
  firstThrows: string[];
  mutations: number;
  prototypeChanges: number;
  ownedDisagreements: number;
  buildInvalid: number;
  /** `validate.X(v, { all: true })` gave another verdict than `validate.X(v)`, or no issue. */
  allIssuesWrong: number;
  /** `parse.X(value, { forgiven: true })` whose value differs from `parse.X(value)`'s, or without a list. */
  forgivenWrong: number;
  deep: number;
}

/** The `sessionUpdate` tag -> its payload type, for the tags whose payload has an `apply.X`. */
function applyTypes(surface: Surface, entry: Entry): Map<string, string> {
  const file = surface === "v1" ? "v1/schema.json" : "v2/schema.unstable.json";
  const schema = loadSchema(new URL(`../schema/${file}`, import.meta.url));
  const union = schema.$defs.SessionUpdate as { oneOf?: Record<string, any>[]; anyOf?: Record<string, any>[] };
  const map = new Map<string, string>();
  for (const branch of union.oneOf ?? union.anyOf ?? []) {
    const tag = branch.properties?.sessionUpdate?.const;
    const payload = String(branch.allOf?.[0]?.$ref ?? "").split("/").pop()!;
    if (typeof tag === "string" && entry.apply[payload]) map.set(tag, payload);
  }
  return map;
}

/** The session update a message carries, if any. */
function updateOf(seed: Seed, value: any): unknown {
  if (typeof value !== "object" || value === null) return undefined;
  if (seed.type === "SessionUpdate") return value;
  if (seed.type === "SessionNotification" || seed.type === "UpdateSessionNotification") return value.update;
  if (seed.type === "AgentNotification" && value.method === "session/update") return value.params?.update;
  return undefined;
}

/** `JSON.stringify(value)`, or undefined for a value too deep for it (it recurses). */
function jsonText(value: Json): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function run(surface: Surface, messages: number, seed: number, corpusSize: number | undefined, counts: Counts): void {
  const entry = ENTRIES[surface];
  const seeds = seedsOf(surface, corpusSize);
  const payloads = applyTypes(surface, entry);
  const rng = new Rng(seed);
  let state = entry.emptySessionState();
  let stored = new Map<string, unknown>();
  let meta: unknown;
  /** Texts waiting for `fromLines`, each with its decoder and the fingerprint of `parse`'s result for it. */
  const texts: { text: string; decode: Fn; expected: string }[] = [];

  const call = <T>(name: string, fn: () => T): T | undefined => {
    counts.calls.set(name, (counts.calls.get(name) ?? 0) + 1);
    try {
      return fn();
    } catch (error) {
      counts.throws.set(name, (counts.throws.get(name) ?? 0) + 1);
      const where = `${surface} ${name}: `;
      if (!counts.firstThrows.some((line) => line.startsWith(where))) counts.firstThrows.push(where + String((error as Error).message).slice(0, 200));
      return undefined;
    }
  };

  /** `fromLines` of the waiting texts, each result compared with `parse`'s. */
  const flushTexts = (): void => {
    const results = call("parseOwned.fromLines", () => entry.parseOwned.fromLines!(texts.map((t) => t.text), (v: unknown, i: number) => texts[i]!.decode(v)));
    results?.forEach((result: Json, i: number) => {
      if (fingerprint(result, true) !== texts[i]!.expected) counts.ownedDisagreements++;
    });
    texts.length = 0;
  };

  for (let n = 0; n < messages; n++) {
    if (n % 500 === 0) {
      state = entry.emptySessionState();
      stored = new Map();
      meta = undefined;
    }
    const s = seeds[rng.int(0, seeds.length - 1)]!;
    const root = { value: JSON.parse(s.text) as Json };
    let deep = false;
    for (let m = rng.int(1, 3); m > 0; m--) deep = mutate(rng, root, seeds) || deep;
    if (deep) counts.deep++;
    const value = root.value;
    const owned = copyJson(value);
    const before = fingerprint(value);

    const asked = s.method;
    const validated = call(`validate.${s.type}`, () => entry.validate[s.type]!(value));
    const parsed = call(`parse.${s.type}${asked ? "For" : ""}`, () => (asked ? entry.parse[`${s.type}For`]!(asked, value) : entry.parse[s.type]!(value)));
    const ownedResult = call(`parseOwned.${s.type}${asked ? "For" : ""}`, () =>
      asked ? entry.parseOwned[`${s.type}For`]!(asked, owned) : entry.parseOwned[s.type]!(owned),
    );
    if (validated?.ok && validated.value !== value) counts.mutations++; // validate returns its input itself
    if (validated && !validated.ok) {
      const all = call(`validate.${s.type} (all issues)`, () => entry.validate[s.type]!(value, { all: true }));
      if (all && (all.ok || all.issues.length === 0)) counts.allIssuesWrong++;
    }
    if (!asked && parsed?.ok) {
      const told = call(`parse.${s.type} (forgiven)`, () => entry.parse[s.type]!(value, { forgiven: true }));
      if (told && (!told.ok || !Array.isArray(told.forgiven) || fingerprint(told.value, true) !== fingerprint(parsed.value, true))) counts.forgivenWrong++;
    }
    if (parsed && ownedResult && fingerprint(parsed, true) !== fingerprint(ownedResult, true)) counts.ownedDisagreements++;
    const text = jsonText(value);
    if (text !== undefined) {
      const decode: Fn = asked ? (v) => entry.parseOwned[`${s.type}For`]!(asked, v) : entry.parseOwned[s.type]!;
      const reparsed = call(`parse.${s.type}${asked ? "For" : ""}`, () => (asked ? entry.parse[`${s.type}For`]!(asked, JSON.parse(text)) : entry.parse[s.type]!(JSON.parse(text))));
      const fromText = call("parseOwned.fromText", () => entry.parseOwned.fromText!(text, decode));
      if (reparsed !== undefined) {
        const expected = fingerprint(reparsed, true);
        if (fromText && fingerprint(fromText, true) !== expected) counts.ownedDisagreements++;
        texts.push({ text, decode, expected });
        if (texts.length === 64) flushTexts();
      }
    }
    if ((parsed?.ok && !plainPrototypes(parsed.value)) || (ownedResult?.ok && !plainPrototypes(ownedResult.value))) counts.prototypeChanges++;

    const update = updateOf(s, value);
    if (update !== undefined) {
      const typed = call("parse.SessionUpdate", () => entry.parse.SessionUpdate!(update));
      if (typed?.ok) {
        const next = call("reduceSession", () => entry.reduceSession(state, typed.value));
        if (next !== undefined) state = next;
        const payload = payloads.get(typed.value.sessionUpdate);
        const patch = payload ? entry.parse[payload]!(update) : undefined;
        if (payload && patch?.ok) {
          const applied = call(`apply.${payload}`, () => entry.apply[payload]!(stored.get(payload), patch.value));
          if (applied !== undefined) stored.set(payload, applied);
        }
        const metaPatch = (typed.value as { _meta?: unknown })._meta;
        const nextMeta = call("applyMeta", () => entry.applyMeta(meta, metaPatch));
        meta = nextMeta;
      }
    }
    const built = call("build.SessionUpdateToolCallUpdate", () => (entry.build.SessionUpdateToolCallUpdate!("t1") as any).rawInput(value).build());
    if (built !== undefined && !entry.validate.SessionUpdate!(built).ok) counts.buildInvalid++;

    if (fingerprint(value) !== before) counts.mutations++;
    if (!prototypesUntouched()) counts.prototypeChanges++;
  }
  if (texts.length > 0) flushTexts();
}

function main(): void {
  const messages = Math.ceil((numberArg("messages") ?? 1_000_000) / 2);
  const seed = numberArg("seed") ?? 9;
  const counts: Counts = { calls: new Map(), throws: new Map(), firstThrows: [], mutations: 0, prototypeChanges: 0, ownedDisagreements: 0, buildInvalid: 0, allIssuesWrong: 0, forgivenWrong: 0, deep: 0 };
  const start = performance.now();
  for (const surface of ["v2/unstable", "v1"] as const) {
    const t0 = performance.now();
    run(surface, messages, seed, numberArg("size"), counts);
    console.log(`${surface}: ${messages.toLocaleString("en-US")} messages in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  const calls = [...counts.calls.values()].reduce((a, b) => a + b, 0);
  const throws = [...counts.throws.values()].reduce((a, b) => a + b, 0);
  console.log(`total: ${(2 * messages).toLocaleString("en-US")} messages (${counts.deep} nested 10^3..10^5 deep), ` +
    `${calls.toLocaleString("en-US")} calls into ${counts.calls.size} functions, ${((performance.now() - start) / 1000).toFixed(1)} s`);
  console.log(`throws: ${throws}; input mutations: ${counts.mutations}; prototype changes: ${counts.prototypeChanges}; ` +
    `parseOwned != parse: ${counts.ownedDisagreements}; built values failing validate: ${counts.buildInvalid}; ` +
    `validate { all: true } verdict or issues wrong: ${counts.allIssuesWrong}; parse { forgiven: true } value or list wrong: ${counts.forgivenWrong}`);
  for (const [name, n] of [...counts.throws].sort()) console.log(`  ${name} threw ${n} of ${counts.calls.get(name)} calls`);
  for (const line of counts.firstThrows) console.log(`  first: ${line}`);
  if (throws || counts.mutations || counts.prototypeChanges || counts.ownedDisagreements || counts.buildInvalid || counts.allIssuesWrong || counts.forgivenWrong) process.exitCode = 1;
}

main();
