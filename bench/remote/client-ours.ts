/**
 * The browser bundle probe of bench/remote.bench.ts, on acp-bindings: a client
 * that connects over a WebSocket (the browser's own) and folds every
 * `session/update` into a live state per session.
 */
import { connectClient, createSessionStore, webSocketTransport } from "../../generated/src/v2/index.js";

/** Connects to the agent at `url` (`ws://` or `wss://`). */
export function start(url: string) {
  const sessions = createSessionStore();
  const agent = connectClient(webSocketTransport(url), { "session/update": sessions.update });
  return { agent, sessions };
}
