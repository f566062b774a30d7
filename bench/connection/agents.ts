/**
 * The two agents of bench/connection.bench.ts, doing the same work on
 * acp-bindings (`connectAgent`) and on the official SDK (`agent()`), both on
 * ACP v2 unstable: `session/new` answers at once (the round trip), and
 * `session/prompt` streams the given `session/update` notifications, each
 * awaited as an agent streaming output would, then answers. An update goes to
 * session `<prompt's session>/<its corpus session>`, so every prompt fills
 * fresh sessions shaped as in the corpus. Run as a child
 * process over stdio: `node --import tsx bench/connection/agents.ts ours|sdk`.
 */
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import * as sdk from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { connectAgent, type Transport } from "../../generated/src/v2/unstable/index.js";
import { ndJsonStream } from "../../generated/src/v2/unstable/index.js";
import { benchUpdates, type BenchUpdate } from "./workload.js";

const INFO = { name: "bench-agent", version: "1.0.0" };

/** Our agent on `transport`, streaming `updates` per prompt. */
export function oursAgent(transport: Transport, updates: readonly BenchUpdate[]): void {
  const client = connectAgent(transport, {
    initialize: () => ({ protocolVersion: 2, info: INFO }),
    "session/new": (params) => ({ sessionId: params.cwd }),
    "session/prompt": async (params) => {
      for (const { session, update } of updates) await client.notify("session/update", { sessionId: `${params.sessionId}/${session}`, update });
      return { messageId: "m" };
    },
  });
}

/** The SDK's agent app, streaming `updates` per prompt (connect it to a stream or a client app). */
export function sdkAgent(updates: readonly BenchUpdate[]) {
  return sdk
    .agent()
    .onRequest("initialize", async () => ({ protocolVersion: 2, info: INFO }))
    .onRequest("session/new", async ({ params }) => ({ sessionId: params.cwd }))
    .onRequest("session/prompt", async ({ params, client }) => {
      for (const { session, update } of updates) {
        await client.notify("session/update", { sessionId: `${params.sessionId}/${session}`, update: update as sdk.SessionUpdate });
      }
      return { messageId: "m" };
    });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const updates = benchUpdates();
  if (process.argv[2] === "sdk") {
    sdkAgent(updates).connect(sdk.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
  } else {
    oursAgent(ndJsonStream({ readable: process.stdin, writable: process.stdout }), updates);
  }
  process.stdin.on("end", () => process.exit(0));
}
