/**
 * Parse/validate throughput over the v2-unstable corpus: two tables.
 *
 *   npx tsx --expose-gc bench/parse.bench.ts [--rounds 7] [--warmup 2] [--processes 3] [--seed N] [--size N] [--corpus file.jsonl]
 *   npx tsx --expose-gc bench/parse.bench.ts --rounds 1 --warmup 0 --size 2000   # quick form: the tables' shape only
 *   npx tsx bench/parse.bench.ts --verdicts      # ours vs ajv / SDK zod, message by message
 *   (add --ours <checkout>/generated/src/v2/unstable/index.ts to measure another build of acp-bindings, and
 *   --before <checkout>/generated/src/v2/unstable/index.ts to add the owned-tree rows of a second build, e.g. main's)
 *
 * Text -> value: every row does the same per message: `JSON.parse` the line,
 * route it to its payload `$def` (route.ts, shared), then check the payload
 * with its own validator for that def. Two more rows are what a user of
 * acp-bindings runs on a line: `parseOwned.fromText(line, <envelope decoder>)`,
 * which parses the text and decodes the whole envelope, routing by method
 * inside (the receiving side and, for a response, the asked method are known
 * to a connection; here they are read from the corpus before timing), and
 * `parseOwned.fromLines` on the same lines in batches of 64 KiB reads (what
 * the connection does with each read of a pipe).
 *
 * Values: check-only, on payloads parsed and routed before timing, as the
 * connection's `validateOutgoing` checks the objects it is about to write:
 * ajv's compiled validator, ours `validate`, and for information the SDK's
 * zod and ours `parse`.
 *
 * What a user runs, and how the bench keeps to it (README.md, "Benchmark:
 * parse and validate"):
 * - Real ES modules: ours is compiled (bench/compiled-modules.ts) and loaded
 *   as the built package is, never the `.ts` sources through tsx.
 * - One decoder per process: each row runs in a fresh process of its own
 *   (so that the type feedback of other rows does not shape its code), from
 *   its own copy of the compiled modules, with its table's floor interleaved
 *   in the same process (`JSON.parse` alone; on values, a walk that reads
 *   every value). Every ratio is a ratio of medians within one process, and
 *   each row runs in several such processes (`--processes`, 3; the rows in
 *   turn, that many times over): the table shows the median of a row's
 *   ratios, and lists all of them after it; "÷ zod / ÷ ajv" compare those
 *   floor-normalised times.
 * - GC: one full GC before the rounds, none between samples, one untimed
 *   pass of the same row before each timed sample. Rounds interleave the two
 *   rows (alternating their order); medians and the p10-p90 spread.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadSdkZod, makeAjv } from "./anchors.js";
import { compileModules, importCompiled } from "./compiled-modules.js";
import { gc, inFreshProcess, median, processesArg, quantile } from "./harness.js";
import { generateCorpus, numberArg, readsOf, stringArg } from "./corpus.js";
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

/** Every routed payload of the corpus, parsed: the input of the values table (made before timing). */
function payloads(work: Workload): Route[] {
  return work.lines.flatMap((line) => routeMessage(JSON.parse(line), work.table, work.requests) ?? []);
}

// ---------------------------------------------------------------------------
// Builds of acp-bindings

/** A build of acp-bindings: a checkout holding generated/src, and its v2/unstable entry once compiled (relative to it). */
interface Build {
  root: string;
  entry: string;
}

const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));
const DEFAULT_ENTRY = "generated/src/v2/unstable/index.ts";

/** The build a `--ours` / `--before` path names (a `.ts` module under some checkout's generated/src), or this project's. */
function buildAt(path: string | undefined): Build {
  if (path === undefined) return { root: PROJECT_ROOT, entry: DEFAULT_ENTRY.replace(/\.ts$/, ".js") };
  const at = path.lastIndexOf(`generated${sep}src${sep}`);
  if (at < 0 || !path.endsWith(".ts")) throw new Error(`${path}: expected a .ts module under a checkout's generated/src/`);
  const root = path.slice(0, at) || ".";
  return { root, entry: relative(root, path).replace(/\.ts$/, ".js") };
}

