/**
 * The budgets of acp-bindings, each measured in one run side by side with
 * its anchors, on the package as users install it (`npm run pack`, then the
 * tarball installed into a copy of test/consumer):
 *
 * - `tsc --noEmit` (TypeScript 5.9, the consumer project's strict settings)
 *   whole-process time and peak memory of one-file consumers: one that calls
 *   `parse.UpdateSessionNotification` from `acp-bindings/v2/unstable` (and
 *   the same from the `parse` subpath), the same consumer on the SDK's zod
 *   schema, a types-only consumer, and an empty file (the fixed cost);
 * - minified + gzip size of those consumers bundled by esbuild, and of the
 *   `parse` consumer bundled by Rolldown (Vite's bundler);
 * - `.d.ts` size per surface, with and without JSDoc (the SDK's v2 unstable
 *   zod declarations as anchor);
 * - whole-process time of `npm run generate` (into a temporary directory).
 *
 * Prints the README's table and the details behind it. A standalone script,
 * not a test:
 *   npx tsx bench/budgets.ts [--runs 7]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { rolldown } from "rolldown";
import ts from "typescript";
import { PACKAGE_NAME } from "../generator/emit/package.js";
import { BUILD_DIR } from "../generator/write.js";
import { SURFACES } from "../generator/surfaces.js";
import { installConsumer, packScratch, ROOT, runOk, tscOf } from "../test/consumer/harness.js";

/** The SDK module that `@agentclientprotocol/sdk/experimental/v2/unstable` decodes received params with. */
const SDK_ZOD = "node_modules/@agentclientprotocol/sdk/dist/v2/unstable/schema/zod.gen";

/** One-file consumers, each reading a `session/update` notification's params and using its tag. */
const CONSUMERS = {
  /** The issue's consumer: `parse` from the entry point. */
  parse: `import { parse } from "${PACKAGE_NAME}/v2/unstable";
const result = parse.UpdateSessionNotification(JSON.parse(input()));
if (result.ok) console.log(result.value.update.sessionUpdate);
else console.log(result.issues);
`,
  /** The same, with the namespace from its own entry point (what esbuild can tree-shake). */
  parseSubpath: `import * as parse from "${PACKAGE_NAME}/v2/unstable/parse";
const result = parse.UpdateSessionNotification(JSON.parse(input()));
if (result.ok) console.log(result.value.update.sessionUpdate);
else console.log(result.issues);
`,
  /** Anchor: the SDK's zod schema for the same notification. */
  sdk: `import { zUpdateSessionNotification } from "../../${SDK_ZOD}.js";
const result = zUpdateSessionNotification.safeParse(JSON.parse(input()));
if (result.success) console.log(result.data.update.sessionUpdate);
else console.log(result.error.issues);
`,
  /** Anchor: types only, nothing called. */
  typesOnly: `import type { UpdateSessionNotification } from "${PACKAGE_NAME}/v2/unstable";
const notification = JSON.parse(input()) as UpdateSessionNotification;
console.log(notification.update.sessionUpdate);
`,
  /** Baseline: no import at all (what starting tsc and reading the standard library costs). */
  empty: `console.log(JSON.parse(input()));
`,
} as const;

type ConsumerName = keyof typeof CONSUMERS;

/** Where the consumers read their input from (opaque to the bundler, so nothing is folded away). */
const INPUT = `\nfunction input(): string {\n  return (globalThis as { acpInput?: string }).acpInput ?? "{}";\n}\n`;

/** Reports the process's peak resident memory on stderr when it exits (preloaded into tsc). */
const PEAK_MEMORY_HOOK =
  "data:text/javascript,process.on('exit',()=>process.stderr.write(`maxrss=${process.resourceUsage().maxRSS}\\n`))";

interface Timing {
  /** Median whole-process wall time, milliseconds. */
  readonly millis: number;
  /** Largest peak resident memory over the runs, MiB. */
  readonly peakMiB: number;
}

