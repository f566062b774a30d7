/**
 * Version negotiation at `initialize`, shared by both ends (DESIGN.md
 * "Network transports, versions, devtools"): a connection speaks exactly one
 * protocol version, chosen by the first `initialize`. The agent end
 * (`serveVersions`) reads messages until a usable `initialize` arrives,
 * answers what comes before it as a v1 or v2 agent would, picks a version and
 * hands the `initialize` line and the rest of the stream to that surface's
 * `connectAgent` through `HandOver`, a transport that forwards to the one it
 * wraps. The client end (`connectVersions`) writes `initialize` with its
 * newest version, reads the answer, and hands the stream on the same way to
 * the surface of the version the agent answered. Nothing here throws at its
 * caller or out of a stream handler.
 */
import type { ConnectOptions, Decoder, Peer, RequestId } from "./connection.js";
import { NotJson, parseText } from "./decode.js";
import { describeJson, errorMessage } from "./describe.js";
import type { Issue, Result } from "./result.js";
import type { LineSink, Transport } from "./transport.js";

const INITIALIZE = "initialize";
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
/** The largest protocol version (`ProtocolVersion` is a uint16 in both schemas). */
const MAX_PROTOCOL_VERSION = 65535;
/** The id of the `initialize` the client end writes; the surface's connection numbers its own requests from 1. */
const INITIALIZE_ID = 0;

/** Handlers of one version, or a function making them from the peer (to call the other side from them). */
export type HandlersOrFactory<H, P> = H | ((peer: P) => H);

/** One version an end speaks, as the emitted negotiate module describes it to this runtime. */
export interface VersionSpec {
  /** The protocol version (1, 2). */
  readonly version: number;
  /** The surface's `connectAgent` (agent end) or `connectClient` (client end). */
  readonly connect: (transport: Transport, handlers: any, options?: ConnectOptions) => Peer<any, any>;
  /** The handlers, or a function of the peer making them. */
  readonly handlers: unknown;
  /** The surface's `parse.InitializeRequest` (agent end) or `parse.InitializeResponse` (client end). */
  readonly parseInitialize: Decoder;
  /** Whether `id` is a `RequestId` of this surface (v2 admits no `null`). */
  readonly acceptsId: (id: RequestId) => boolean;
  /** The surface's `RequestError`. */
  readonly error: (code: number, message: string, data?: unknown) => Error;
}

/** What an end settled on: the version, the peer of that surface's connection, and the `initialize` params (agent end) or result (client end). */
export interface Negotiated {
  readonly version: number;
  readonly peer: Peer<any, any>;
  readonly initialize: unknown;
}

/**
 * A transport that forwards to the one it wraps, whose input was already
 * started by a negotiating end: the surface's connection starts it (its sink
 * is kept), and `deliver` passes it the lines read so far; the negotiating
 * sink then forwards every later call to that sink itself.
 */
class HandOver implements Transport {
  sink: LineSink | undefined;
  readonly send: (line: string) => Promise<void>;

  constructor(private readonly inner: Transport) {
    this.send = (line) => inner.send(line);
  }

  start(sink: LineSink): void {
    this.sink = sink;
  }

  close(): void {
    this.inner.close();
  }

  /** Hands `texts` to the connection's sink, as one read. */
  deliver(texts: readonly string[]): void {
    const sink = this.sink;
    if (sink === undefined || texts.length === 0) return;
    if (sink.lines !== undefined) sink.lines(texts);
    else for (const text of texts) sink.line(text);
  }
}

/**
 * A sink for the wrapped transport that hands each line to `gate` until the
 * stream is handed over (`gate` returns false from then on, and the lines of
 * the same read after it go to the connection), then forwards every call to
 * the connection's sink.
 */
class GateSink implements LineSink {
  private target: LineSink | undefined;

  constructor(
    /** Takes one line; returns false when the stream was handed over at that line. */
    private readonly gate: (text: string, rest: readonly string[]) => boolean,
    private readonly ended: (error?: unknown) => void,
    private readonly report: (error: unknown) => void,
  ) {}

  /** From now on every call goes to `target`. */
  forwardTo(target: LineSink): void {
    this.target = target;
  }