/** A generated entry point: `parse.X` / `validate.X` for every `$defs` key X. */
type Result = { ok: true; value: unknown } | { ok: false; issues: { path: string; message: string }[] };
/** A decoder of one value. */
type Decoder = (value: unknown) => Result;
/** The owned-tree decoders: `X(value)`, `XFor(method, value)` of responses, `fromText(text, decoder)` and `fromLines(texts, decoder)`. */
type OwnedDecoders = Record<string, Decoder | undefined> & {
  fromText?: (text: string, decode: Decoder) => Result;
  fromLines?: (texts: readonly string[], decode: (value: unknown, index: number) => Result) => Result[];
};
export interface Ours {
  parse: Record<string, ((value: unknown) => Result) | undefined>;
  validate: Record<string, ((value: unknown) => Result) | undefined>;
  /** The owned-tree decode path (absent in builds before it). */
  parseOwned?: OwnedDecoders;
}

/** Why a build cannot be measured; `notYet` marks the expected case of this project's module not generated (yet). */
interface Missing {
  missing: string;
  notYet: boolean;
}

/** Compiles a build into `out`, or explains why it cannot be used. */
async function compileBuild(build: Build, out: string, override: boolean): Promise<Missing | undefined> {
  const source = join(build.root, build.entry.replace(/\.js$/, ".ts"));
  if (!existsSync(source)) return { missing: `${source} not generated yet`, notYet: !override };
  try {
    await compileModules(build.root, out);
    return undefined;
  } catch (error) {
    return { missing: `failed to compile ${build.root}/generated/src: ${(error as Error).message}`, notYet: false };
  }
}

/** The compiled build in `dir`, imported as an ES module (throws otherwise), or why it has no parse/validate. */
async function importBuild(dir: string, build: Build): Promise<Ours | Missing> {
  const mod = (await importCompiled(dir, build.entry)) as Partial<Ours>;
  if (!isRecord(mod.parse) || !isRecord(mod.validate)) return { missing: `${build.entry} has no parse/validate exports (yet)`, notYet: false };
  return mod as Ours;
}

// ---------------------------------------------------------------------------
// Rows

/** Checks one payload; true when the row accepts it. */
type Check = (value: unknown) => boolean;

/** One pass over the corpus, every check resolved before timing; returns the number of accepted messages. */
type Pass = () => number;

type TableName = "text" | "values";

/** A row of a table; its pass is made in the row's own process. */
interface Spec {
  name: string;
  table: TableName;
  /** The build this row runs (from its own copy of the compiled modules); absent for the anchors and floors. */
  build?: "ours" | "before";
  pass: (work: Workload, ours: Ours | undefined) => Pass | Promise<Pass>;
}

/** `JSON.parse` of every line, nothing else: the text table's floor. */
function textFloor({ lines }: Workload): Pass {
  return () => {
    let accepted = 0;
    for (let i = 0; i < lines.length; i++) if (JSON.parse(lines[i]!) !== undefined) accepted++;
    return accepted;
  };
}

/** `JSON.parse` + route + the row's check for the payload's `$def`. */
function routed(work: Workload, resolve: (def: string) => Check): Pass {
  const { lines, table, requests } = work;
  const checks = new Map(work.defs.map((def) => [def, resolve(def)]));
  return () => {
    let accepted = 0;
    for (let i = 0; i < lines.length; i++) {
      const route = routeMessage(JSON.parse(lines[i]!), table, requests);
      if (route !== undefined && checks.get(route.def)!(route.value)) accepted++;
    }
    return accepted;
  };
}

