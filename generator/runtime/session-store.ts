/**
 * The client's live sessions: every `session/update` folded into a state per
 * session id by the surface's reducer. Each surface's `createSessionStore()`
 * binds it to its `emptySessionState` / `reduceSession` / `reduceSessionOwned`.
 */
import { withOwningTwin, withSessionFeeds } from "./connection.js";
import { isObject } from "./decode.js";

/** A listener told about each session whose state changed. */
export type SessionListener<S> = (sessionId: string, state: S) => void;

/** Session states by id, fed by `session/update` notifications (`N`) and permission requests (`P`). */
export interface SessionStore<S, N, P = never> {
  /**
   * Folds one `session/update` notification into its session, copying what it keeps (the
   * caller's object is never changed nor frozen). Passed as the connection's `session/update`
   * handler, it is the trusted path: the connection's own decoded updates are kept uncopied.
   */
  readonly update: (notification: N) => void;
  /** The current state of a session, or `undefined` before its first update. */
  get(sessionId: string): S | undefined;
  /**
   * Calls `listener` after every update, with the session's id and new state, until the
   * returned function is called. Listeners are called in the order they subscribed; one
   * subscribed or unsubscribed while listeners are being called takes effect from the next
   * update on (an unsubscribed one is not called again). An update made by a listener is
   * told to every listener after the current one has been told to all, so each listener
   * sees a session's states in the order they were stored. A listener that throws does not
   * stop the others: once all were called, `update` throws the first error (the state is
   * stored either way).
   */
  subscribe(listener: SessionListener<S>): () => void;
  /**
   * Applies the tool call a `session/request_permission` request carries (v2 `subject.toolCall` of a
   * `tool_call` subject, v1 `toolCall`) to its session exactly like a `tool_call_update` (S4: in arrival order,
   * before the prompt is shown; a first-seen id creates the tool call), then tells the
   * listeners. The connection calls it, in line order, before your handler runs, when `update`
   * is its `session/update` handler; call it yourself when you feed the store otherwise. Copies
   * what it keeps; a request without a tool call changes nothing.
   */
  permission(request: P): void;
}

/**
 * The methods a store learns from besides its notifications: the request whose params may
 * carry a tool call (S4), and the requests whose result opens a session with its first
 * lists (S20), each with where its session id is (`params` or `result`).
 */
export interface StoreMethods {
  readonly permission?: string;
  readonly opening: Readonly<Record<string, "params" | "result">>;
  /**
   * S36: the prompt request, recorded as a user message by `reducePrompt` when it is
   * `sent` (v1: the id is ours) or when its `response` names the message (v2).
   */
  readonly prompt?: { readonly method: string; readonly at: "sent" | "response" };
}

/** S36: the state after the client's prompt `params` (and, v2, the agent's `result`): `reducePrompt`. */
export type PromptReducer<S> = (state: S, params: never, result: never) => S;

/**
 * A store over `reduce`, starting each session at `empty()`. `update` copies
 * what it is given (`reduce`); the connection, handing it an update decoded
 * from its own tree, calls its owning twin instead, which keeps the update's
 * values as they are (`reduceOwned`, e.g. `reduceSessionOwned`). `tag` is the
 * session union's tag property; `methods` names what the connection's feeds
 * (`withSessionFeeds`) carry to it.
 */
