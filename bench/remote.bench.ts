/**
 * The network transports against the official SDK's, side by side in one run,
 * on loopback (127.0.0.1), over Streamable HTTP (POST + SSE) and over WebSocket:
 *
 *   npx tsx bench/remote.bench.ts [--rounds 7] [--warmup 2] [--trips 2000] [--updates 18924]
 *       [--firsts 200] [--idle 200] [--memory-rounds 3] [--sdk-fold auto|owned|naive]
 *   quick form: --rounds 1 --warmup 0 --trips 50 --updates 200 --firsts 10 --idle 5 --memory-rounds 1
 *
 * Ours is our server (`createAcpServer` behind `nodeHttpHandler` and
 * `nodeWebSocketUpgrade`, agent by `connectAgent`) with our client
 * (`connectClient` over `httpTransport` / `webSocketTransport`); the SDK's is
 * its server (`AcpServer` behind `createNodeHttpHandler` and
 * `createNodeWebSocketUpgradeHandler`, agent by `agent()`) with its client
 * (`client()` over `createHttpStream` / `createWebSocketStream`); both on ACP
 * v2 unstable, the `ws` package on both ends of a WebSocket. Each server runs
 * in a child process of its own (bench/remote/server.ts), the clients in this
 * one (bench/remote/clients.ts); ours, and the bench's own modules, compiled
 * to ES modules first and run by plain `node` (see `compiledDir`), as the
 * SDK's `.js` runs. Measured:
 * 1. round trips: `session/set_config_option` in an open session, awaited one
 *    by one (one in flight); over HTTP a POST answered 202, the response over
 *    the session's event stream;
 * 2. notifications: a prompt in a new session, the agent sending the corpus's
 *    `session/update`s (bench/connection/workload.ts) to it, each `notify`
 *    awaited; the client decodes each and folds it into the session's state:
 *    ours with `createSessionStore().update` as the handler, the SDK's in its
 *    handler with the faster of the generated `reduceSessionOwned` on zod's
 *    output and the hand-written in-place reducer of bench/naive-reducer.ts,
 *    measured before the run (`--sdk-fold auto`), so the baseline folds no
 *    slower than what its user would write by hand;
 * 3. time to first update: a prompt sent -> its one `session/update` reduced
 *    (the prompt's response awaited too, untimed), `--firsts` prompts per sample;
 * 4. memory per idle connection: fresh processes (`--expose-gc`) for server
 *    and client; after one warm-up connection, `--idle` more connections, each
 *    initialized with one session made and one round trip in it (over HTTP its
 *    event stream is then open); heap and RSS after a full GC, the difference
 *    divided by the count, server side and client side;
 * 5. the bundle (esbuild, minified, platform browser, gzip -9) of a browser
 *    client that connects over WebSocket and folds updates:
 *    bench/remote/client-ours.ts against bench/remote/client-sdk.ts.
 * Rounds interleave the contenders (rotating order); the tables give the
 * median and the p10-p90 spread, and the targets how many rounds met them
 * (each round's ratio of the pair measured in it).
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import type { SessionState, SessionUpdate } from "../generated/src/v2/unstable/index.js";
import { compileModules, importCompiled } from "./compiled-modules.js";
import { numberArg, stringArg } from "./corpus.js";
import { median, quantile } from "./harness.js";
import type { NaiveState } from "./naive-reducer.js";
import type { RemoteClient, SdkFoldName, Side, Wire } from "./remote/clients.js";
import { benchUpdates } from "./connection/workload.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The bench's own modules, compiled with generated/src into ES modules run by plain `node` (see `compiled`). */
const COMPILED = ["bench/remote/server.ts", "bench/remote/idle.ts", "bench/remote/clients.ts", "bench/corpus.ts", "bench/harness.ts", "bench/naive-reducer.ts", "bench/progress.ts", "bench/connection/workload.ts"];
const WIRES: readonly Wire[] = ["http", "ws"];
const SIDES: readonly Side[] = ["ours", "sdk"];
const WIRE_NAME: Record<Wire, string> = { http: "HTTP+SSE", ws: "WebSocket" };

interface Memory {
  readonly heap: number;
  readonly rss: number;
}