/** One run of a command: wall time and the peak memory the hook printed (0 without the hook). */
function timeOnce(command: string, args: readonly string[], cwd: string): { millis: number; peakKiB: number } {
  const started = performance.now();
  const { stderr } = runOk(command, args, cwd);
  return { millis: performance.now() - started, peakKiB: Number(/maxrss=(\d+)/.exec(stderr)?.[1] ?? 0) };
}

/** The median time and the largest peak memory of several runs. */
function summarise(samples: readonly { millis: number; peakKiB: number }[]): Timing {
  const times = samples.map((s) => s.millis).sort((a, b) => a - b);
  return { millis: times[Math.floor(times.length / 2)]!, peakMiB: Math.max(...samples.map((s) => s.peakKiB)) / 1024 };
}

/**
 * `tsc --noEmit` over each consumer file, with the consumer project's strict
 * settings. The consumers take turns, round after round, so that a change in
 * the machine's load touches all of them alike.
 */
function typeCheckTimings(consumer: string, names: readonly ConsumerName[], runs: number): Record<ConsumerName, Timing> {
  for (const name of names) {
    const settings = { extends: "./tsconfig.nodenext.json", compilerOptions: { noEmit: true, skipLibCheck: true }, include: [], files: [`src/${name}.ts`] };
    writeFileSync(join(consumer, `tsconfig.budget-${name}.json`), JSON.stringify(settings));
  }
  const samples = new Map(names.map((n) => [n, [] as { millis: number; peakKiB: number }[]]));
  for (let round = 0; round < runs; round++) {
    for (const name of names) {
      const args = ["--import", PEAK_MEMORY_HOOK, tscOf("typescript"), "-p", `tsconfig.budget-${name}.json`];
      samples.get(name)!.push(timeOnce(process.execPath, args, consumer));
    }
  }
  return Object.fromEntries(names.map((n) => [n, summarise(samples.get(n)!)])) as Record<ConsumerName, Timing>;
}

interface BundleSize {
  readonly minified: number;
  readonly gzip: number;
}

