/**
 * "Bytes to state" for bench/connection.bench.ts: the corpus's `session/update`
 * notifications as JSON-RPC lines, each folded into its session's state,
 * synchronously and without a transport, so that only decoding and reducing
 * are timed (lines -> JSON.parse -> decode -> reduce). The contenders:
 * - hand-written: `JSON.parse` + the in-place naive reducer of
 *   bench/naive-reducer.ts (no checks, one mutable state per session; the
 *   baseline);
 * - ours through the connection: the lines fed to `connectClient`'s line sink,
 *   with `sessions.update` as the handler (the trusted path: `parseOwned`,
 *   then `reduceSessionOwned`), or a handler of the user's calling
 *   `sessions.update` (`parseOwned`, then the copying `reduceSession`);
 * - ours without the connection: `JSON.parse` + `parse` + `reduceSession` (what
 *   the connection did per line before it decoded in place) and `JSON.parse` +
 *   `parseOwned` + `reduceSessionOwned` (the same trusted path, no routing).
 */
import {
  connectClient,
  createSessionStore,
  emptySessionState,
  parse,
  parseOwned,
  reduceSession,
  reduceSessionOwned,
  type SessionState,
  type Transport,
  type UpdateSessionNotification,
} from "../../generated/src/v2/unstable/index.js";
import { naiveEmpty, naiveReduceInPlace, type NaiveState } from "../naive-reducer.js";
import type { BenchUpdate } from "./workload.js";

/** One way from lines to states: folds every line of one sample; `state` reads a session's state afterwards. */
export interface LineFolder {
  readonly name: string;
  fold(lines: readonly string[]): { state(sessionId: string): unknown };
}

/** The `session/update` lines of `updates`, as an agent writes them. */
export function updateLines(updates: readonly BenchUpdate[]): string[] {
  return updates.map(({ session, update }) => JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: session, update } }));
}

/** A transport that hands each line given to `feed` to the connection at once, and writes nothing anywhere. */
function feedingTransport(): Transport & { feed(line: string): void } {
  let sink: Parameters<Transport["start"]>[0] | undefined;
  return {
    start: (s) => void (sink = s),
    send: () => Promise.resolve(),
    close() {},
    feed: (line) => sink?.line(line),
  };
}

/** Lines through `connectClient` into a session store, its `update` given by `handlerOf`. */
function throughConnection(name: string, handlerOf: (sessions: ReturnType<typeof createSessionStore>) => (params: UpdateSessionNotification) => void): LineFolder {
  return {
    name,
    fold(lines) {
      const sessions = createSessionStore();
      const transport = feedingTransport();
      const errors: Error[] = [];
      const peer = connectClient(transport, { "session/update": handlerOf(sessions) }, { onError: (error) => errors.push(error) });
      for (const line of lines) transport.feed(line);
      peer.close();
      if (errors.length > 0) throw errors[0];
      return { state: (sessionId) => sessions.get(sessionId) };
    },
  };
}

/** `JSON.parse`, a decoder and a reducer per line, with no connection. */
function direct(
  name: string,
  decode: (value: unknown) => { ok: true; value: UpdateSessionNotification } | { ok: false },
  reduce: (state: SessionState, update: UpdateSessionNotification["update"]) => SessionState,
): LineFolder {
  return {
    name,
    fold(lines) {
      const states = new Map<string, SessionState>();
      for (const line of lines) {
        const decoded = decode((JSON.parse(line) as { params: unknown }).params);
        if (!decoded.ok) throw new Error("a bench update did not decode");
        const { sessionId, update } = decoded.value;
        states.set(sessionId, reduce(states.get(sessionId) ?? emptySessionState(), update));
      }
      return { state: (sessionId) => states.get(sessionId) };
    },
  };
}

/** The baseline: what a client author writes by hand, with no checks and one mutable state per session. */
const handWritten: LineFolder = {
  name: "hand-written: JSON.parse + in-place naive reducer",
  fold(lines) {
    const states = new Map<string, NaiveState>();
    for (const line of lines) {
      const { sessionId, update } = (JSON.parse(line) as { params: { sessionId: string; update: Record<string, unknown> } }).params;
      const state = states.get(sessionId);
      if (state === undefined) states.set(sessionId, naiveReduceInPlace(naiveEmpty(), update));
      else naiveReduceInPlace(state, update);
    }
    return { state: (sessionId) => states.get(sessionId) };
  },
};

/** Every contender, the baseline first. */
export const LINE_FOLDERS: readonly LineFolder[] = [
  handWritten,
  throughConnection("ours: connectClient + sessions.update (trusted)", (sessions) => sessions.update),
  throughConnection("ours: connectClient + own handler calling sessions.update", (sessions) => (params) => sessions.update(params)),
  direct("ours, no connection: JSON.parse + parse + reduceSession (the decode+reduce of before)", parse.UpdateSessionNotification, reduceSession),
  direct("ours, no connection: JSON.parse + parseOwned + reduceSessionOwned", parseOwned.UpdateSessionNotification, reduceSessionOwned),
];