  line(text: string): void {
    if (this.target !== undefined) return this.target.line(text);
    this.contained(() => this.gate(text, []));
  }

  lines(texts: readonly string[]): void {
    const target = this.target;
    if (target !== undefined) return target.lines !== undefined ? target.lines(texts) : texts.forEach((text) => target.line(text));
    this.contained(() => {
      for (let i = 0; i < texts.length; i++) if (!this.gate(texts[i]!, texts.slice(i + 1))) return;
    });
  }

  problem(message: string): void {
    if (this.target !== undefined) return this.target.problem(message);
    this.report(new Error(message));
  }

  end(error?: unknown): void {
    if (this.target !== undefined) return this.target.end(error);
    this.contained(() => this.ended(error));
  }

  private contained(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.report(error);
    }
  }
}

/** Reports `error` to `onError`, never throwing. */
function reporter(options: ConnectOptions): (error: unknown) => void {
  return (error) => {
    try {
      options.onError?.(error instanceof Error ? error : new Error(errorMessage(error)));
    } catch {
      // An onError that throws has nobody left to tell.
    }
  };
}

/**
 * Opens `spec`'s connection on `handOver`: its handlers (made by the factory,
 * if one was given, with a peer that forwards to the connection), then the
 * connection. Throws what the factory throws.
 */
function openConnection(handOver: HandOver, spec: VersionSpec, options: ConnectOptions): Peer<any, any> {
  let opened: Peer<any, any> | undefined;
  const handlers = typeof spec.handlers === "function" ? spec.handlers(forwardingPeer(() => opened!)) : spec.handlers;
  opened = spec.connect(handOver, handlers, options);
  return opened;
}

/** A peer whose every call goes to `peer()` (the connection, once opened). */
function forwardingPeer(peer: () => Peer<any, any>): Peer<any, any> {
  return {
    request: (method, params, options) => peer().request(method, params, options),
    notify: (method, params) => peer().notify(method, params),
    extRequest: (method, params, options) => peer().extRequest(method, params, options),
    extNotify: (method, params) => peer().extNotify(method, params),
    get closed() {
      return peer().closed;
    },
    close: () => peer().close(),
  };
}

// ---------------------------------------------------------------------------
// The agent end

/** What `serveVersions` returns. */
export interface VersionServer<N = Negotiated> {
  /** The negotiated version and the client peer, once a usable `initialize` arrived; `undefined` when the connection closed before. */
  readonly negotiated: Promise<N | undefined>;
  /** Settles when the connection closed (before or after negotiation). */
  readonly closed: Promise<void>;
  /** Closes the connection. */
  close(): void;
}

/** The versions an agent serves, newest first. */
function newestFirst(specs: readonly VersionSpec[]): VersionSpec[] {
  return [...specs].sort((a, b) => b.version - a.version);
}

/** The highest served version not above `requested`; the newest served when none is (DESIGN.md: a version not served gets the newest). */
export function chooseVersion<S extends { readonly version: number }>(served: readonly S[], requested: number): S | undefined {
  const sorted = [...served].sort((a, b) => b.version - a.version);
  return sorted.find((spec) => spec.version <= requested) ?? sorted[0];
}

/**
 * Serves the versions in `specs` on `transport`: messages before a usable
 * `initialize` are answered as a v1 or v2 agent would (a request: -32600; bad
 * JSON: -32700; a malformed `initialize`: -32602; notifications and responses:
 * `onError`, never answered) while the connection waits on; the first usable
 * `initialize` picks the version (`chooseVersion`), and from it on the stream
 * belongs to that surface's `connectAgent`.
 */