/** A server child process (`ours` or `sdk`), listening; `ask` sends a message and resolves with the reply of the same type. */
interface ServerChild {
  readonly url: string;
  readonly wsUrl: string;
  ask<T>(type: string): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Where the compiled modules are: generated/src and the bench's modules
 * (`COMPILED`) compiled file by file by esbuild into ES modules under the
 * project's git-ignored tmp/ (so that `ws` and the SDK resolve from its
 * node_modules), as the published package's `.js` runs. Not the `.ts` sources
 * under tsx: tsx loads them as CommonJS and keeps function names with a
 * `__name` call that gives every closure made at run time a property of its
 * own (about 250 bytes each: a connection makes dozens), which the SDK's
 * `.js` does not pay. The servers and the idle clients run them with plain
 * `node`; this process imports the clients from them.
 */
let compiledDir = "";

const execArgvOf = (gcFlag: boolean): string[] => (gcFlag ? ["--expose-gc"] : []);

function startServer(side: Side, updates: number, gcFlag: boolean): Promise<ServerChild> {
  const child = fork(join(compiledDir, "bench/remote/server.js"), [side, "--updates", String(updates)], { execArgv: execArgvOf(gcFlag), stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the ${side} server exited with ${code} before listening`)));
    child.once("message", (message: { port: number }) => {
      const base = `127.0.0.1:${message.port}/acp`;
      resolve({
        url: `http://${base}`,
        wsUrl: `ws://${base}`,
        ask: (type) => reply(child, type),
        stop: () => stopChild(child),
      });
    });
  });
}

/** Sends `{ type }` to `child` and resolves with its next message of that type. */
function reply<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type?: string }) => {
      if (message.type !== type) return;
      child.off("message", onMessage);
      child.off("exit", onExit);
      resolve(message as T);
    };
    const onExit = (code: number | null) => reject(new Error(`a child process exited with ${code} while asked for ${type}`));
    child.on("message", onMessage);
    child.once("exit", onExit);
    if (type !== "baseline" && type !== "after") child.send({ type });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.disconnect();
    setTimeout(() => child.kill(), 5000).unref();
  });
}

/** Seconds (or any figure) per sample of `work`, `rounds` times per contender, interleaved with a rotating order. */
async function measure<C>(clients: readonly C[], work: (c: C) => Promise<number>, rounds: number, warmup: number): Promise<number[][]> {
  const times = clients.map((): number[] => []);
  for (let round = 0; round < warmup + rounds; round++) {
    for (let k = 0; k < clients.length; k++) {
      const i = (round + k) % clients.length;
      const value = await work(clients[i]!);
      if (round >= warmup) times[i]!.push(value);
    }
  }
  return times;
}

const timed = async (work: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
};

