/**
 * The conductor of a proxy chain (the ACP proxy-chains proposal): client ->
 * proxy -> ... -> agent, each component on its own `Transport`. To the client
 * the chain is one agent. The conductor sends `proxy/initialize` (the
 * `initialize` params) to every component with a successor and plain
 * `initialize` to the agent; a proxy reaches its successor by wrapping a
 * message in `proxy/successor`, and gets its successor's messages wrapped the
 * same way; plain messages from a proxy go to its predecessor. Params, results
 * and errors pass unchanged (unknown methods and `_meta` too); the envelope's
 * own `_meta` is hop-local and dropped. Cancellation is hop-local: a
 * `$/cancel_request` cancels the conductor's forwarded request on the next hop.
 * When any component's input ends, the whole chain closes.
 */
import { type Answer, Hop, internalError, isObject, type Sent } from "./hop.js";
import { inMemoryTransports, type Transport } from "./transport.js";

export const PROXY_INITIALIZE = "proxy/initialize";
export const PROXY_SUCCESSOR = "proxy/successor";
const INITIALIZE = "initialize";
const INVALID_PARAMS = -32602;

/** Options of `conduct` and `chain`. */
export interface ChainOptions {
  /** Told about what cannot be answered: framing problems, bad lines, responses to nothing, failed writes. */
  readonly onError?: (error: Error) => void;
}

/** A running chain. */
export interface Conductor {
  /** Settles when the chain closed: `close()`, or the end of any component's input. */
  readonly closed: Promise<void>;
  /** Closes every component's transport. */
  close(): void;
}

/** Where a message goes: the index of a hop (0 the client, then the proxies, last the agent) and the message to send. */
interface Route {
  readonly to: number;
  readonly method: string;
  readonly params: unknown;
}

/**
 * Runs the chain: `client` is the transport to the client (stdio, say),
 * `proxies` those to the proxies in order, `agent` the one to the last agent.
 */
export function conduct(client: Transport, proxies: readonly Transport[], agent: Transport, options: ChainOptions = {}): Conductor {
  const report = reporter(options);
  const hops = [client, ...proxies, agent].map((transport) => new Hop(transport, report));
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  const close = (): void => {
    for (const hop of hops) hop.close();
    markClosed();
  };
  hops.forEach((hop, index) =>
    hop.start({
      request: (method, params) => forwardRequest(hops, route(hops.length, index, method, params)),
      notification: (method, params) => forwardNotification(hops, route(hops.length, index, method, params), report),
      end: close,
    }),
  );
  return { closed, close };
}

/**
 * The chain as the client's transport: `connectClient(chain([proxyA, proxyB], agent), handlers)`.
 * The conductor starts with the returned transport and closes with it.
 */
export function chain(proxies: readonly Transport[], agent: Transport, options: ChainOptions = {}): Transport {
  const [ours, theirs] = inMemoryTransports();
  conduct(theirs, proxies, agent, options);
  return ours;
}

/** Where a message arriving from hop `from` goes, or why it cannot (a malformed `proxy/successor`). */
function route(count: number, from: number, method: string, params: unknown): Route | Answer {
  const agent = count - 1;
  const isProxy = (index: number): boolean => index > 0 && index < agent;
  if (from === 0) return downstream(1, isProxy(1), method, params);
  if (isProxy(from) && method === PROXY_SUCCESSOR) return unwrapped(from + 1, isProxy(from + 1), params);
  const to = from - 1;
  return isProxy(to) ? { to, method: PROXY_SUCCESSOR, params: wrap(method, params) } : { to, method, params };
}

/** A message towards the agent, to hop `to`: a component with a successor gets `initialize` as `proxy/initialize`. */
function downstream(to: number, toProxy: boolean, method: string, params: unknown): Route {
  return { to, method: toProxy && method === INITIALIZE ? PROXY_INITIALIZE : method, params };
}

/** The message a proxy's `proxy/successor` carries, for its successor; the envelope's `_meta` stays behind. */
function unwrapped(to: number, toProxy: boolean, envelope: unknown): Route | Answer {
  if (!isObject(envelope) || typeof envelope.method !== "string") {
    return { error: { code: INVALID_PARAMS, message: "Invalid params: proxy/successor needs a string method" } };
  }
  return downstream(to, toProxy, envelope.method, envelope.params === null ? undefined : envelope.params);
}

/** The `proxy/successor` params that carry a message to a proxy from its successor. */
export function wrap(method: string, params: unknown): { method: string; params?: unknown } {
  return params === undefined ? { method } : { method, params };
}

function forwardRequest(hops: readonly Hop[], where: Route | Answer): Sent {
  if (!("to" in where)) return { answer: Promise.resolve(where), cancel: () => {} };
  const hop = hops[where.to];
  if (hop === undefined) return { answer: Promise.resolve(internalError("no such component")), cancel: () => {} };
  return hop.request(where.method, where.params);
}

function forwardNotification(hops: readonly Hop[], where: Route | Answer, report: (error: Error) => void): void {
  if (!("to" in where)) return report(new Error("a proxy/successor notification without a string method"));
  void hops[where.to]?.notify(where.method, where.params);
}

function reporter(options: ChainOptions): (error: Error) => void {
  return (error) => {
    try {
      options.onError?.(error);
    } catch {
      // An onError that throws must not break the chain's stream handlers; nothing is left to tell.
    }
  };
}
