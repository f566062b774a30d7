/**
 * The bundle-size probe of bench/connection.bench.ts, on acp-bindings: a
 * client that connects over newline-delimited JSON and folds every
 * `session/update` into a live state per session.
 */
import { connectClient, createSessionStore, ndJsonStream, type NodeReadable, type NodeWritable } from "../../generated/src/v2/index.js";

/** Connects to an agent on the given streams. */
export function start(readable: NodeReadable, writable: NodeWritable) {
  const sessions = createSessionStore();
  const agent = connectClient(ndJsonStream({ readable, writable }), { "session/update": sessions.update });
  return { agent, sessions };
}
