/**
 * The connection against the official SDK's, side by side in one run:
 *
 *   npx tsx bench/connection.bench.ts [--rounds 7] [--warmup 2] [--trips 5000] [--updates 18924]
 *
 * Both sides speak ACP v2 unstable and do the same work (bench/connection/agents.ts):
 * - round trips: the client awaits `session/new` one after another, the agent answers at once;
 * - notifications: the client sends one `session/prompt`, the agent streams the corpus's
 *   `session/update`s (bench/connection/workload.ts, each `notify` awaited), and the client
 *   decodes each and folds it into its session's state with the generated reducer
 *   (each sample a fresh set of sessions shaped as in the corpus): ours through
 *   `createSessionStore` (the trusted path: `reduceSessionOwned` on the connection's own
 *   tree), the SDK's with `reduceSessionOwned` in its `session/update` handler (zod's output
 *   is as fresh as ours), so that both sides fold with the same reducer and only the
 *   connection, framing and decoding differ.
 * Each pair runs in memory (ours: `inMemoryTransports`; the SDK: an agent app connected to
 * a client app) and over the stdio of a child process running the agent. Then "bytes to
 * state" (bench/connection/bytes-to-state.ts): the same updates as lines, folded with no
 * transport, ours against JSON.parse + a hand-written in-place reducer. Rounds interleave
 * the contenders; the tables give the median and the p10-p90 spread. Then the bundle
 * (esbuild, minified, gzip -9) of a client that connects and reduces session updates:
 * bench/connection/client-ours.ts against bench/connection/client-sdk.ts.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { gzipSync } from "node:zlib";
import * as sdk from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { build } from "esbuild";
import {
  connectClient,
  createSessionStore,
  emptySessionState,
  inMemoryTransports,
  ndJsonStream,
  reduceSessionOwned,
  sessionStateToJSON,
  type SessionState,
  type SessionUpdate,
  type Transport,
} from "../generated/src/v2/unstable/index.js";
import { oursAgent, sdkAgent } from "./connection/agents.js";
import { numberArg } from "./corpus.js";
import { median, quantile } from "./harness.js";
import { LINE_FOLDERS, updateLines } from "./connection/bytes-to-state.js";
import { benchUpdates, type BenchUpdate } from "./connection/workload.js";
import { Progress } from "./progress.js";

/** What the benchmark asks of a client, whichever connection it runs on. */
interface BenchClient {
  readonly name: string;
  roundTrip(): Promise<unknown>;
  /** One prompt; resolves once all `expected` updates were decoded and reduced. */
  stream(expected: number): Promise<void>;
  close(): void;
}

let prompts = 0;
/** A prompt in a session of its own, so every sample starts from empty states. */
const prompt = () => ({ sessionId: `bench-${++prompts}`, prompt: [{ type: "text" as const, text: "go" }] });
const INITIALIZE = { protocolVersion: 2, info: { name: "bench-client", version: "1.0.0" } };

async function oursClient(name: string, transport: Transport, onClose: () => void): Promise<BenchClient> {
  const sessions = createSessionStore();
  const progress = new Progress();
  sessions.subscribe(() => progress.reduced());
  const agent = connectClient(transport, { "session/update": sessions.update });
  await agent.request("initialize", INITIALIZE);
  return {
    name,
    roundTrip: () => agent.request("session/new", { cwd: "/bench" }),
    async stream(expected) {
      progress.reset();
      await Promise.all([agent.request("session/prompt", prompt()), progress.until(expected)]);
    },
    close: () => (agent.close(), onClose()),
  };
}

