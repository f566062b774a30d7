/**
 * The client's live sessions: every `session/update` folded into a state per
 * session id by the surface's reducer. Each surface's `createSessionStore()`
 * binds it to its `emptySessionState` / `reduceSession` / `reduceSessionOwned`.
 */
import { withOwningTwin } from "./connection.js";

/** A listener told about each session whose state changed. */
export type SessionListener<S> = (sessionId: string, state: S) => void;

/** Session states by id, fed by `session/update` notifications. */
export interface SessionStore<S, N> {
  /**
   * Folds one `session/update` notification into its session, copying what it keeps (the
   * caller's object is never changed nor frozen). Passed as the connection's `session/update`
   * handler, it is the trusted path: the connection's own decoded updates are kept uncopied.
   */
  readonly update: (notification: N) => void;
  /** The current state of a session, or `undefined` before its first update. */
  get(sessionId: string): S | undefined;
  /** Calls `listener` after every update; returns the function that unsubscribes it. */
  subscribe(listener: SessionListener<S>): () => void;
}

/**
 * A store over `reduce`, starting each session at `empty()`. `update` copies
 * what it is given (`reduce`); the connection, handing it an update decoded
 * from its own tree, calls its owning twin instead, which keeps the update's
 * values as they are (`reduceOwned`, e.g. `reduceSessionOwned`).
 */
export function sessionStore<S, U>(
  empty: () => S,
  reduce: (state: S, update: U) => S,
  reduceOwned: (state: S, update: U) => S,
): SessionStore<S, { readonly sessionId: string; readonly update: U }> {
  const states = new Map<string, S>();
  const listeners = new Set<SessionListener<S>>();
  const folding = (fold: (state: S, update: U) => S) => (notification: { readonly sessionId: string; readonly update: U }): void => {
    const state = fold(states.get(notification.sessionId) ?? empty(), notification.update);
    states.set(notification.sessionId, state);
    for (const listener of listeners) listener(notification.sessionId, state);
  };
  return {
    update: withOwningTwin(folding(reduce), folding(reduceOwned)),
    get: (sessionId) => states.get(sessionId),
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
