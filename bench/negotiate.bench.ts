/**
 * Router overhead (issue 30): round trips and notifications per second
 * through `serveVersions` (acp-bindings/negotiate) against the same surface's
 * `connectAgent` directly, in one run, over in-memory transports; both
 * negotiated to v2, and v1 through the router as well. A round trip is a
 * client `session/new` answered by the agent; a notification is an agent
 * `session/update` handled by the client. The agents alternate within each
 * round, so drift in the machine's speed hits both alike; the table shows the
 * median of the rounds.
 *
 *   npx tsx bench/negotiate.bench.ts [--trips N] [--updates N] [--rounds N]
 */
import { parseArgs } from "node:util";
import { serveVersions } from "../generated/src/negotiate/index.js";
import * as v1 from "../generated/src/v1/index.js";
import * as v2 from "../generated/src/v2/index.js";
import type { Peer } from "../generated/src/runtime/connection.js";
import { median } from "./harness.js";

const { values } = parseArgs({ options: { trips: { type: "string", default: "20000" }, updates: { type: "string", default: "200000" }, rounds: { type: "string", default: "5" } } });
const TRIPS = Number(values.trips);
const UPDATES = Number(values.updates);
const ROUNDS = Number(values.rounds);

const UPDATE: v2.SessionUpdate = { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "a chunk of the reply" } };
const UPDATE_V1: v1.SessionUpdate = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "a chunk of the reply" } };

/** One agent set-up: starts the agent on its transport; the client speaks `version`. */
interface Setup {
  readonly name: string;
  readonly version: 1 | 2;
  readonly start: (transport: v2.Transport) => void;
}

/** The v2 agent; `client()` is its peer. */
function v2Handlers(client: () => v2.ClientPeer): v2.AgentHandlers {
  return {
    initialize: () => ({ protocolVersion: 2, info: { name: "bench", version: "1" } }),
    "session/new": () => ({ sessionId: "s" }),
    "session/prompt": async ({ sessionId }) => {
      for (let i = 0; i < UPDATES; i++) void client().notify("session/update", { sessionId, update: UPDATE });
      return { messageId: "u" };
    },
  };
}

/** The v1 agent; `client()` is its peer. */
function v1Handlers(client: () => v1.ClientPeer): v1.AgentHandlers {
  return {
    initialize: () => ({ protocolVersion: 1 }),
    "session/new": () => ({ sessionId: "s" }),
    "session/prompt": async ({ sessionId }) => {
      for (let i = 0; i < UPDATES; i++) void client().notify("session/update", { sessionId, update: UPDATE_V1 });
      return { stopReason: "end_turn" };
    },
  };
}

const SETUPS: readonly Setup[] = [
  {
    name: "v2 connectAgent",
    version: 2,
    start: (transport) => {
      const client: v2.ClientPeer = v2.connectAgent(transport, v2Handlers(() => client));
    },
  },
  { name: "v2 serveVersions", version: 2, start: (transport) => void serveVersions(transport, { v1: (c) => v1Handlers(() => c), v2: (c) => v2Handlers(() => c) }) },
  {
    name: "v1 connectAgent",
    version: 1,
    start: (transport) => {
      const client: v1.ClientPeer = v1.connectAgent(transport, v1Handlers(() => client));
    },
  },
  { name: "v1 serveVersions", version: 1, start: (transport) => void serveVersions(transport, { v1: (c) => v1Handlers(() => c), v2: (c) => v2Handlers(() => c) }) },
];

/** One measurement of a set-up: round trips per second and notifications per second. */
async function measure(setup: Setup): Promise<{ trips: number; updates: number }> {
  const [agentEnd, clientEnd] = v2.inMemoryTransports();
  let received = 0;
  let allReceived: () => void = () => {};
  setup.start(agentEnd);
  const onUpdate = () => void (++received === UPDATES && allReceived());
  const agent: Peer<any, any> = setup.version === 2 ? v2.connectClient(clientEnd, { "session/update": onUpdate }) : v1.connectClient(clientEnd, { "session/update": onUpdate });
  await agent.request("initialize", { protocolVersion: setup.version, info: { name: "bench", version: "1" } } );
  const params = { cwd: "/", mcpServers: [] };
  let started = performance.now();
  for (let i = 0; i < TRIPS; i++) await agent.request("session/new", params );
  const trips = TRIPS / ((performance.now() - started) / 1000);
  const all = new Promise<void>((resolve) => (allReceived = resolve));
  started = performance.now();
  await agent.request("session/prompt", { sessionId: "s", prompt: [{ type: "text", text: "go" }] } );
  await all;
  const updates = UPDATES / ((performance.now() - started) / 1000);
  agent.close();
  return { trips, updates };
}

const results = new Map(SETUPS.map((s) => [s.name, { trips: [] as number[], updates: [] as number[] }]));
for (let round = 0; round < ROUNDS; round++) {
  for (const setup of SETUPS) {
    const { trips, updates } = await measure(setup);
    results.get(setup.name)!.trips.push(trips);
    results.get(setup.name)!.updates.push(updates);
  }
}

const format = (n: number): string => Math.round(n).toLocaleString("en-US");
console.log(`Router overhead: ${format(TRIPS)} round trips (session/new) and ${format(UPDATES)} notifications (session/update), in memory, median of ${ROUNDS} round(s)\n`);
console.log("| agent | round trips/s | notifications/s | vs connectAgent (trips, notifications) |");
console.log("|---|---|---|---|");
for (const setup of SETUPS) {
  const ours = results.get(setup.name)!;
  const direct = results.get(`v${setup.version} connectAgent`)!;
  const ratio = (a: number[], b: number[]): string => `${((median(a) / median(b)) * 100).toFixed(0)}%`;
  console.log(`| ${setup.name} | ${format(median(ours.trips))} | ${format(median(ours.updates))} | ${ratio(ours.trips, direct.trips)}, ${ratio(ours.updates, direct.updates)} |`);
}