function sdkClient(name: string, target: Parameters<ReturnType<typeof sdk.client>["connectWith"]>[0], onClose: () => void): Promise<BenchClient> {
  const states = new Map<string, SessionState>();
  const progress = new Progress();
  const app = sdk.client().onNotification("session/update", async ({ params }) => {
    // zod's output is a fresh value nobody else holds: handed over, as our store's own handler does.
    states.set(params.sessionId, reduceSessionOwned(states.get(params.sessionId) ?? emptySessionState(), params.update as SessionUpdate));
    progress.reduced();
  });
  return new Promise((resolve) => {
    let release!: () => void;
    void app.connectWith(target, async (agent) => {
      await agent.request("initialize", INITIALIZE);
      resolve({
        name,
        roundTrip: () => agent.request("session/new", { cwd: "/bench" }),
        async stream(expected) {
          progress.reset();
          await Promise.all([agent.request("session/prompt", prompt()), progress.until(expected)]);
        },
        close: () => (release(), onClose()),
      });
      await new Promise<void>((done) => (release = done));
    });
  });
}

function child(kind: "ours" | "sdk"): ChildProcessByStdio<Writable, Readable, null> {
  const script = fileURLToPath(new URL("./connection/agents.ts", import.meta.url));
  return spawn(process.execPath, ["--import", "tsx", script, kind], { stdio: ["pipe", "pipe", "inherit"] });
}

async function contenders(updates: readonly BenchUpdate[]): Promise<Record<"memory" | "stdio", BenchClient[]>> {
  const [agentEnd, clientEnd] = inMemoryTransports();
  oursAgent(agentEnd, updates);
  const oursMemory = await oursClient("ours: connectClient", clientEnd, () => {});
  const sdkMemory = await sdkClient("SDK: client()", sdkAgent(updates), () => {});
  const oursChild = child("ours");
  const oursStdio = await oursClient("ours: connectClient", ndJsonStream({ readable: oursChild.stdout, writable: oursChild.stdin }), () => oursChild.stdin.end());
  const sdkChild = child("sdk");
  const sdkStream = sdk.ndJsonStream(Writable.toWeb(sdkChild.stdin), Readable.toWeb(sdkChild.stdout) as ReadableStream<Uint8Array>);
  const sdkStdio = await sdkClient("SDK: client()", sdkStream, () => sdkChild.stdin.end());
  return { memory: [oursMemory, sdkMemory], stdio: [oursStdio, sdkStdio] };
}

/** Seconds per sample of `work`, `rounds` times per contender, interleaved with a rotating order. */
async function measure<C>(clients: readonly C[], work: (c: C) => Promise<void> | void, rounds: number, warmup: number): Promise<number[][]> {
  const times = clients.map((): number[] => []);
  for (let round = 0; round < warmup + rounds; round++) {
    for (let k = 0; k < clients.length; k++) {
      const i = (round + k) % clients.length;
      const started = performance.now();
      await work(clients[i]!);
      const seconds = (performance.now() - started) / 1000;
      if (round >= warmup) times[i]!.push(seconds);
    }
  }
  return times;
}

function fmt(value: number, digits = 0): string {
  return value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** A table's rows: contenders (each with a name) and their sample times; ratios are to the contender at `baseline`. */
interface TableRow {
  readonly transport: string;
  readonly clients: readonly { readonly name: string }[];
  readonly times: number[][];
  readonly baseline: number;
}

function table(title: string, unit: string, baselineName: string, perSample: number, rows: readonly TableRow[]): void {
  console.log(`\n${title}`);
  console.log(`| transport | connection | ${unit}/s (median) | spread (p10–p90) | ÷ ${baselineName} |`);
  console.log("|---|---|---:|---:|---:|");
  for (const row of rows) {
    const medians = row.times.map(median);
    row.clients.forEach((client, i) => {
      const sorted = [...row.times[i]!].sort((a, b) => a - b);
      const rate = (seconds: number): number => perSample / seconds;
      console.log(
        `| ${row.transport} | ${client.name} | ${fmt(rate(medians[i]!))} | ${fmt(rate(quantile(sorted, 0.9)))}–${fmt(rate(quantile(sorted, 0.1)))} | ${fmt(medians[row.baseline]! / medians[i]!, 2)}× |`,
      );
    });
  }
}

/**
 * Checks that every contender of ours ends with the same states as the first of ours (the
 * bench compares equal work); key order may differ, as `parseOwned` keeps the wire's.
 */
function checkSameStates(lines: readonly string[], updates: readonly BenchUpdate[]): void {
  const ours = LINE_FOLDERS.slice(1).map((folder) => ({ name: folder.name, result: folder.fold(lines) }));
  const saved = (result: (typeof ours)[number]["result"], session: string) => sessionStateToJSON(result.state(session) as SessionState);
  for (const session of new Set(updates.map((u) => u.session))) {
    for (const { name, result } of ours) {
      if (!isDeepStrictEqual(saved(result, session), saved(ours[0]!.result, session))) throw new Error(`${name}: a different state for ${session}`);
    }
  }
}

/** A bundle's size, and the minified bytes each source module contributes (largest first). */
interface BundleSize {
  readonly minified: number;
  readonly gzipped: number;
  readonly modules: readonly (readonly [string, number])[];
}

async function bundleSize(entry: string): Promise<BundleSize> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    write: false,
    metafile: true,
    logLevel: "error",
  });
  const code = result.outputFiles[0]!.contents;
  const inputs = Object.values(result.metafile.outputs)[0]!.inputs;
  const modules = Object.entries(inputs)
    .map(([file, input]) => [file, input.bytesInOutput] as const)
    .sort((a, b) => b[1] - a[1]);
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length, modules };
}

