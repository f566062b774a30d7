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
 *   `sessions.update` (`parseOwned`, then the copying `reduceSession`); one
 *   line at a time (`LineSink.line`), or in the batches `ndJsonStream` hands
 *   over when the agent keeps its pipe full (`LineSink.lines`, 64 KiB reads);
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
import { readsOf } from "../corpus.js";
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

type Sink = Parameters<Transport["start"]>[0];

/** How the lines reach the connection's sink: one `line` call each, or one `lines` call per 64 KiB read (made before timing). */
type Feed = (lines: readonly string[]) => (sink: Sink) => void;
const lineByLine: Feed = (lines) => (sink) => {
  for (const line of lines) sink.line(line);
};
/** The reads of each sample's lines, cut once, outside timing (the samples share one array of lines). */
const readsCache = new WeakMap<readonly string[], { texts: string[] }[]>();
const inReads: Feed = (lines) => {
  let reads = readsCache.get(lines);
  if (reads === undefined) readsCache.set(lines, (reads = readsOf(lines)));
  return (sink) => {
    for (const { texts } of reads) sink.lines!(texts);
  };
};

/** A transport that hands the lines to the connection when told to, and writes nothing anywhere. */
function feedingTransport(): Transport & { feed(feed: (sink: Sink) => void): void } {
  let sink: Sink | undefined;
  return {
    start: (s) => void (sink = s),
    send: () => Promise.resolve(),
    close() {},
    feed: (feed) => sink && feed(sink),
  };
}

/** Lines through `connectClient` into a session store, its `update` given by `handlerOf`, fed by `feed`. */
function throughConnection(
  name: string,
  feed: Feed,
  handlerOf: (sessions: ReturnType<typeof createSessionStore>) => (params: UpdateSessionNotification) => void,
): LineFolder {
  return {
    name,
    fold(lines) {
      const sessions = createSessionStore();
      const transport = feedingTransport();
      const errors: Error[] = [];
      const peer = connectClient(transport, { "session/update": handlerOf(sessions) }, { onError: (error) => errors.push(error) });
      transport.feed(feed(lines));
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
  throughConnection("ours: connectClient + sessions.update (trusted)", lineByLine, (sessions) => sessions.update),
  throughConnection("ours: connectClient + sessions.update (trusted), 64 KiB reads", inReads, (sessions) => sessions.update),
  throughConnection("ours: connectClient + own handler calling sessions.update", lineByLine, (sessions) => (params) => sessions.update(params)),
  direct("ours, no connection: JSON.parse + parse + reduceSession (the decode+reduce of before)", parse.UpdateSessionNotification, reduceSession),
  direct("ours, no connection: JSON.parse + parseOwned + reduceSessionOwned", parseOwned.UpdateSessionNotification, reduceSessionOwned),
];
