/**
 * Parse/validate throughput over the v2-unstable corpus, one process run.
 *
 *   npx tsx bench/parse.bench.ts [--rounds 15] [--warmup 3] [--seed N] [--size N] [--corpus file.jsonl]
 *   npx tsx bench/parse.bench.ts --rounds 1 --warmup 0 --size 2000   # quick form: the table's shape only
 *   npx tsx bench/parse.bench.ts --verdicts      # ours vs ajv / SDK zod, message by message
 *   (add --ours <module> to point at another build of acp-bindings v2/unstable, and
 *   --before <module> to add the owned-tree rows of a second build, e.g. main's, to the same run)
 *
 * Every contender does the same per message: `JSON.parse` the line, route it
 * to its payload `$def` (route.ts, shared), then check the payload with its
 * own validator for that def. One more row is what a user of acp-bindings
 * runs on a line: `parseOwned.fromText(line, <envelope decoder>)`, which
 * parses the text and decodes the whole envelope, routing by method inside
 * (the receiving side and, for a response, the asked method are known to a
 * connection; here they are read from the corpus before timing). Validators
 * are resolved and compiled before any timing. Rounds interleave the contenders (rotating their order) so drift in
 * machine speed spreads over all of them; the table reports the median round
 * and the p10-p90 spread.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { loadSdkZod, makeAjv } from "./anchors.js";
import { generateCorpus, numberArg } from "./corpus.js";
import {
  buildMethodTable, indexRequests, isRecord, loadSchema, routeMessage,
  type MethodTable, type RequestMethods, type Route,
} from "./route.js";

// ---------------------------------------------------------------------------
// Inputs

/** The corpus plus everything derived from it once, outside timing. */
export interface Workload {
  lines: string[];
  bytes: number;
  table: MethodTable;
  requests: RequestMethods;
  /** The `$defs` keys the corpus routes to. */
  defs: string[];
  /** Each line's route without its payload (found once, outside timing; holding the payloads would keep the whole parsed corpus alive). */
  routes: (LineRoute | undefined)[];
}

/** What a connection knows of a line before decoding it: its kind, the side receiving it, the (asked) method. */
type LineRoute = Pick<Route, "kind" | "method" | "receiver">;

export function loadWorkload(): Workload {
  const corpusArg = stringArg("corpus");
  const lines = corpusArg
    ? readFileSync(corpusArg, "utf8").split("\n").filter((l) => l.length > 0)
    : generateCorpus({ seed: numberArg("seed"), size: numberArg("size") });
  const table = buildMethodTable(loadSchema());
  const messages = lines.map((l) => JSON.parse(l) as unknown);
  const requests = indexRequests(messages);
  const routes: (LineRoute | undefined)[] = [];
  const defs = new Set<string>();
  for (const msg of messages) {
    const route = routeMessage(msg, table, requests);
    if (route) defs.add(route.def);
    routes.push(route && { kind: route.kind, method: route.method, receiver: route.receiver });
  }
  const bytes = lines.reduce((n, l) => n + Buffer.byteLength(l), 0);
  return { lines, bytes, table, requests, defs: [...defs].sort(), routes };
}

function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

// ---------------------------------------------------------------------------
// Contenders

/** Checks one payload; true when the contender accepts it. */
type Check = (value: unknown) => boolean;

/** Decodes one whole line (text to value); true when it decodes. */
type LineCheck = (line: string) => boolean;

interface Contender {
  name: string;
  /** Resolves the check for a `$def`; absent for the JSON.parse floor. */
  resolve?: (def: string) => Check;
  /** Instead of `JSON.parse` + route + check: each line's own whole-line decoder (chosen before timing). */
  lineChecks?: (work: Workload) => LineCheck[];
}