/** Each line through `fromText` with its own envelope decoder (chosen before timing). */
function wholeLines({ lines }: Workload, fromText: NonNullable<OwnedDecoders["fromText"]>, decoders: Decoder[]): Pass {
  return () => {
    let accepted = 0;
    for (let i = 0; i < lines.length; i++) if (fromText(lines[i]!, decoders[i]!).ok) accepted++;
    return accepted;
  };
}

/** The lines through `fromLines`, one batch per read (`readsOf`), each line with its own envelope decoder (chosen before timing). */
function batchedLines({ lines }: Workload, fromLines: NonNullable<OwnedDecoders["fromLines"]>, decoders: Decoder[]): Pass {
  const batches = readsOf(lines);
  return () => {
    let accepted = 0;
    for (const { start, texts } of batches) {
      const results = fromLines(texts, (value, index) => decoders[start + index]!(value));
      for (let i = 0; i < results.length; i++) if (results[i]!.ok) accepted++;
    }
    return accepted;
  };
}

/** The row's check of each payload, parsed and routed before timing (its check for the payload's `$def` chosen before timing too). */
function onValues(work: Workload, resolve: (def: string) => Check): Pass {
  const routes = payloads(work);
  const byDef = new Map(work.defs.map((def) => [def, resolve(def)]));
  const checks = routes.map((r) => byDef.get(r.def)!);
  const values = routes.map((r) => r.value);
  return () => {
    let accepted = 0;
    for (let i = 0; i < values.length; i++) if (checks[i]!(values[i])) accepted++;
    return accepted;
  };
}

function ourCheck(fns: Ours["parse"] | undefined, kind: string): (def: string) => Check {
  return (def) => {
    const fn = fns?.[def];
    if (fn === undefined) throw new Error(`ours: no ${kind}.${def}`);
    return (value) => fn(value).ok;
  };
}

async function zodCheck(): Promise<(def: string) => Check> {
  const zod = await loadSdkZod();
  return (def) => {
    const schema = zod(def);
    return (v) => schema.safeParse(v).success;
  };
}

function ajvCheck(): (def: string) => Check {
  const ajv = makeAjv(loadSchema(), { integerFormats: false });
  return (def) => {
    const fn = ajv(def);
    return (v) => fn(v) as boolean;
  };
}

const TEXT_FLOOR: Spec = { name: "JSON.parse (floor)", table: "text", pass: textFloor };
const VALUES_FLOOR: Spec = { name: "read every value (floor)", table: "values", pass: (work) => onValues(work, () => readsEveryValue) };

/** The rows of both tables, floors first; ours and `before` only when their build is there. */
function specs(ours: boolean, before: boolean): Spec[] {
  const list: Spec[] = [
    TEXT_FLOOR,
    { name: "JSON.parse + route only", table: "text", pass: (work) => routed(work, () => () => true) },
    // What reading the whole fresh tree costs, with no check at all: the floor of any exact owned-tree check.
    { name: "JSON.parse + route + read every value", table: "text", pass: (work) => routed(work, () => readsEveryValue) },
    { name: "JSON.parse + SDK zod", table: "text", pass: async (work) => routed(work, await zodCheck()) },
    { name: "JSON.parse + ajv", table: "text", pass: (work) => routed(work, ajvCheck()) },
  ];
  if (ours) {
    list.push(
      { name: "JSON.parse + ours parse", table: "text", build: "ours", pass: (work, b) => routed(work, ourCheck(b?.parse, "parse")) },
      { name: "JSON.parse + ours validate", table: "text", build: "ours", pass: (work, b) => routed(work, ourCheck(b?.validate, "validate")) },
      ...ownedRows("ours"),
    );
  }
  if (before) list.push(...ownedRows("before"));
  list.push(VALUES_FLOOR, { name: "ajv", table: "values", pass: (work) => onValues(work, ajvCheck()) });
  if (ours) list.push({ name: "ours validate", table: "values", build: "ours", pass: (work, b) => onValues(work, ourCheck(b?.validate, "validate")) });
  list.push({ name: "SDK zod (safeParse)", table: "values", pass: async (work) => onValues(work, await zodCheck()) });
  if (ours) list.push({ name: "ours parse", table: "values", build: "ours", pass: (work, b) => onValues(work, ourCheck(b?.parse, "parse")) });
  return list;
}