export function serveVersions(transport: Transport, specs: readonly VersionSpec[], options: ConnectOptions = {}): VersionServer {
  const report = reporter(options);
  const served = newestFirst(specs);
  let settle!: (negotiated: Negotiated | undefined) => void;
  const negotiated = new Promise<Negotiated | undefined>((resolve) => (settle = resolve));
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  let peer: Peer<any, any> | undefined;
  const answer = (id: RequestId, code: number, message: string, data?: unknown): void => {
    const error = data === undefined ? { code, message } : { code, message, data };
    transport.send(JSON.stringify({ jsonrpc: "2.0", id, error })).catch(report);
  };
  const commit = (spec: VersionSpec, initialize: InitializeMessage, rest: readonly string[]): boolean => {
    const handOver = new HandOver(transport);
    try {
      peer = openConnection(handOver, spec, options);
    } catch (error) {
      report(error);
      answer(initialize.id, INTERNAL_ERROR, errorMessage(error));
      return true;
    }
    // A connection that could not start (its transport threw) is closed already: it has no sink.
    if (handOver.sink === undefined) return false;
    sink.forwardTo(handOver.sink);
    peer.closed.then(markClosed, markClosed);
    settle({ version: spec.version, peer, initialize: initialize.params });
    handOver.deliver([JSON.stringify(initialize), ...rest]);
    return false;
  };
  const gate = (text: string, rest: readonly string[]): boolean => {
    const outcome = beforeInitialize(text, served);
    if ("reject" in outcome) {
      const reject = outcome.reject;
      if (reject !== undefined) answer(reject.id, reject.code, reject.message, reject.data);
      if (outcome.report !== undefined) report(new Error(outcome.report));
      return true;
    }
    return commit(outcome.spec, outcome.initialize, rest);
  };
  const ended = (error?: unknown): void => {
    if (error !== undefined) report(error);
    settle(undefined);
    markClosed();
  };
  const sink = new GateSink(gate, ended, report);
  try {
    transport.start(sink);
  } catch (error) {
    report(error);
    ended();
  }
  const close = (): void => {
    if (peer !== undefined) return peer.close();
    try {
      transport.close();
    } catch (error) {
      report(error);
    }
    ended();
  };
  return { negotiated, closed, close };
}

/** The `initialize` handed to the chosen surface: the request with its params rewritten for that version. */
interface InitializeMessage {
  readonly jsonrpc: "2.0";
  readonly id: RequestId;
  readonly method: typeof INITIALIZE;
  readonly params: Record<string, unknown>;
}

