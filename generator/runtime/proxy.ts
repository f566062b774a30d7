/**
 * A proxy of a chain (the ACP proxy-chains proposal) that forwards every
 * message, with hooks to look at or rewrite them on the way. On its one
 * transport (to the conductor) a plain message is from or to its
 * predecessor (towards the client), a `proxy/successor` one from or to its
 * successor (towards the agent). `proxy/initialize` goes on as `initialize`
 * to the successor, and its answer comes back unchanged. Methods it does not
 * know, `_meta`, results and errors pass unchanged; a `$/cancel_request` from
 * the conductor cancels the request this proxy forwarded for it (on its own
 * hop, as the proposal asks).
 */
import { errorMessage } from "./describe.js";
import { PROXY_INITIALIZE, PROXY_SUCCESSOR, wrap } from "./chain.js";
import { type Answer, Hop, internalError, isObject } from "./hop.js";
import type { Transport } from "./transport.js";

/**
 * Hooks of a forwarding proxy, each called in arrival order with a message on its way
 * (`params` undefined when it has none). Return new params to send instead, or
 * `undefined` to send the message as it is. A hook that throws: a request is answered
 * -32603 with its message, a notification is dropped; both are reported to `onError`.
 */
export interface ProxyHooks {
  /** A request or notification from the client's side, on its way to the agent (`initialize` included). */
  readonly toAgent?: (method: string, params: unknown) => unknown;
  /** A request or notification from the agent's side, on its way to the client. */
  readonly toClient?: (method: string, params: unknown) => unknown;
  /** Told about what cannot be answered: bad lines, failed writes, hooks that threw. */
  readonly onError?: (error: Error) => void;
}

/** A running proxy. */
export interface ProxyServer {
  /** Settles when the proxy's input ended or `close()` was called. */
  readonly closed: Promise<void>;
  close(): void;
}

/** Runs a forwarding proxy on `transport` (its conductor: stdio when the conductor spawned it). */
export function forwardingProxy(transport: Transport, hooks: ProxyHooks = {}): ProxyServer {
  const report = (error: Error): void => {
    try {
      hooks.onError?.(error);
    } catch {
      // An onError that throws must not break the stream handlers.
    }
  };
  const hop = new Hop(transport, report);
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  hop.start({
    request: (method, params) => {
      const out = outgoing(method, params, hooks, report);
      return "error" in out ? { answer: Promise.resolve(out), cancel: () => {} } : hop.request(out.method, out.params);
    },
    notification: (method, params) => {
      const out = outgoing(method, params, hooks, report);
      if (!("error" in out)) void hop.notify(out.method, out.params);
    },
    end: markClosed,
  });
  return { closed, close: () => hop.close() };
}

/** The message this proxy sends on for one it received (unwrapped towards the client, wrapped towards the agent), or its error answer. */
function outgoing(method: string, params: unknown, hooks: ProxyHooks, report: (error: Error) => void): { readonly method: string; readonly params: unknown } | Extract<Answer, { error: unknown }> {
  if (method === PROXY_SUCCESSOR) {
    if (!isObject(params) || typeof params.method !== "string") return { error: { code: -32602, message: "Invalid params: proxy/successor needs a string method" } };
    const inner = params.params === null ? undefined : params.params;
    const result = hooked(hooks.toClient, params.method, inner, report);
    return "error" in result ? result : { method: params.method, params: result.params };
  }
  const inner = method === PROXY_INITIALIZE ? "initialize" : method;
  const result = hooked(hooks.toAgent, inner, params, report);
  return "error" in result ? result : { method: PROXY_SUCCESSOR, params: wrap(inner, result.params) };
}

/** Runs one hook on a message: its params after the hook, or the -32603 answer of a hook that threw. */
function hooked(hook: ProxyHooks["toAgent"], method: string, params: unknown, report: (error: Error) => void): { readonly params: unknown } | { readonly error: unknown } {
  if (hook === undefined) return { params };
  try {
    const replaced = hook(method, params);
    return { params: replaced === undefined ? params : replaced };
  } catch (error) {
    const message = `the proxy's hook failed on ${method}: ${errorMessage(error)}`;
    report(new Error(message));
    return internalError(message) as { readonly error: unknown };
  }
}