/** Minified and gzip (level 9) size of a bundle. */
function sizes(minified: Uint8Array | string): BundleSize {
  const bytes = typeof minified === "string" ? Buffer.from(minified) : minified;
  return { minified: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

function entryOf(consumer: string, name: ConsumerName): string {
  return join(consumer, "src", `${name}.ts`);
}

/** esbuild bundle of one consumer, minified. */
async function esbuildSize(consumer: string, name: ConsumerName): Promise<BundleSize> {
  const result = await build({ ...ESBUILD, entryPoints: [entryOf(consumer, name)], minify: true });
  return sizes(result.outputFiles[0]!.contents);
}

/** Rolldown (Vite's bundler) bundle of one consumer, minified. */
async function rolldownSize(consumer: string, name: ConsumerName): Promise<BundleSize> {
  const bundle = await rolldown({ input: entryOf(consumer, name), logLevel: "silent" });
  const { output } = await bundle.generate({ format: "esm", minify: true });
  await bundle.close();
  return sizes(output[0].code);
}

/** What an esbuild bundle of one consumer keeps: `function` declarations per source module. */
async function keptFunctions(consumer: string, name: ConsumerName): Promise<Record<string, number>> {
  const result = await build({ ...ESBUILD, entryPoints: [entryOf(consumer, name)] });
  return functionsBySource(result.outputFiles[0]!.text);
}

const ESBUILD = { bundle: true, write: false, format: "esm", platform: "neutral", target: "es2022", logLevel: "silent" } as const;

/** Counts `function` declarations per `// path` section of an unminified esbuild bundle. */
function functionsBySource(bundle: string): Record<string, number> {
  const counts: Record<string, number> = {};
  let source = "(entry)";
  for (const line of bundle.split("\n")) {
    const section = /^\/\/ (\S+)$/.exec(line);
    if (section) source = section[1]!.replace(/^.*node_modules\//, "").replace(/^.*\/consumer\//, "consumer/");
    else if (/^(async )?function /.test(line)) counts[source] = (counts[source] ?? 0) + 1;
  }
  return counts;
}

/** Bytes of the `.d.ts` files directly in `dir` (not in sub-directories), by file name. */
function declarationSizes(dir: string): Record<string, number> {
  const files = readdirSync(dir).filter((f) => f.endsWith(".d.ts"));
  return Object.fromEntries(files.map((f) => [f, statSync(join(dir, f)).size]));
}

/** Bytes of the same files printed without comments: the declarations alone, JSDoc left out. */
function declarationSizesWithoutDocs(dir: string): Record<string, number> {
  const printer = ts.createPrinter({ removeComments: true });
  const files = readdirSync(dir).filter((f) => f.endsWith(".d.ts"));
  return Object.fromEntries(
    files.map((f) => [f, Buffer.byteLength(printer.printFile(ts.createSourceFile(f, readFileSync(join(dir, f), "utf8"), ts.ScriptTarget.ES2022)))]),
  );
}

function sum(values: Record<string, number>): number {
  return Object.values(values).reduce((a, b) => a + b, 0);
}

/** Whole-process `npm run generate` into a scratch directory, so generated/ is never touched. */
function generateTiming(runs: number): Timing {
  const out = mkdtempSync(join(tmpdir(), "acp-generate-"));
  try {
    const args = ["run", "--silent", "generate", "--", "--out", out, "--quiet"];
    return summarise(Array.from({ length: runs }, () => timeOnce("npm", args, ROOT)));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
const seconds = (millis: number): string => `${(millis / 1000).toFixed(2)} s`;
const mib = (value: number): string => `${value.toFixed(0)} MiB`;
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;
const verdict = (ok: boolean): string => (ok ? "met" : "**missed**");

/** Every measurement of one run. */
interface Measurements {
  readonly tsc: Record<ConsumerName, Timing>;
  readonly esbuild: Record<"parse" | "parseSubpath" | "sdk" | "typesOnly", BundleSize>;
  readonly rolldownParse: BundleSize;
  readonly kept: Record<string, number>;
  readonly dts: Record<string, { readonly withDocs: Record<string, number>; readonly withoutDocs: Record<string, number> }>;
  readonly runtimeDts: number;
  readonly sdkDts: number;
  readonly generate: Timing;
}

async function measure(runs: number): Promise<Measurements> {
  const packed = packScratch();
  try {
    const consumer = installConsumer(packed, []);
    for (const [name, code] of Object.entries(CONSUMERS)) writeFileSync(entryOf(consumer, name as ConsumerName), code + INPUT);
    const names = Object.keys(CONSUMERS) as ConsumerName[];
    const tsc = typeCheckTimings(consumer, names, runs);
    const bundled = ["parse", "parseSubpath", "sdk", "typesOnly"] as const;
    const esbuild = Object.fromEntries(await Promise.all(bundled.map(async (n) => [n, await esbuildSize(consumer, n)] as const))) as Measurements["esbuild"];
    const dir = (surface: string) => join(packed.packageDir, BUILD_DIR, surface);
    return {
      tsc,
      esbuild,
      rolldownParse: await rolldownSize(consumer, "parse"),
      kept: await keptFunctions(consumer, "parseSubpath"),
      dts: Object.fromEntries(SURFACES.map((s) => [s.surface, { withDocs: declarationSizes(dir(s.surface)), withoutDocs: declarationSizesWithoutDocs(dir(s.surface)) }])),
      runtimeDts: sum(declarationSizes(dir("runtime"))),
      sdkDts: statSync(join(ROOT, `${SDK_ZOD}.d.ts`)).size,
      generate: generateTiming(runs),
    };
  } finally {
    rmSync(packed.scratch, { recursive: true, force: true });
  }
}

/** The README table: one row per budget, anchors from the same run. */
function table(m: Measurements): string {
  const { tsc, esbuild } = m;
  const tscAnchors = (f: (t: Timing) => string) =>
    `SDK zod consumer ${f(tsc.sdk)}; types-only ${f(tsc.typesOnly)}; empty file ${f(tsc.empty)}`;
  // What each consumer adds to an empty file: the fixed cost of starting tsc is most of every figure.
  const tscTarget = (f: (t: Timing) => number) =>
    `≤ 0.6× SDK and ≤ 1.1× types-only: ${ratio(f(tsc.parse), f(tsc.sdk))}, ${ratio(f(tsc.parse), f(tsc.typesOnly))} — ` +
    `${verdict(f(tsc.parse) <= 0.6 * f(tsc.sdk) && f(tsc.parse) <= 1.1 * f(tsc.typesOnly))}; ` +
    `an empty file is already ${ratio(f(tsc.empty), f(tsc.sdk))} of SDK; over it: ${ratio(f(tsc.parse) - f(tsc.empty), f(tsc.sdk) - f(tsc.empty))} of SDK`;
  const rows = [
    ["`tsc --noEmit` time, consumer calling `parse` (v2/unstable)", `${seconds(tsc.parse.millis)} (subpath import: ${seconds(tsc.parseSubpath.millis)})`,
      tscAnchors((t) => seconds(t.millis)), tscTarget((t) => t.millis)],
    ["`tsc --noEmit` peak memory, same consumer", `${mib(tsc.parse.peakMiB)} (subpath import: ${mib(tsc.parseSubpath.peakMiB)})`,
      tscAnchors((t) => mib(t.peakMiB)), tscTarget((t) => t.peakMiB)],
    ["bundle of a consumer parsing one `session/update`, minified + gzip", `esbuild, subpath import: ${kib(esbuild.parseSubpath.gzip)}; esbuild, entry import: ${kib(esbuild.parse.gzip)}; Rolldown, entry import: ${kib(m.rolldownParse.gzip)}`,
      `SDK zod consumer, esbuild: ${kib(esbuild.sdk.gzip)}`,
      `≤ 8 KiB — subpath ${verdict(esbuild.parseSubpath.gzip <= 8192)}, entry with esbuild ${verdict(esbuild.parse.gzip <= 8192)}, entry with Rolldown ${verdict(m.rolldownParse.gzip <= 8192)}`],
    ["bundle of a types-only consumer, minified + gzip", kib(esbuild.typesOnly.gzip), "", `~0 — ${verdict(esbuild.typesOnly.gzip <= 256)}`],
    ...SURFACES.map((s) => {
      const { withDocs, withoutDocs } = m.dts[s.surface]!;
      return [`\`.d.ts\` of \`${s.surface}\``, `${kib(sum(withDocs))} (${kib(sum(withoutDocs))} without JSDoc)`,
        s.surface === "v2/unstable" ? `SDK \`zod.gen.d.ts\` alone: ${kib(m.sdkDts)}` : "", `≤ 300 KiB — ${verdict(sum(withDocs) <= 300 * 1024)}`];
    }),
    ["`npm run generate`, whole process, 4 surfaces", seconds(m.generate.millis), "", `≤ 2 s — ${verdict(m.generate.millis <= 2000)}`],
  ];
  return ["| budget | acp-bindings | anchors (same run) | target |", "| --- | --- | --- | --- |", ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

/** Where the `.d.ts` bytes and the bundle's functions come from. */
function details(m: Measurements, runs: number): string {
  const dts = Object.entries(m.dts).map(([surface, { withDocs, withoutDocs }]) =>
    `- ${surface}: ${Object.keys(withDocs).map((f) => `${f} ${kib(withDocs[f]!)} (${kib(withoutDocs[f]!)})`).join(", ")}`);
  return [
    `\`.d.ts\` by file, with JSDoc (without); the shared runtime adds ${kib(m.runtimeDts)}:`,
    ...dts,
    "",
    `Functions the esbuild bundle of the subpath consumer keeps, by module: ${JSON.stringify(m.kept)}`,
    `tsc: TypeScript ${ts.version}, ${runs} runs per consumer (median wall time, largest peak RSS), the strict settings of test/consumer with skipLibCheck.`,
  ].join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "7" } } });
  const runs = Number(values.runs);
  const m = await measure(runs);
  process.stdout.write(`${table(m)}\n\n${details(m, runs)}\n`);
}

await main();