/** The owned-tree rows of a build: payloads after the bench's routing, and whole lines (a build before `parseOwned` has none: its rows fail). */
function ownedRows(label: "ours" | "before"): Spec[] {
  return [
    // The tree JSON.parse made in the pass is owned by it: the owned path may return it as is.
    { name: `JSON.parse + ${label} parseOwned (owned tree)`, table: "text", build: label, pass: (work, b) => routed(work, ourCheck(b?.parseOwned, "parseOwned")) },
    {
      name: `${label} parseOwned.fromText, whole line`, table: "text", build: label,
      pass: (work, b) => {
        const fromText = b?.parseOwned?.fromText;
        if (fromText === undefined) throw new Error(`${label}: no parseOwned.fromText`);
        return wholeLines(work, fromText, work.routes.map((r) => envelopeDecoder(b!.parseOwned!, r)));
      },
    },
    {
      name: `${label} parseOwned.fromLines, 64 KiB reads`, table: "text", build: label,
      pass: (work, b) => {
        const fromLines = b?.parseOwned?.fromLines;
        if (fromLines === undefined) throw new Error(`${label}: no parseOwned.fromLines`);
        return batchedLines(work, fromLines, work.routes.map((r) => envelopeDecoder(b!.parseOwned!, r)));
      },
    },
  ];
}

/**
 * The envelope decoder of the side that receives a line: `ClientRequest` /
 * `ClientNotification` / `ClientResponseFor(method)` for the agent, `Agent*`
 * for the client. A message any side may receive (extension and protocol
 * notifications, errors) is read as the client reads it.
 */