/** A generated entry point: `parse.X` / `validate.X` for every `$defs` key X. */
type Result = { ok: true; value: unknown } | { ok: false; issues: { path: string; message: string }[] };
/** The owned-tree decoders: `X(value)`, `XFor(method, value)` of responses, and `fromText(text, decoder)`. */
type OwnedDecoders = Record<string, ((value: unknown) => Result) | undefined> & {
  fromText?: (text: string, decode: (value: unknown) => Result) => Result;
};
export interface Ours {
  parse: Record<string, ((value: unknown) => Result) | undefined>;
  validate: Record<string, ((value: unknown) => Result) | undefined>;
  /** The owned-tree decode path (absent in builds before it). */
  parseOwned?: OwnedDecoders;
}

const OURS_DEFAULT = new URL("../generated/src/v2/unstable/index.ts", import.meta.url);

/**
 * Loads acp-bindings v2/unstable, or explains why it cannot; `notYet` marks
 * the expected case of a module that is not generated (yet).
 */
export async function loadOurs(): Promise<Ours | { missing: string; notYet: boolean }> {
  const override = stringArg("ours");
  const url = override ? pathToFileURL(override) : OURS_DEFAULT;
  try {
    const mod = (await import(url.href)) as Partial<Ours>;
    if (!isRecord(mod.parse) || !isRecord(mod.validate)) {
      return { missing: `${url.pathname} has no parse/validate exports (yet)`, notYet: !override };
    }
    return mod as Ours;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" && !override) return { missing: "generated/src/v2/unstable/index.ts not generated yet", notYet: true };
    return { missing: `failed to load ${url.pathname}: ${(error as Error).message}`, notYet: false };
  }
}

function ourCheck(fns: Ours["parse"], kind: string): (def: string) => Check {
  return (def) => {
    const fn = fns[def];
    if (fn === undefined) throw new Error(`ours: no ${kind}.${def}`);
    return (value) => fn(value).ok;
  };
}

/** The contender list; rows for ours are replaced by notes when it is missing. */
async function contenders(): Promise<{ list: Contender[]; notes: string[] }> {
  const schema = loadSchema();
  const ajv = makeAjv(schema, { integerFormats: false });
  const zod = await loadSdkZod();
  const list: Contender[] = [
    { name: "JSON.parse (floor)" },
    { name: "JSON.parse + route only", resolve: () => () => true },
    // What reading the whole fresh tree costs, with no check at all: the floor of any exact owned-tree check.
    { name: "JSON.parse + route + read every value", resolve: () => readsEveryValue },
    { name: "JSON.parse + SDK zod", resolve: (def) => { const s = zod(def); return (v) => s.safeParse(v).success; } },
    { name: "JSON.parse + ajv", resolve: (def) => { const f = ajv(def); return (v) => f(v) as boolean; } },
  ];
  const notes: string[] = [];
  const ours = await loadOurs();
  if ("missing" in ours) notes.push(`ours skipped: ${ours.missing}`);
  else {
    list.push({ name: "JSON.parse + ours parse", resolve: ourCheck(ours.parse, "parse") });
    list.push({ name: "JSON.parse + ours validate", resolve: ourCheck(ours.validate, "validate") });
    // The tree JSON.parse made in the pass is owned by it: the owned path may return it as is.
    list.push(...ownedRows("ours", ours));
  }
  const before = stringArg("before");
  if (before) list.push(...ownedRows("before", (await import(pathToFileURL(before).href)) as Ours));
  return { list, notes };
}

/** The owned-tree rows of a build: payloads after the bench's routing, and whole lines. */
function ownedRows(label: string, build: Ours): Contender[] {
  const owned = build.parseOwned;
  if (owned === undefined) return [];
  const rows: Contender[] = [{ name: `JSON.parse + ${label} parseOwned (owned tree)`, resolve: ourCheck(owned, "parseOwned") }];
  if (owned.fromText) rows.push({ name: `${label} parseOwned.fromText, whole line`, lineChecks: (work) => work.routes.map((r) => wholeLine(owned, r)) });
  return rows;
}

