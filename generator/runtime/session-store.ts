/**
 * The client's live sessions: every `session/update` folded into a state per
 * session id by the surface's reducer. Each surface's `createSessionStore()`
 * binds it to its `emptySessionState` / `reduceSession`.
 */

/** A listener told about each session whose state changed. */
export type SessionListener<S> = (sessionId: string, state: S) => void;

/** Session states by id, fed by `session/update` notifications. */
export interface SessionStore<S, N> {
  /** Folds one `session/update` notification into its session; usable as the `session/update` handler. */
  readonly update: (notification: N) => void;
  /** The current state of a session, or `undefined` before its first update. */
  get(sessionId: string): S | undefined;
  /** Calls `listener` after every update; returns the function that unsubscribes it. */
  subscribe(listener: SessionListener<S>): () => void;
}

/** A store over `reduce`, starting each session at `empty()`. */
export function sessionStore<S, U>(empty: () => S, reduce: (state: S, update: U) => S): SessionStore<S, { readonly sessionId: string; readonly update: U }> {
  const states = new Map<string, S>();
  const listeners = new Set<SessionListener<S>>();
  return {
    update(notification) {
      const state = reduce(states.get(notification.sessionId) ?? empty(), notification.update);
      states.set(notification.sessionId, state);
      for (const listener of listeners) listener(notification.sessionId, state);
    },
    get: (sessionId) => states.get(sessionId),
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