function envelopeDecoder(owned: OwnedDecoders, route: LineRoute | undefined): Decoder {
  const sender = route?.receiver === "agent" ? "Client" : "Agent";
  if (route?.kind === "request" || route?.kind === "notification") return owned[`${sender}${route.kind === "request" ? "Request" : "Notification"}`]!;
  const asked = owned[`${sender}ResponseFor`] as unknown as (method: string, value: unknown) => Result;
  const method = route?.method ?? "";
  return (value) => asked(method, value);
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

interface Row {
  name: string;
  accepted: number;
  /** Milliseconds per round. */
  times: number[];
}

/**
 * Times `reps` passes after one untimed pass of the same row (which pays for the young
 * garbage the previous row left and brings the heap to this row's steady state);
 * returns milliseconds per pass and the accepted count. No GC is forced here: a forced full GC
 * leaves the young generation shrunk, which a process decoding a live stream never has, and
 * made every allocating row 1.5-2x slower in the samples after it (README, "GC policy").
 */
function sample(pass: Pass, reps: number): { ms: number; accepted: number } {
  pass();
  let accepted = 0;
  const start = performance.now();
  for (let r = 0; r < reps; r++) accepted = pass();
  return { ms: (performance.now() - start) / reps, accepted };
}

/**
 * Runs warm-up then timed rounds, rotating the row order each round, after one full GC.
 * A fast row repeats the corpus within one sample so that each sample
 * lasts at least `minSampleMs` (timer and GC noise would dominate otherwise);
 * the reported time is per pass over the corpus.
 */
function measure(names: string[], passes: Pass[], rounds: number, warmup: number, minSampleMs = 200): Row[] {
  gc();
  const rows: Row[] = names.map((name) => ({ name, accepted: 0, times: [] }));
  const reps = passes.map(() => 1);
  for (let round = -warmup; round < rounds; round++) {
    for (let k = 0; k < passes.length; k++) {
      const i = (k + Math.max(round, 0)) % passes.length;
      const { ms, accepted } = sample(passes[i]!, reps[i]!);
      if (round < 0) reps[i] = Math.max(1, Math.ceil(minSampleMs / ms));
      else {
        rows[i]!.times.push(ms);
        rows[i]!.accepted = accepted;
      }
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------
// Processes

/**
 * Defaults: each row in PROCESSES fresh processes of ROUNDS timed rounds after
 * WARMUP each. A process settles in a mode of its own (the SDK's zod row took
 * 41x and 28x `JSON.parse`'s time in two runs of one day, our reducer shows the
 * same in its bench): a row is read from several, each ratio within its process.
 */
const ROUNDS = 7;
const WARMUP = 2;
const PROCESSES = 3;

/** What the process of one row reports: its table's floor and the row, measured interleaved. */
interface Measured {
  floor: Row;
  row: Row;
}

/**
 * Measures the row named `name` in this (fresh) process, beside its table's
 * floor; a row of ours runs from the copy of the compiled modules in `dir`
 * made for it alone.
 */
async function measureRow(name: string, dir: string): Promise<Measured> {
  const spec = specs(true, stringArg("before") !== undefined).find((s) => s.name === name);
  if (spec === undefined) throw new Error(`no row named ${name}`);
  const floor = spec.table === "text" ? TEXT_FLOOR : VALUES_FLOOR;
  const work = loadWorkload();
  let ours: Ours | undefined;
  if (spec.build !== undefined) {
    const loaded = await importBuild(dir, buildAt(stringArg(spec.build)));
    if ("missing" in loaded) throw new Error(loaded.missing);
    ours = loaded;
  }
  const passes = [await floor.pass(work, undefined), await spec.pass(work, ours)];
  const [floorRow, row] = measure([floor.name, spec.name], passes, numberArg("rounds") ?? ROUNDS, numberArg("warmup") ?? WARMUP);
  return { floor: floorRow!, row: row! };
}


// ---------------------------------------------------------------------------
// Report

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A row with its time over its own processes' floors. */
interface Normalised {
  name: string;
  accepted: number;
  /** Every sample of every process of the row. */
  times: number[];
  /** Per process, the row's median time ÷ the floor's median time, both from that process. */
  ratios: number[];
  /** The median of `ratios`. */
  ratio: number;
}

/**
 * The floor row of a table: each process measured its own floor; shown are
 * the median of those processes' medians, and their range in the spread column.
 */
function floorRow(results: Measured[][]): { name: string; accepted: number; ms: number; slowest: number; fastest: number } {
  const medians = results.flat().map((r) => median(r.floor.times)).sort((a, b) => a - b);
  return { name: results[0]![0]!.floor.name, accepted: results[0]![0]!.floor.accepted, ms: quantile(medians, 0.5), slowest: medians.at(-1)!, fastest: medians[0]! };
}

/** Each row's processes as one row: samples pooled, the ratio to the floor read per process and their median taken. */
function normalise(results: Measured[][]): Normalised[] {
  return results.map((processes) => {
    const ratios = processes.map(({ floor, row }) => median(row.times) / median(floor.times));
    const { name, accepted } = processes[0]!.row;
    return { name, accepted, times: processes.flatMap((p) => p.row.times), ratios, ratio: median(ratios) };
  });
}

/**
 * The lines after a table that give each row's ratio to its floor in each of its processes,
 * to three decimals: issue 11's owned-decode target, 0.85x the floor's speed, is 1.176x its time.
 */
function perProcess(rows: Normalised[]): string {
  return rows.map((row) => `- ${row.name}: ${row.ratios.map((r) => `${fmt(r, 3)}×`).join(" / ")}`).join("\n");
}

/** "speed ÷ X" of a row against the rows named `anchors` (by a substring), from floor-normalised times: above 1 = faster. */
function speedOver(rows: Normalised[], anchors: string[]): (row: Normalised | undefined) => string {
  const ratios = anchors.map((a) => rows.find((r) => r.name.includes(a))?.ratio ?? NaN);
  return (row) => ratios.map((anchor) => `${fmt(anchor / (row?.ratio ?? 1), 2)}×`).join(" / ");
}

/**
 * Markdown table of text -> value: throughput from the median round, spread
 * from the p10/p90 rounds (both absolute, over every sample of the row's processes).
 * "time ÷ JSON.parse" is the row's slowdown over the floor measured in its
 * process; "speed ÷ X" compares those ratios (above 1 = faster than X).
 */
export function textTable(work: Workload, results: Measured[][]): string {
  const n = work.lines.length;
  const rate = (ms: number) => n / (ms / 1000);
  const rows = normalise(results);
  const speed = speedOver(rows, ["zod", "ajv"]);
  const floor = floorRow(results);
  const out = [
    "| contender | accepted | msgs/s median | MB/s median | spread msgs/s (p10–p90) | time ÷ JSON.parse | speed ÷ SDK zod / ajv |",
    "|---|---:|---:|---:|---:|---:|---:|",
    `| ${floor.name} | ${fmt(floor.accepted)} | ${fmt(rate(floor.ms))} | ${fmt(work.bytes / 1e6 / (floor.ms / 1000), 1)} | ` +
      `${fmt(rate(floor.slowest))}–${fmt(rate(floor.fastest))} | 1.000× | ${speed(undefined)} |`,
  ];
  for (const row of rows) {
    const sorted = [...row.times].sort((a, b) => a - b);
    const ms = quantile(sorted, 0.5);
    out.push(`| ${row.name} | ${fmt(row.accepted)} | ${fmt(rate(ms))} | ${fmt(work.bytes / 1e6 / (ms / 1000), 1)} | ` +
      `${fmt(rate(quantile(sorted, 0.9)))}–${fmt(rate(quantile(sorted, 0.1)))} | ${fmt(row.ratio, 3)}× | ${speed(row)} |`);
  }
  return out.join("\n") + "\n\ntime ÷ JSON.parse in each process of a row:\n\n" + perProcess(rows);
}

/** Markdown table of the check on values: as `textTable`, over the values floor, against ajv and the SDK's zod. */
export function valuesTable(results: Measured[][], values: number): string {
  const rate = (ms: number) => values / (ms / 1000);
  const rows = normalise(results);
  const speed = speedOver(rows, ["ajv", "zod"]);
  const floor = floorRow(results);
  const out = [
    "| check, on values parsed and routed before timing | accepted | values/s median | spread values/s (p10–p90) | time ÷ read every value | speed ÷ ajv / SDK zod |",
    "|---|---:|---:|---:|---:|---:|",
    `| ${floor.name} | ${fmt(floor.accepted)} | ${fmt(rate(floor.ms))} | ${fmt(rate(floor.slowest))}–${fmt(rate(floor.fastest))} | 1.000× | ${speed(undefined)} |`,
  ];
  for (const row of rows) {
    const sorted = [...row.times].sort((a, b) => a - b);
    out.push(`| ${row.name} | ${fmt(row.accepted)} | ${fmt(rate(quantile(sorted, 0.5)))} | ` +
      `${fmt(rate(quantile(sorted, 0.9)))}–${fmt(rate(quantile(sorted, 0.1)))} | ${fmt(row.ratio, 3)}× | ${speed(row)} |`);
  }
  return out.join("\n") + "\n\ntime ÷ read every value in each process of a row:\n\n" + perProcess(rows);
}

function header(work: Workload, rounds: number, warmup: number, perRow: number, processes: number, loadAtStart: number): string {
  return [
    `corpus: ${fmt(work.lines.length)} messages, ${fmt(work.bytes / 1e6, 2)} MB, ${work.defs.length} payload defs`,
    `node ${process.version}, ${cpus()[0]?.model ?? "unknown cpu"} × ${cpus().length}, load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end; ` +
      `each row in ${perRow} fresh processes with its table's floor interleaved (${processes} processes, one after another, row by row, ${perRow} times over), ours from compiled ES modules, a copy per row; ` +
      `${rounds} timed rounds after ${warmup} warm-up in each process; ` +
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

/** `--verdicts`: ours (compiled, as measured) against ajv and the SDK's zod, message by message. */
async function runVerdicts(work: Workload, dir: string): Promise<void> {
  const build = buildAt(stringArg("ours"));
  const ours = (await compileBuild(build, dir, stringArg("ours") !== undefined)) ?? (await importBuild(dir, build));
  if ("missing" in ours) {
    console.log(`verdicts skipped: ${ours.missing}`);
    if (!ours.notYet) process.exitCode = 1;
    return;
  }
  if (!printVerdicts(work, await verdicts(work, ours))) process.exitCode = 1;
}

/**
 * The tables: each row in `--processes` fresh processes (the rows in turn, that many times over), every row of
 * a build from its own copy of that build's compiled modules.
 */
async function runTables(work: Workload, dir: string): Promise<void> {
  const loadAtStart = loadavg()[0]!;
  const rounds = numberArg("rounds") ?? ROUNDS;
  const warmup = numberArg("warmup") ?? WARMUP;
  const perRow = processesArg(PROCESSES);
  const notes: string[] = [];
  const oursArg = stringArg("ours");
  const oursMissing = await compileBuild(buildAt(oursArg), join(dir, "ours"), oursArg !== undefined);
  if (oursMissing) notes.push(`ours skipped: ${oursMissing.missing}`);
  const beforeArg = stringArg("before");
  if (beforeArg !== undefined) {
    const beforeMissing = await compileBuild(buildAt(beforeArg), join(dir, "before"), true);
    if (beforeMissing) throw new Error(`--before: ${beforeMissing.missing}`);
  }
  const rows = specs(oursMissing === undefined, beforeArg !== undefined).filter((spec) => spec !== TEXT_FLOOR && spec !== VALUES_FLOOR);
  rows.forEach((spec, i) => {
    if (spec.build !== undefined) cpSync(join(dir, spec.build), join(dir, String(i)), { recursive: true });
  });
  // Row by row, `perRow` times over: a drift of the machine spreads over every row.
  const measured: Measured[][] = rows.map(() => []);
  for (let p = 0; p < perRow; p++) {
    for (const [i, spec] of rows.entries()) {
      measured[i]!.push(await inFreshProcess<Measured>(fileURLToPath(import.meta.url), ["--row", spec.name, "--modules", join(dir, String(i))], `row "${spec.name}", process ${p + 1}`));
    }
  }
  const results: Record<TableName, Measured[][]> = { text: [], values: [] };
  rows.forEach((spec, i) => results[spec.table].push(measured[i]!));
  const values = work.routes.filter((r) => r !== undefined).length;
  console.log(header(work, rounds, warmup, perRow, rows.length * perRow, loadAtStart) + "\n");
  console.log("text -> value: JSON.parse of each line and the check (whole lines: the decoder alone)\n");
  console.log(textTable(work, results.text) + "\n");
  console.log(`values: the check alone, on the ${fmt(values)} payloads parsed and routed before timing\n`);
  console.log(valuesTable(results.values, values));
  for (const note of notes) console.log(`\n_${note}_`);
}

async function main(): Promise<void> {
  const work = loadWorkload();
  const dir = mkdtempSync(join(tmpdir(), "parse-bench-"));
  try {
    await (process.argv.includes("--verdicts") ? runVerdicts(work, dir) : runTables(work, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const row = stringArg("row");
  if (row === undefined) await main();
  else process.send!(await measureRow(row, stringArg("modules")!));
}