async function main(): Promise<void> {
  const rounds = numberArg("rounds") ?? 7;
  const warmup = numberArg("warmup") ?? 2;
  const trips = numberArg("trips") ?? 5000;
  const updates = benchUpdates(numberArg("updates"));
  console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log(`${rounds} rounds (+${warmup} warm-up), ${fmt(trips)} round trips and ${fmt(updates.length)} session/update notifications per sample`);
  const clients = await contenders(updates);
  const tripRows = [];
  const noteRows = [];
  for (const transport of ["memory", "stdio"] as const) {
    const list = clients[transport];
    tripRows.push({
      transport,
      clients: list,
      times: await measure(list, async (c) => {
        for (let i = 0; i < trips; i++) await c.roundTrip();
      }, rounds, warmup),
      baseline: 1,
    });
    noteRows.push({ transport, clients: list, times: await measure(list, (c) => c.stream(updates.length), rounds, warmup), baseline: 1 });
  }
  const lines = updateLines(updates);
  checkSameStates(lines, updates);
  // A fold sample is short and synchronous, so it gets three times the rounds: medians steadier under load.
  const foldTimes = await measure(LINE_FOLDERS, (folder) => void folder.fold(lines), rounds * 3, warmup);
  table("Request/response round trips (session/new, awaited one by one)", "round trips", "SDK", trips, tripRows);
  table("session/update notifications, agent -> client, decoded and reduced", "updates", "SDK", updates.length, noteRows);
  table("Bytes to state: session/update lines -> JSON.parse -> decode -> reduce, no transport", "updates", "hand-written", updates.length, [
    { transport: "none", clients: LINE_FOLDERS, times: foldTimes, baseline: 0 },
  ]);
  const ours = await bundleSize("./connection/client-ours.ts");
  const theirs = await bundleSize("./connection/client-sdk.ts");
  console.log("\nBundle of a client that connects and reduces session updates (esbuild --minify, gzip -9)");
  console.log("| client | minified | min+gz | ÷ SDK |");
  console.log("|---|---:|---:|---:|");
  for (const [name, size] of [["ours: bench/connection/client-ours.ts", ours], ["SDK: bench/connection/client-sdk.ts", theirs]] as const) {
    console.log(`| ${name} | ${fmt(size.minified / 1024, 1)} KiB | ${fmt(size.gzipped / 1024, 1)} KiB | ${fmt(size.gzipped / theirs.gzipped, 2)}× |`);
  }
  const largest = ours.modules.slice(0, 6).map(([file, bytes]) => `${file} ${fmt(bytes / 1024, 1)} KiB`);
  console.log(`\nours, minified bytes by module (largest): ${largest.join(", ")}`);
  for (const c of [...clients.memory, ...clients.stdio]) c.close();
}

await main();