/** An error response to write before `initialize`, or none (`undefined`: a notification or a response, reported instead). */
interface Rejection {
  readonly id: RequestId;
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

type GateOutcome = { readonly reject: Rejection | undefined; readonly report?: string } | { readonly spec: VersionSpec; readonly initialize: InitializeMessage };

function rejected(id: RequestId, code: number, message: string, data?: unknown): GateOutcome {
  return { reject: data === undefined ? { id, code, message } : { id, code, message, data } };
}

/** What to do with one line read before a usable `initialize` (the SDK's router and our connection answer the same). */
function beforeInitialize(text: string, served: readonly VersionSpec[]): GateOutcome {
  const message = parseText(text);
  if (message instanceof NotJson) return rejected(null, PARSE_ERROR, "Parse error: the line is not JSON");
  if (typeof message !== "object" || message === null || Array.isArray(message)) return rejected(null, INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message object");
  const { jsonrpc, id, method } = message as Record<string, unknown>;
  const hasId = id !== undefined;
  if ((method === undefined || method === null) && hasId && ("result" in message || "error" in message)) {
    return { reject: undefined, report: `response with id ${describeJson(id)} before initialize` };
  }
  if (hasId && !isRequestId(id)) return rejected(null, INVALID_REQUEST, "Invalid request: id must be a string, a number or null");
  if (jsonrpc !== "2.0") return rejected(hasId ? (id as RequestId) : null, INVALID_REQUEST, 'Invalid request: jsonrpc must be "2.0"');
  if (typeof method !== "string") return rejected(hasId ? (id as RequestId) : null, INVALID_REQUEST, "Invalid request: neither a request, a notification nor a response");
  if (!hasId) return { reject: undefined, report: `notification ${method} before initialize (not answered)` };
  if (method !== INITIALIZE) return rejected(id as RequestId, INVALID_REQUEST, `Invalid request: the first request must be initialize, not ${method}`);
  return initializeOutcome(id as RequestId, (message as Record<string, unknown>).params, served);
}

/** The outcome of an `initialize` request: its version chosen and its params checked by that version's parser. */
function initializeOutcome(id: RequestId, params: unknown, served: readonly VersionSpec[]): GateOutcome {
  const requested = requestedVersion(params);
  if (typeof requested !== "number") return rejected(id, INVALID_PARAMS, "Invalid params for initialize", { issues: requested });
  const spec = chooseVersion(served, requested);
  if (spec === undefined) return rejected(id, INTERNAL_ERROR, "Internal error: no protocol version is served");
  if (!spec.acceptsId(id)) return rejected(id, INVALID_REQUEST, "Invalid request: the id is not a RequestId of this protocol version");
  const rewritten = initializeParamsFor(params as Record<string, unknown>, requested, spec.version);
  const decoded = spec.parseInitialize(rewritten);
  if (!decoded.ok) return rejected(id, INVALID_PARAMS, "Invalid params for initialize", { issues: decoded.issues });
  return { spec, initialize: { jsonrpc: "2.0", id, method: INITIALIZE, params: rewritten } };
}

/** The `protocolVersion` an `initialize`'s params ask for, or the issues saying why there is none. */
function requestedVersion(params: unknown): number | Issue[] {
  if (typeof params !== "object" || params === null || Array.isArray(params)) return [{ path: "", message: "expected an object" }];
  const version = Object.hasOwn(params, "protocolVersion") ? (params as { protocolVersion: unknown }).protocolVersion : undefined;
  if (typeof version === "number" && Number.isInteger(version) && version >= 0 && version <= MAX_PROTOCOL_VERSION) return version;
  return [{ path: "/protocolVersion", message: `expected a protocol version (an integer from 0 to ${MAX_PROTOCOL_VERSION})` }];
}

/**
 * The params of `initialize` as the chosen version's handler gets them: its
 * own `protocolVersion` (so a handler written for that surface's
 * `connectAgent` alone answers right, echoing it or not), and between v1 and v2
 * the client's name moved: v2's `info` is v1's `clientInfo` (the capabilities
 * differ in shape and are dropped, as the SDK's router does; v2's `info` is
 * required, `{ name: "unknown", version: "unknown" }` when v1 sent none).
 */
export function initializeParamsFor(params: Readonly<Record<string, unknown>>, requested: number, chosen: number): Record<string, unknown> {
  const own = (key: string): unknown => (Object.hasOwn(params, key) ? params[key] : undefined);
  const wasV2 = requested >= 2;
  const isV2 = chosen >= 2;
  if (wasV2 === isV2) return { ...params, protocolVersion: chosen };
  const meta = own("_meta");
  const base: Record<string, unknown> = meta === undefined ? { protocolVersion: chosen } : { protocolVersion: chosen, _meta: meta };
  if (isV2) return { ...base, info: isImplementation(own("clientInfo")) ? own("clientInfo") : { name: "unknown", version: "unknown" } };
  return isImplementation(own("info")) ? { ...base, clientInfo: own("info") } : base;
}

/** Whether `value` looks like an `Implementation` (a name and a version). */
function isImplementation(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const { name, version } = value as Record<string, unknown>;
  return typeof name === "string" && typeof version === "string";
}

function isRequestId(value: unknown): value is RequestId {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

// ---------------------------------------------------------------------------
// The client end

/** Options of `connectVersions`: the connection's, applied to the negotiated surface's `connectClient`. */
export type NegotiateOptions = ConnectOptions;

/**
 * Connects as a client speaking the versions in `specs`: writes `initialize`
 * with `params` and the newest version (the newest spec checks them unless
 * `validateOutgoing` is false), waits for the answer, and continues on the
 * same stream with the `connectClient` of the version the agent answered
 * (a v1 answer to a v2 `initialize` goes on as v1). Resolves with that
 * version, its peer and the decoded `initialize` result; rejects with the
 * agent's error, or when the agent answers a version not in `specs`, a result
 * that version's parser refuses, or closes first (the transport is closed then).
 */
export function connectVersions(
  transport: Transport,
  specs: readonly VersionSpec[],
  params: Readonly<Record<string, unknown>>,
  checkParams: (value: unknown) => Result<unknown>,
  options: NegotiateOptions = {},
): Promise<Negotiated> {
  const report = reporter(options);
  const speaks = newestFirst(specs);
  const newest = speaks[0];
  if (newest === undefined) return Promise.reject(new Error("connectVersions: no protocol version configured"));
  const request = { jsonrpc: "2.0", id: INITIALIZE_ID, method: INITIALIZE, params: { ...params, protocolVersion: newest.version } };
  if (options.validateOutgoing !== false) {
    const checked = checkParams(request.params);
    if (!checked.ok) return Promise.reject(newest.error(INVALID_PARAMS, "invalid params of initialize", { issues: checked.issues }));
  }
  return new Promise<Negotiated>((resolve, reject) => {
    const held: string[] = [];
    const fail = (error: Error): void => {
      reject(error);
      try {
        transport.close();
      } catch (closing) {
        report(closing);
      }
    };
    const answered = (response: Record<string, unknown>, rest: readonly string[]): void => {
      const outcome = initializeAnswer(response, speaks, newest);
      if (outcome instanceof Error) return fail(outcome);
      const handOver = new HandOver(transport);
      const peer = openConnection(handOver, outcome.spec, options);
      if (handOver.sink === undefined) return fail(newest.error(INTERNAL_ERROR, "the connection could not start"));
      sink.forwardTo(handOver.sink);
      resolve({ version: outcome.spec.version, peer, initialize: outcome.result });
      handOver.deliver([...held, ...rest]);
    };
    const gate = (text: string, rest: readonly string[]): boolean => {
      const message = parseText(text);
      if (!isInitializeResponse(message)) return (held.push(text), true);
      try {
        answered(message, rest);
      } catch (error) {
        fail(error instanceof Error ? error : new Error(errorMessage(error)));
      }
      return false;
    };
    const ended = (error?: unknown): void => {
      if (error !== undefined) report(error);
      reject(newest.error(INTERNAL_ERROR, "the connection closed before the agent answered initialize"));
    };
    const sink = new GateSink(gate, ended, report);
    try {
      transport.start(sink);
    } catch (error) {
      return fail(error instanceof Error ? error : new Error(errorMessage(error)));
    }
    transport.send(JSON.stringify(request)).catch((error: unknown) => fail(newest.error(INTERNAL_ERROR, `could not send initialize: ${errorMessage(error)}`)));
  });
}

/** Whether `message` is the response to the `initialize` the client end wrote. */
function isInitializeResponse(message: unknown): message is Record<string, unknown> {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const { id, method } = message as Record<string, unknown>;
  return id === INITIALIZE_ID && (method === undefined || method === null) && ("result" in message || "error" in message);
}

/** The version and decoded result the agent answered `initialize` with, or the error the client end rejects with. */
function initializeAnswer(response: Record<string, unknown>, speaks: readonly VersionSpec[], newest: VersionSpec): { readonly spec: VersionSpec; readonly result: unknown } | Error {
  if (response.jsonrpc !== "2.0") return newest.error(INTERNAL_ERROR, 'invalid response to initialize: jsonrpc must be "2.0"');
  if ("error" in response) return wireError(response.error, newest);
  const result = response.result;
  const version = typeof result === "object" && result !== null && Object.hasOwn(result, "protocolVersion") ? (result as { protocolVersion: unknown }).protocolVersion : undefined;
  const spec = speaks.find((s) => s.version === version);
  if (spec === undefined) {
    const offered = speaks.map((s) => s.version).join(", ");
    return newest.error(INTERNAL_ERROR, `the agent answered protocol version ${describeJson(version)}, which this client does not speak (it speaks ${offered})`);
  }
  const decoded = spec.parseInitialize(result);
  if (!decoded.ok) return spec.error(INTERNAL_ERROR, "invalid result of initialize", { issues: decoded.issues });
  return { spec, result: decoded.value };
}

/** The error an error response to `initialize` carries, as the newest surface's `RequestError`. */
function wireError(error: unknown, newest: VersionSpec): Error {
  if (typeof error !== "object" || error === null) return newest.error(INTERNAL_ERROR, "malformed error response to initialize");
  const { code, message, data } = error as Record<string, unknown>;
  if (!Number.isInteger(code) || typeof message !== "string") return newest.error(INTERNAL_ERROR, "malformed error response to initialize");
  return newest.error(code as number, message, data);
}