/**
 * `parseOwned.fromText(line, decoder)` with the envelope decoder of the side
 * that receives the line: `ClientRequest` / `ClientNotification` /
 * `ClientResponseFor(method)` for the agent, `Agent*` for the client. A
 * message any side may receive (extension and protocol notifications, errors)
 * is read as the client reads it.
 */
function wholeLine(owned: OwnedDecoders, route: LineRoute | undefined): LineCheck {
  const sender = route?.receiver === "agent" ? "Client" : "Agent";
  const fromText = owned.fromText!;
  if (route?.kind === "request" || route?.kind === "notification") {
    const decode = owned[`${sender}${route.kind === "request" ? "Request" : "Notification"}`]!;
    return (line) => fromText(line, decode).ok;
  }
  const asked = owned[`${sender}ResponseFor`] as unknown as (method: string, value: unknown) => Result;
  const method = route?.method ?? "";
  const decode = (value: unknown) => asked(method, value);
  return (line) => fromText(line, decode).ok;
}

/** Scratch stack of `readsEveryValue` (reused: the walk allocates nothing). */
const pending: unknown[] = [];

/**
 * Visits every value of a JSON tree (`for in` over objects, index over
 * arrays, `typeof` of each value) without checking anything; iterative, so
 * any depth `JSON.parse` makes is fine. Always true.
 */
function readsEveryValue(value: unknown): boolean {
  pending.push(value);
  while (pending.length) {
    const v = pending.pop();
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) pending.push(v[i]);
    else for (const key in v) pending.push((v as Record<string, unknown>)[key]);
  }
  return true;
}

// ---------------------------------------------------------------------------
// Timing

/** The per-row work of one pass: the floor, payload checks by `$def`, or one decoder per line. */
type PassWork = Map<string, Check> | LineCheck[] | undefined;

/** One pass over the corpus; returns the number of accepted messages. */
function pass(work: Workload, checks: PassWork): number {
  const { lines, table, requests } = work;
  let accepted = 0;
  if (Array.isArray(checks)) {
    for (let i = 0; i < lines.length; i++) if (checks[i]!(lines[i]!)) accepted++;
    return accepted;
  }
  if (checks === undefined) {
    for (let i = 0; i < lines.length; i++) if (JSON.parse(lines[i]!) !== undefined) accepted++;
    return accepted;
  }
  for (let i = 0; i < lines.length; i++) {
    const route: Route | undefined = routeMessage(JSON.parse(lines[i]!), table, requests);
    if (route !== undefined && checks.get(route.def)!(route.value)) accepted++;
  }
  return accepted;
}