function fmt(value: number, digits = 0): string {
  return value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** One transport's pair: ours first, the SDK's second, and their per-sample figures (same order). */
interface Pair {
  readonly wire: Wire;
  readonly names: readonly string[];
  readonly values: readonly (readonly number[])[];
}

/** A target's tally: each round's SDK/ours ratio (higher is better for ours, as `better` says) against `target`. */
interface Tally {
  readonly what: string;
  readonly target: string;
  readonly median: number;
  readonly met: number;
  readonly of: number;
}
const tallies: Tally[] = [];

/**
 * A rate table (per second, from seconds per sample of `perSample` operations),
 * ratio ours ÷ SDK; each round's ratio counted against `target` (× the SDK's rate).
 */
function rateTable(title: string, unit: string, perSample: number, pairs: readonly Pair[], target: number): void {
  console.log(`\n${title}`);
  console.log(`| transport | side | ${unit}/s (median) | spread (p10–p90) | ÷ SDK |`);
  console.log("|---|---|---:|---:|---:|");
  for (const pair of pairs) {
    const medians = pair.values.map((v) => median(v));
    pair.names.forEach((name, i) => {
      const sorted = [...pair.values[i]!].sort((a, b) => a - b);
      const rate = (seconds: number): number => perSample / seconds;
      console.log(`| ${WIRE_NAME[pair.wire]} | ${name} | ${fmt(rate(medians[i]!))} | ${fmt(rate(quantile(sorted, 0.9)))}–${fmt(rate(quantile(sorted, 0.1)))} | ${fmt(medians[1]! / medians[i]!, 2)}× |`);
    });
    const ratios = pair.values[0]!.map((ours, r) => pair.values[1]![r]! / ours);
    tallies.push({ what: `${unit}/s, ${WIRE_NAME[pair.wire]}`, target: `≥ ${target}× SDK`, median: medians[1]! / medians[0]!, met: ratios.filter((x) => x >= target).length, of: ratios.length });
  }
}

/** Latency table (milliseconds per sample, the sample's median), ratio ours ÷ SDK (lower is better). */
function latencyTable(title: string, pairs: readonly Pair[]): void {
  console.log(`\n${title}`);
  console.log("| transport | side | ms (median) | spread (p10–p90) | ÷ SDK |");
  console.log("|---|---|---:|---:|---:|");
  for (const pair of pairs) {
    const medians = pair.values.map((v) => median(v));
    pair.names.forEach((name, i) => {
      const sorted = [...pair.values[i]!].sort((a, b) => a - b);
      console.log(`| ${WIRE_NAME[pair.wire]} | ${name} | ${fmt(medians[i]!, 3)} | ${fmt(quantile(sorted, 0.1), 3)}–${fmt(quantile(sorted, 0.9), 3)} | ${fmt(medians[i]! / medians[1]!, 2)}× |`);
    });
  }
}

/** One memory measurement: per idle connection, bytes, server and client, heap and RSS. */
interface IdleCost {
  readonly serverHeap: number;
  readonly serverRss: number;
  readonly clientHeap: number;
  readonly clientRss: number;
}

/** Memory per idle connection of `side` on `wire`, `count` connections, in fresh server and client processes. */
async function idleCost(side: Side, wire: Wire, count: number, fold: SdkFoldName): Promise<IdleCost> {
  const server = await startServer(side, 1, true);
  const url = wire === "http" ? server.url : server.wsUrl;
  const client = fork(join(compiledDir, "bench/remote/idle.js"), [side, wire, url, String(count), fold], { execArgv: execArgvOf(true), stdio: ["ignore", "inherit", "inherit", "ipc"] });
  try {
    const clientBefore = await reply<Memory>(client, "baseline");
    const serverBefore = await server.ask<Memory>("memory");
    const after = reply<Memory>(client, "after");
    client.send({ type: "open" });
    const clientAfter = await after;
    const serverAfter = await server.ask<Memory>("memory");
    return {
      serverHeap: (serverAfter.heap - serverBefore.heap) / count,
      serverRss: (serverAfter.rss - serverBefore.rss) / count,
      clientHeap: (clientAfter.heap - clientBefore.heap) / count,
      clientRss: (clientAfter.rss - clientBefore.rss) / count,
    };
  } finally {
    await stopChild(client);
    await server.stop();
  }
}

function memoryTable(costs: Record<Wire, Record<Side, IdleCost[]>>, count: number, target: number): void {
  console.log(`\nMemory per idle connection (one session, its stream open; ${fmt(count)} connections, fresh processes, after a full GC), KiB`);
  console.log("| transport | side | where | heap (median) | heap spread (min–max) | heap ÷ SDK | RSS (median) | RSS ÷ SDK |");
  console.log("|---|---|---|---:|---:|---:|---:|---:|");
  const kib = (bytes: number): string => fmt(bytes / 1024, 1);
  for (const wire of WIRES) {
    for (const where of ["server", "client"] as const) {
      const heapKey = `${where}Heap` as const;
      const rssKey = `${where}Rss` as const;
      const sdkHeap = median(costs[wire].sdk.map((c) => c[heapKey]));
      const sdkRss = median(costs[wire].sdk.map((c) => c[rssKey]));
      for (const side of SIDES) {
        const list = costs[wire][side];
        const heaps = list.map((c) => c[heapKey]);
        const heap = median(heaps);
        const rss = median(list.map((c) => c[rssKey]));
        console.log(`| ${WIRE_NAME[wire]} | ${side === "ours" ? "ours" : "SDK"} | ${where} | ${kib(heap)} | ${kib(Math.min(...heaps))}–${kib(Math.max(...heaps))} | ${fmt(heap / sdkHeap, 2)}× | ${kib(rss)} | ${fmt(rss / sdkRss, 2)}× |`);
      }
      const ratios = costs[wire].ours.map((c, r) => c[heapKey] / costs[wire].sdk[r]![heapKey]);
      tallies.push({
        what: `heap per idle connection, ${where}, ${WIRE_NAME[wire]}`,
        target: `≤ ${target}× SDK`,
        median: median(costs[wire].ours.map((c) => c[heapKey])) / sdkHeap,
        met: ratios.filter((x) => x <= target).length,
        of: ratios.length,
      });
    }
  }
}

async function bundleSize(entry: string): Promise<{ minified: number; gzipped: number }> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "error",
  });
  const code = result.outputFiles[0]!.contents;
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length };
}

