/**
 * The browser bundle probe of bench/remote.bench.ts, on the official SDK: the
 * same client as client-ours.ts, `client()` over `createWebSocketStream` (the
 * browser's own WebSocket). The SDK has no session reducer, so the client
 * folds updates with the hand-written one of bench/naive-reducer.ts, as its
 * users would have to (as bench/connection/client-sdk.ts does).
 */
import { client } from "@agentclientprotocol/sdk/experimental/v2";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { naiveEmpty, naiveReduce, type NaiveState } from "../naive-reducer.js";

/** Connects to the agent at `url` (`ws://` or `wss://`). */
export function start(url: string) {
  const sessions = new Map<string, NaiveState>();
  const app = client().onNotification("session/update", async ({ params }) => {
    sessions.set(params.sessionId, naiveReduce(sessions.get(params.sessionId) ?? naiveEmpty(), params.update as never));
  });
  return { connection: app.connect(createWebSocketStream(url)), sessions };
}
