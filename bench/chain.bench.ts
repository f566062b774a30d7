/**
 * What a hop of a proxy chain costs, in memory (no processes, no pipes):
 *
 *   npx tsx bench/chain.bench.ts [--rounds 7] [--trips 5000] [--warmup 500]
 *   quick form: --trips 200 --rounds 1
 *
 * Our v2/unstable client (`connectClient`) over `chain(proxies, agent)` with 0,
 * 1 and 2 `forwardingProxy`s (no hooks) to an agent (`connectAgent`), every
 * link an `inMemoryTransports` pair. A round trip is a `session/new` (the
 * agent answers at once), awaited one by one (one in flight), timed each;
 * `--warmup` untimed trips first. Each round builds the three chains afresh and
 * measures them in a rotating order; per round the median µs per round trip of
 * each, and the added µs per hop: (1 proxy - 0) and (2 proxies - 0) / 2. The
 * table gives the median over rounds and the p10-p90 spread.
 */
import { performance } from "node:perf_hooks";
import {
  type AgentPeer,
  chain,
  connectAgent,
  connectClient,
  forwardingProxy,
  inMemoryTransports,
  PROTOCOL_VERSION,
} from "../generated/src/v2/unstable/index.js";
import { numberArg } from "./corpus.js";
import { median, quantile } from "./harness.js";

const ROUNDS = numberArg("rounds") ?? 7;
const TRIPS = numberArg("trips") ?? 5000;
const WARMUP = numberArg("warmup") ?? 500;
const HOPS = [0, 1, 2] as const;

/** A client -> chain of `proxies` forwarding proxies -> agent, all in memory. */
function build(proxies: number): AgentPeer {
  const proxySides = Array.from({ length: proxies }, () => {
    const [conductorSide, proxySide] = inMemoryTransports();
    forwardingProxy(proxySide);
    return conductorSide;
  });
  const [conductorSide, agentSide] = inMemoryTransports();
  connectAgent(agentSide, {
    initialize: () => ({ protocolVersion: PROTOCOL_VERSION, info: { name: "bench-agent", version: "1" } }),
    "session/new": () => ({ sessionId: "s1" }),
  });
  return connectClient(chain(proxySides, conductorSide), {});
}

/** The median µs of `TRIPS` round trips through a chain of `proxies` proxies. */
async function measure(proxies: number): Promise<number> {
  const agent = build(proxies);
  await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "bench-client", version: "1" } });
  for (let i = 0; i < WARMUP; i++) await agent.request("session/new", { cwd: "/" });
  const times: number[] = [];
  for (let i = 0; i < TRIPS; i++) {
    const start = performance.now();
    await agent.request("session/new", { cwd: "/" });
    times.push((performance.now() - start) * 1000);
  }
  agent.close();
  return median(times);
}

const perRound: Record<string, number[]> = { "0 proxies": [], "1 proxy": [], "2 proxies": [], "added per hop (1 proxy)": [], "added per hop (2 proxies)": [] };
for (let round = 0; round < ROUNDS; round++) {
  const got = new Map<number, number>();
  for (let k = 0; k < HOPS.length; k++) {
    const hops = HOPS[(round + k) % HOPS.length]!;
    got.set(hops, await measure(hops));
  }
  const [t0, t1, t2] = HOPS.map((h) => got.get(h)!) as [number, number, number];
  perRound["0 proxies"]!.push(t0);
  perRound["1 proxy"]!.push(t1);
  perRound["2 proxies"]!.push(t2);
  perRound["added per hop (1 proxy)"]!.push(t1 - t0);
  perRound["added per hop (2 proxies)"]!.push((t2 - t0) / 2);
}

const fmt = (us: number) => us.toFixed(1);
console.log(`chain round trips (session/new, one in flight, in memory): ${ROUNDS} round(s) x ${TRIPS} trips, ${WARMUP} warm-up; node ${process.version}`);
console.log("");
console.log("| chain | median µs | p10-p90 µs |");
console.log("|---|---:|---:|");
for (const [name, values] of Object.entries(perRound)) {
  const sorted = [...values].sort((a, b) => a - b);
  console.log(`| ${name} | ${fmt(median(values))} | ${fmt(quantile(sorted, 0.1))}-${fmt(quantile(sorted, 0.9))} |`);
}