/**
 * The fold the SDK's client uses under `auto`: the faster of the two on this
 * workload (every update into one session, as a prompt streams them), each on
 * fresh values (`JSON.parse` of the lines, untimed), median of 7 folds.
 */
function fasterFold(updates: readonly SessionUpdate[], modules: Modules): SdkFoldName {
  const { emptySessionState, reduceSessionOwned } = modules.bindings;
  const { naiveEmpty, naiveReduceInPlace } = modules.naive;
  const text = JSON.stringify(updates);
  const folds: Record<SdkFoldName, (values: SessionUpdate[]) => void> = {
    owned: (values) => {
      let state: SessionState = emptySessionState();
      for (const update of values) state = reduceSessionOwned(state, update);
    },
    naive: (values) => {
      const state: NaiveState = naiveEmpty();
      for (const update of values) naiveReduceInPlace(state, update as unknown as Record<string, unknown>);
    },
  };
  const times: Record<SdkFoldName, number[]> = { owned: [], naive: [] };
  for (let i = 0; i < 9; i++) {
    for (const name of ["owned", "naive"] as const) {
      const values = JSON.parse(text) as SessionUpdate[];
      const started = performance.now();
      folds[name](values);
      if (i >= 2) times[name].push(performance.now() - started);
    }
  }
  const chosen: SdkFoldName = median(times.naive) < median(times.owned) ? "naive" : "owned";
  console.log(`SDK fold: ${modules.clients.SDK_FOLDS[chosen]().name} (median fold of the workload: reduceSessionOwned ${fmt(median(times.owned), 1)} ms, hand-written in-place ${fmt(median(times.naive), 1)} ms)`);
  return chosen;
}

/** The compiled modules this process uses. */
interface Modules {
  readonly clients: typeof import("./remote/clients.js");
  readonly bindings: typeof import("../generated/src/v2/unstable/index.js");
  readonly naive: typeof import("./naive-reducer.js");
}

async function compiled(): Promise<Modules> {
  mkdirSync(join(ROOT, "tmp"), { recursive: true });
  compiledDir = mkdtempSync(join(ROOT, "tmp", "remote-bench-"));
  await compileModules(ROOT, compiledDir, COMPILED);
  return {
    clients: (await importCompiled(compiledDir, "bench/remote/clients.js")) as Modules["clients"],
    bindings: (await importCompiled(compiledDir, "generated/src/v2/unstable/index.js")) as Modules["bindings"],
    naive: (await importCompiled(compiledDir, "bench/naive-reducer.js")) as Modules["naive"],
  };
}