interface Row {
  name: string;
  accepted: number;
  /** Milliseconds per round. */
  times: number[];
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Times `reps` passes after one untimed pass of the same contender (which pays for the young
 * garbage the previous contender left and brings the heap to this contender's steady state);
 * returns milliseconds per pass and the accepted count. No GC is forced here: a forced full GC
 * leaves the young generation shrunk, which a process decoding a live stream never has, and
 * made every allocating row 1.5-2x slower in the samples after it (README, "GC policy").
 */
function sample(work: Workload, checks: PassWork, reps: number): { ms: number; accepted: number } {
  pass(work, checks);
  let accepted = 0;
  const start = performance.now();
  for (let r = 0; r < reps; r++) accepted = pass(work, checks);
  return { ms: (performance.now() - start) / reps, accepted };
}

/**
 * Runs warm-up then timed rounds, rotating the contender order each round, after one full GC.
 * A fast contender repeats the corpus within one sample so that each sample
 * lasts at least `minSampleMs` (timer and GC noise would dominate otherwise);
 * the reported time is per pass over the corpus.
 */
function measure(work: Workload, list: Contender[], rounds: number, warmup: number, minSampleMs = 200): Row[] {
  gc();
  const checks: PassWork[] = list.map((c) => (c.lineChecks ? c.lineChecks(work) : c.resolve ? new Map(work.defs.map((d) => [d, c.resolve!(d)])) : undefined));
  const rows: Row[] = list.map((c) => ({ name: c.name, accepted: 0, times: [] }));
  const reps = list.map(() => 1);
  for (let round = -warmup; round < rounds; round++) {
    for (let k = 0; k < list.length; k++) {
      const i = (k + Math.max(round, 0)) % list.length;
      const { ms, accepted } = sample(work, checks[i], reps[i]!);
      if (round < 0) reps[i] = Math.max(1, Math.ceil(minSampleMs / ms));
      else {
        rows[i]!.times.push(ms);
        rows[i]!.accepted = accepted;
      }
    }
  }
  return rows;
}

function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

// ---------------------------------------------------------------------------
// Report

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * Markdown table: throughput from the median round, spread from the p10/p90
 * rounds. "time ÷ JSON.parse" is the slowdown over the floor; "speed ÷ X" is
 * how many times faster than X (above 1 = faster).
 */
export function table(work: Workload, rows: Row[]): string {
  const n = work.lines.length;
  const median = (r: Row | undefined) => (r ? quantile([...r.times].sort((a, b) => a - b), 0.5) : NaN);
  const floor = median(rows[0]);
  const zod = median(rows.find((r) => r.name.includes("zod")));
  const ajv = median(rows.find((r) => r.name.includes("ajv")));
  const out = [
    "| contender | accepted | msgs/s median | MB/s median | spread msgs/s (p10–p90) | time ÷ JSON.parse | speed ÷ SDK zod / ajv |",
    "|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const row of rows) {
    const sorted = [...row.times].sort((a, b) => a - b);
    const ms = quantile(sorted, 0.5);
    const rate = (t: number) => n / (t / 1000);
    out.push(`| ${row.name} | ${fmt(row.accepted)} | ${fmt(rate(ms))} | ${fmt(work.bytes / 1e6 / (ms / 1000), 1)} | ` +
      `${fmt(rate(quantile(sorted, 0.9)))}–${fmt(rate(quantile(sorted, 0.1)))} | ${fmt(ms / floor, 2)}× | ` +
      `${fmt(zod / ms, 2)}× / ${fmt(ajv / ms, 2)}× |`);
  }
  return out.join("\n");
}

function header(work: Workload, rounds: number, warmup: number): string {
  return [
    `corpus: ${fmt(work.lines.length)} messages, ${fmt(work.bytes / 1e6, 2)} MB, ${work.defs.length} payload defs`,
    `node ${process.version}, ${cpus()[0]?.model ?? "unknown cpu"} × ${cpus().length}, load average ${loadavg()[0]?.toFixed(2)}; ` +
      `${rounds} timed rounds after ${warmup} warm-up, ` +
      `one full GC before the rounds: ${typeof (globalThis as { gc?: unknown }).gc === "function" ? "yes" : "no (run with --expose-gc)"}, none between samples, one untimed pass before each`,
  ].join("\n");
}

// ---------------------------------------------------------------------------
// Verdicts

/** First path where two parsed values differ as JSON (key order and `undefined`-valued keys ignored). */
export function firstDifference(a: unknown, b: unknown, path = ""): string | undefined {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path} (length ${a.length} vs ${b.length})`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}/${i}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const d = firstDifference(a[key], b[key], `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return Object.is(a, b) ? undefined : path || "/";
}

interface Disagreement {
  index: number;
  def: string;
  detail: string;
}

export interface VerdictReport {
  messages: number;
  /** ours `validate` vs ajv with S30 integer ranges (the S31 oracle). */
  validateVsAjv: Disagreement[];
  /** ours `parse` vs SDK zod: accept/reject or output differs. */
  parseVsZod: Disagreement[];
  /** Messages whose input was changed by ours `parse`/`validate`. */
  mutatedInput: Disagreement[];
}

/** Compares ours with ajv and the SDK on every corpus message. */
export async function verdicts(work: Workload, ours: Ours): Promise<VerdictReport> {
  const oracle = makeAjv(loadSchema(), { integerFormats: true });
  const zod = await loadSdkZod();
  const report: VerdictReport = { messages: work.lines.length, validateVsAjv: [], parseVsZod: [], mutatedInput: [] };
  const fresh = (i: number) => routeMessage(JSON.parse(work.lines[i]!), work.table, work.requests);
  for (let i = 0; i < work.lines.length; i++) {
    const route = fresh(i);
    if (route === undefined) continue;
    const { def, value } = route;
    const before = JSON.stringify(value);

    const expected = oracle(def)(value) as boolean;
    const got = ours.validate[def]!(value);
    if (got.ok !== expected) {
      report.validateVsAjv.push({ index: i, def, detail: `ajv ${expected ? "accepts" : "rejects"}, ours ${got.ok ? "accepts" : "rejects"}` +
        (got.ok ? ` (ajv: ${JSON.stringify(oracle(def).errors?.[0])})` : ` (ours: ${JSON.stringify(got.issues[0])})`) });
    }

    const mine = ours.parse[def]!(value);
    if (JSON.stringify(value) !== before) report.mutatedInput.push({ index: i, def, detail: "input changed by parse/validate" });
    const theirs = zod(def).safeParse(fresh(i)!.value);
    if (mine.ok !== theirs.success) {
      report.parseVsZod.push({ index: i, def, detail: `zod ${theirs.success ? "accepts" : "rejects"}, ours ${mine.ok ? "accepts" : "rejects"}` });
    } else if (mine.ok && theirs.success) {
      const path = firstDifference(mine.value, theirs.data);
      if (path !== undefined) report.parseVsZod.push({ index: i, def, detail: `output differs at ${path}` });
    }
  }
  return report;
}

/** Disagreements grouped by def and detail, array indices folded (`/3/` -> `/*`). */
function groups(list: Disagreement[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const d of list) {
    const key = `${d.def}: ${d.detail.replace(/\/\d+(?=\/|$| )/g, "/*").replace(/ \((ajv|ours): .*\)$/, "")}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]);
}

function printVerdicts(work: Workload, report: VerdictReport, shown = 5): boolean {
  const sections: [string, Disagreement[]][] = [
    ["ours validate vs ajv (S31 oracle)", report.validateVsAjv],
    ["ours parse vs SDK zod", report.parseVsZod],
    ["input mutated by ours", report.mutatedInput],
  ];
  console.log(`verdicts over ${fmt(report.messages)} messages`);
  for (const [title, list] of sections) {
    console.log(`\n${title}: ${list.length} disagreement(s)`);
    for (const [key, count] of groups(list).slice(0, 10)) console.log(`  ${count} × ${key}`);
    for (const d of list.slice(0, shown)) console.log(`- #${d.index} ${d.def}: ${d.detail}\n    ${work.lines[d.index]!.slice(0, 240)}`);
  }
  return sections.every(([, list]) => list.length === 0);
}

// ---------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  const work = loadWorkload();
  if (process.argv.includes("--verdicts")) {
    const ours = await loadOurs();
    if ("missing" in ours) {
      console.log(`verdicts skipped: ${ours.missing}`);
      if (!ours.notYet) process.exitCode = 1;
      return;
    }
    if (!printVerdicts(work, await verdicts(work, ours))) process.exitCode = 1;
    return;
  }
  const rounds = numberArg("rounds") ?? 15;
  const warmup = numberArg("warmup") ?? 3;
  const { list, notes } = await contenders();
  console.log(header(work, rounds, warmup) + "\n");
  console.log(table(work, measure(work, list, rounds, warmup)));
  for (const note of notes) console.log(`\n_${note}_`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
