/**
 * The bundle-size probe of bench/connection.bench.ts, on the official SDK: the
 * same client as client-ours.ts. The SDK has no session reducer, so the
 * client folds updates with the hand-written one of bench/naive-reducer.ts,
 * as its users would have to.
 */
import { client, ndJsonStream } from "@agentclientprotocol/sdk/experimental/v2";
import { naiveEmpty, naiveReduce, type NaiveState } from "../naive-reducer.js";

/** Connects to an agent on the given streams. */
export function start(output: WritableStream<Uint8Array>, input: ReadableStream<Uint8Array>) {
  const sessions = new Map<string, NaiveState>();
  const app = client().onNotification("session/update", async ({ params }) => {
    sessions.set(params.sessionId, naiveReduce(sessions.get(params.sessionId) ?? naiveEmpty(), params.update as never));
  });
  return { connection: app.connect(ndJsonStream(output, input)), sessions };
}