async function main(): Promise<void> {
  const rounds = numberArg("rounds") ?? 7;
  const warmup = numberArg("warmup") ?? 2;
  const trips = numberArg("trips") ?? 2000;
  const firsts = numberArg("firsts") ?? 200;
  const idle = numberArg("idle") ?? 200;
  const memoryRounds = numberArg("memory-rounds") ?? 3;
  const updates = benchUpdates(numberArg("updates")).map((u) => u.update);
  const foldArg = stringArg("sdk-fold") ?? "auto";
  console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log(
    `${rounds} rounds (+${warmup} warm-up), per sample ${fmt(trips)} round trips, ${fmt(updates.length)} session/update notifications, ${fmt(firsts)} prompts to a first update; ` +
      `${fmt(idle)} idle connections × ${memoryRounds} memory rounds`,
  );
  const modules = await compiled();
  const { remoteClient, SDK_FOLDS } = modules.clients;
  if (foldArg !== "auto" && !(foldArg in SDK_FOLDS)) throw new Error(`--sdk-fold: auto, owned or naive, not ${foldArg}`);
  const fold: SdkFoldName = foldArg === "auto" ? fasterFold(updates, modules) : (foldArg as SdkFoldName);

  const servers = { ours: await startServer("ours", updates.length, false), sdk: await startServer("sdk", updates.length, false) };
  const tripPairs: Pair[] = [];
  const notePairs: Pair[] = [];
  const firstPairs: Pair[] = [];
  for (const wire of WIRES) {
    const clients: RemoteClient[] = [];
    for (const side of SIDES) clients.push(await remoteClient(side, wire, wire === "http" ? servers[side].url : servers[side].wsUrl, fold));
    const names = clients.map((c) => c.name);
    tripPairs.push({
      wire,
      names,
      values: await measure(clients, (c) => timed(async () => {
        for (let i = 0; i < trips; i++) await c.roundTrip();
      }), rounds, warmup),
    });
    notePairs.push({ wire, names, values: await measure(clients, (c) => c.stream(updates.length), rounds, warmup) });
    firstPairs.push({
      wire,
      names,
      values: await measure(clients, async (c) => {
        const ms: number[] = [];
        for (let i = 0; i < firsts; i++) ms.push(await c.firstUpdate());
        return median(ms);
      }, rounds, warmup),
    });
    for (const c of clients) c.close();
  }
  await Promise.all([servers.ours.stop(), servers.sdk.stop()]);

  const costs = { http: { ours: [], sdk: [] }, ws: { ours: [], sdk: [] } } as Record<Wire, Record<Side, IdleCost[]>>;
  for (let round = 0; round < memoryRounds; round++) {
    for (const wire of WIRES) {
      const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
      for (const side of order) costs[wire][side].push(await idleCost(side, wire, idle, fold));
    }
  }

  rateTable("Request/response round trips (session/set_config_option in an open session, awaited one by one)", "round trips", trips, tripPairs, 2);
  rateTable("session/update notifications, agent -> client, decoded and reduced (one prompt, one new session)", "updates", updates.length, notePairs, 5);
  latencyTable(`Time to first update: prompt sent -> its one session/update reduced (median of ${fmt(firsts)} prompts per sample)`, firstPairs);
  memoryTable(costs, idle, 0.5);

  const ours = await bundleSize("./remote/client-ours.ts");
  const theirs = await bundleSize("./remote/client-sdk.ts");
  console.log("\nBundle of a browser client that connects over WebSocket and folds session updates (esbuild --minify --platform=browser, gzip -9)");
  console.log("| client | minified | min+gz | ÷ SDK |");
  console.log("|---|---:|---:|---:|");
  for (const [name, size] of [["ours: bench/remote/client-ours.ts", ours], ["SDK: bench/remote/client-sdk.ts", theirs]] as const) {
    console.log(`| ${name} | ${fmt(size.minified / 1024, 1)} KiB | ${fmt(size.gzipped / 1024, 1)} KiB | ${fmt(size.gzipped / theirs.gzipped, 2)}× |`);
  }
  tallies.push({ what: "browser bundle, min+gz", target: "≤ 0.35× SDK", median: ours.gzipped / theirs.gzipped, met: ours.gzipped / theirs.gzipped <= 0.35 ? 1 : 0, of: 1 });

  console.log("\nTargets (ratio of medians; rounds: each round's ratio of the pair measured in it)");
  console.log("| measure | target | ours ÷ SDK (median) | rounds met |");
  console.log("|---|---|---:|---:|");
  for (const t of tallies) console.log(`| ${t.what} | ${t.target} | ${fmt(t.median, 2)}× | ${t.met}/${t.of} |`);
  console.log(`\nload at the end ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
}

try {
  await main();
} finally {
  if (compiledDir !== "") rmSync(compiledDir, { recursive: true, force: true });
}