export function sessionStore<S, U, P = never>(
  empty: () => S,
  reduce: (state: S, update: U) => S,
  reduceOwned: (state: S, update: U) => S,
  tag: string,
  methods: StoreMethods,
  reducePrompt?: PromptReducer<S>,
): SessionStore<S, { readonly sessionId: string; readonly update: U }, P> {
  const states = new Map<string, S>();
  const listeners = new Listeners<S>();
  const fold = (reducer: (state: S, update: U) => S, sessionId: string, update: unknown): void => {
    const state = reducer(states.get(sessionId) ?? empty(), update as U);
    states.set(sessionId, state);
    listeners.tell(sessionId, state);
  };
  /** S36: the prompt `params` the client sent (with the agent's `result` on v2) recorded as a user message of its session. */
  const prompted = (method: string, at: "sent" | "response", params: unknown, result?: unknown): void => {
    if (reducePrompt === undefined || methods.prompt?.method !== method || methods.prompt.at !== at) return;
    if (!isObject(params) || typeof params["sessionId"] !== "string") return;
    fold((state) => reducePrompt(state, params as never, result as never), params["sessionId"], undefined);
  };
  const folding = (reducer: (state: S, update: U) => S) => (notification: { readonly sessionId: string; readonly update: U }): void => {
    // Outside the type (no object, no string id): nothing to fold, rather than a TypeError.
    if (isObject(notification) && typeof notification.sessionId === "string") fold(reducer, notification.sessionId, notification.update);
  };
  /** `update` of `sessionId` as the update of kind `kind`, the tag put last so that no key of `fields` overrides it. */
  const foldAs = (sessionId: string, kind: string, fields: Readonly<Record<string, unknown>>): void => fold(reduce, sessionId, { ...fields, [tag]: kind });
  /** S20: the first command and config lists of the result that opened session `sessionId` (`null` or absent: nothing). */
  const opened = (sessionId: unknown, result: unknown): void => {
    if (typeof sessionId !== "string" || !isObject(result)) return;
    for (const [field, kind] of [["availableCommands", "available_commands_update"], ["configOptions", "config_option_update"]] as const) {
      const list = result[field];
      if (list !== undefined && list !== null) foldAs(sessionId, kind, { [field]: list });
    }
  };
  const store: SessionStore<S, { readonly sessionId: string; readonly update: U }, P> = {
    update: withOwningTwin(folding(reduce), folding(reduceOwned)),
    get: (sessionId) => states.get(sessionId),
    subscribe: (listener) => listeners.add(listener),
    permission(request) {
      if (!isObject(request) || typeof request["sessionId"] !== "string") return;
      // v2: a subject of type "tool_call" (ToolCallPermissionSubject; a command or custom subject carries none); v1: the request's own toolCall.
      const subject = request["subject"];
      const toolCall = isObject(subject) ? (subject["type"] === "tool_call" ? subject["toolCall"] : undefined) : request["toolCall"];
      // Only a tool call the reducer can key: else nothing changes, and nobody is told.
      if (isObject(toolCall) && typeof toolCall["toolCallId"] === "string") foldAs(request["sessionId"], "tool_call_update", toolCall);
    },
  };
  // As the connection's handler, the store also learns, in line order, of permission requests and of the results that open sessions.
  withSessionFeeds(store.update, {
    request: (method, params) => {
      if (method === methods.permission) store.permission(params as P);
    },
    sent: (method, params) => prompted(method, "sent", params),
    response: (method, params, result) => {
      prompted(method, "response", params, result);
      // S34: a method name is data; only the table's own keys count.
      const from = Object.hasOwn(methods.opening, method) ? methods.opening[method] : undefined;
      const holder = from === "params" ? params : result;
      if (from !== undefined && isObject(holder)) opened(holder["sessionId"], result);
    },
  });
  return store;
}

/** One subscription; `active` turns false when it is ended. */
interface Subscription<S> {
  readonly listener: SessionListener<S>;
  active: boolean;
}

/** The listeners of a store, and the states stored but not yet told to them. */
class Listeners<S> {
  /** Replaced, never changed, by `add` and an unsubscribe: a round of calls goes over the array it began with. */
  private subscriptions: readonly Subscription<S>[] = [];
  /** States to tell, oldest first; not empty only while listeners are being called. */
  private readonly untold: (readonly [string, S])[] = [];

  /** Subscribes `listener`; returns the function that ends that subscription. */
  add(listener: SessionListener<S>): () => void {
    const subscription: Subscription<S> = { listener, active: true };
    this.subscriptions = [...this.subscriptions, subscription];
    return () => {
      subscription.active = false;
      this.subscriptions = this.subscriptions.filter((s) => s !== subscription);
    };
  }

  /** Tells every listener that `sessionId` now has `state`, after any state stored before it; throws the first listener's error once all were called. */
  tell(sessionId: string, state: S): void {
    this.untold.push([sessionId, state]);
    if (this.untold.length > 1) return; // a listener's update: the round under way tells it
    let failure: { error: unknown } | undefined;
    try {
      for (let i = 0; i < this.untold.length; i++) {
        const [id, told] = this.untold[i]!;
        for (const subscription of this.subscriptions) {
          if (!subscription.active) continue;
          try {
            subscription.listener(id, told);
          } catch (error) {
            failure ??= { error };
          }
        }
      }
    } finally {
      this.untold.length = 0;
    }
    if (failure !== undefined) throw failure.error;
  }
}
