/**
 * JSON-RPC 2.0 over a line transport, shared by every surface: ids,
 * correlation, dispatch to typed handlers, wire errors, cancellation. A
 * surface's connection.ts supplies the method tables (which `parse` and
 * `validate` functions apply to each method) and the typed front
 * (`connectAgent`, `connectClient`, ...). Nothing here throws at its caller:
 * bad input becomes a JSON-RPC error or an `onError` report.
 */
import { eachParsed, finish, NotJson, parseText } from "./decode.js";
import { describeJson, errorMessage } from "./describe.js";
import type { Issue, Result } from "./result.js";
import type { Transport } from "./transport.js";

/** A JSON-RPC request id. */
export type RequestId = string | number | null;

/** The abort signal handed to handlers and accepted by `request` (the standard `AbortSignal` fits). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/**
 * The standard `AbortSignal` where the consumer's TypeScript knows that global
 * (the DOM library or `@types/node`), else `AbortSignalLike`: the package
 * compiles without either, and a handler's signal still passes to `fetch` or
 * `node:timers/promises` without a cast where they exist.
 */
export type AbortSignalOrLike = typeof globalThis extends { AbortSignal: { prototype: infer S } } ? S : AbortSignalLike;

declare const AbortController: new () => { readonly signal: AbortSignalOrLike; abort(): void };

/** What a handler gets besides its params. */
export interface HandlerContext {
  /** Aborted when the connection closes, and for a request when the peer cancels it (`$/cancel_request`). The standard `AbortSignal` where the consumer's types know it (`AbortSignalOrLike`). */
  readonly signal: AbortSignalOrLike;
  /** The request's id; absent for notifications. */
  readonly id?: RequestId;
}

/** Options of `request`. */
export interface RequestOptions {
  /** Aborting it cancels the request: `$/cancel_request` is sent and the promise rejects with -32800. */
  readonly signal?: AbortSignalLike;
}

/** Options of `connectAgent` / `connectClient`. */
export interface ConnectOptions {
  /** Check outgoing params and handler results with `validate` before writing them (default true). */
  readonly validateOutgoing?: boolean;
  /** Handles requests whose method starts with `_`; without it they get -32601. */
  readonly onExtRequest?: (method: string, params: unknown, ctx: HandlerContext) => unknown;
  /** Handles notifications whose method starts with `_` (in order with the other notifications). */
  readonly onExtNotification?: (method: string, params: unknown) => void | Promise<void>;
  /** Told about what cannot be answered: unknown response ids, bad notifications, failed notification handlers, framing problems. */
  readonly onError?: (error: Error) => void;
}

/** A request handler: params in, result (or a promise of it) out. */
export type RequestHandler<P, R> = (params: P, ctx: HandlerContext) => R | Promise<R>;
/** A notification handler: called one at a time, in arrival order. */
export type NotificationHandler<P> = (params: P, ctx: HandlerContext) => void | Promise<void>;

/**
 * Handlers for a side: any subset of its requests (`Req`: method -> {params, result}) and notifications (`Notif`: method -> params).
 * A class instance fits: each handler is read as `handlers[method]` (inherited ones too) and called with `handlers` as `this`.
 */
export type Handlers<Req, Notif> = {
  readonly [M in keyof Req]?: Req[M] extends { params: infer P; result: infer R } ? RequestHandler<P, R> : never;
} & { readonly [M in keyof Notif]?: NotificationHandler<Notif[M]> };

/** The other side of a connection, typed by what that side handles. */
export interface Peer<Req, Notif> {
  /** Sends a request and resolves with its decoded result; rejects with a `RequestError`. */
  request<M extends keyof Req & string>(method: M, params: ParamsOf<Req[M]>, options?: RequestOptions): Promise<ResultOf<Req[M]>>;
  /** Sends a notification; resolves once written. */
  notify<M extends keyof Notif & string>(method: M, params: Notif[M]): Promise<void>;
  /** Sends an extension request (method starting with `_`); the result is not decoded. */
  extRequest(method: `_${string}`, params: unknown, options?: RequestOptions): Promise<unknown>;
  /** Sends an extension notification (method starting with `_`). */
  extNotify(method: `_${string}`, params: unknown): Promise<void>;
  /** Settles when the connection closed (by `close()` or the end of input). */
  readonly closed: Promise<void>;
  /** Closes the connection: pending requests reject, handlers' signals abort. */
  close(): void;
}

type ParamsOf<E> = E extends { params: infer P } ? P : never;
type ResultOf<E> = E extends { result: infer R } ? R : never;

/**
 * A `parse.X` function. Every value the connection decodes is part of a tree its
 * own `JSON.parse` just made, so `parseOwned.X` fits too: the surfaces pass it
 * for notifications (the stream), `parse.X` for requests and results.
 */
export type Decoder = (value: unknown) => Result<unknown>;

/**
 * A first-issue check (the surface's validate-first.ts: what `validate.X` runs
 * before its all-issues collectors): `true`, or `undefined` after recording
 * the first issue, which `failedIssues` reads.
 */
export type Check = (value: unknown) => true | undefined;

/** How the end that handles a method decodes its params (tolerant `parse`) and checks a request's result (strict `validate`). */
export interface HandledSpec {
  readonly parseParams: Decoder;
  /** Absent for notifications. */
  readonly validateResult?: Check;
}

/** How the end that calls a method checks its params (strict `validate`) and decodes a request's result (tolerant `parse`). */
export interface CalledSpec {
  readonly validateParams: Check;
  /** Absent for notifications. */
  readonly parseResult?: Decoder;
}

/**
 * The methods of one or more sides, from one end's point of view: what it
 * handles (`HandledSpec`) or what it calls (`CalledSpec`). Keeping the two
 * apart lets a bundler drop the decoders an end never uses.
 */
export interface MethodTable<S> {
  readonly requests: ReadonlyMap<string, S>;
  readonly notifications: ReadonlyMap<string, S>;
}

/** Everything a surface tells the runtime. */
export interface ConnectionSpec {
  /** Methods this end handles. */
  readonly inbound: MethodTable<HandledSpec>;
  /** Methods the peer handles. */
  readonly outbound: MethodTable<CalledSpec>;
  /** The params parser of `$/cancel_request`, when the surface has it. */
  readonly cancel: Decoder | undefined;
  /** The surface's check of an incoming request's id (its schema's `RequestId`); any JSON-RPC id when absent. */
  readonly requestId: Check | undefined;
  /** Makes the surface's `RequestError`. */
  readonly error: (code: number, message: string, data?: unknown) => RpcError;
}

/** The decoder of a role the schema gives no type: accepts any value as it is. */
export function anyValue(value: unknown): Result<unknown> {
  return { ok: true, value };
}

/** The check of a role the schema gives no type: any value passes. */
export function anyValid(): true {
  return true;
}

/** The issue a `Check` recorded when it said no; read it at once, before any other check runs. */
function failedIssues(): Issue[] {
  const failed = finish(undefined);
  return failed.ok ? [] : failed.issues;
}

/** One table made of several sides' (a proxy handles agent and proxy methods). */
export function mergeSides<S>(...sides: readonly MethodTable<S>[]): MethodTable<S> {
  return {
    requests: new Map(sides.flatMap((side) => [...side.requests])),
    notifications: new Map(sides.flatMap((side) => [...side.notifications])),
  };
}

/** A JSON-RPC error as a JavaScript error; each surface's `RequestError` extends it. */
export class RpcError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** The error's `data`, when it has one. */
  declare readonly data?: unknown;

  /** An error with a JSON-RPC `code`, a `message` and optional `data`. */
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RequestError";
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const CANCELLED = -32800;
const CANCEL_METHOD = "$/cancel_request";

/** Any handler, as the untyped runtime sees it. */
type AnyHandler = (params: unknown, ctx: HandlerContext) => unknown;

/** The owning twins registered by `withOwningTwin`, by the handler they stand in for. */
const owningTwins = new WeakMap<object, AnyHandler>();

/**
 * Gives `handler` a twin that the connection calls in its place: params the
 * connection decoded come from a tree it parsed itself and go to this one
 * handler, so nobody else holds them and `owning` may keep them without a copy
 * (the session store's `update` reduces them with `reduceSessionOwned`).
 * Everyone else calling `handler` gets `handler`, which must not keep or
 * freeze what its caller passed. Returns `handler`.
 */
export function withOwningTwin<H extends (...args: never[]) => unknown>(handler: H, owning: H): H {
  owningTwins.set(handler, owning as unknown as AnyHandler);
  return handler;
}

/**
 * What a session store learns from the connection besides its notifications, as each
 * line is handled (so in line order with them): the requests it gets, before their
 * handler runs (a permission request's tool call, S4), and the results of the requests
 * this end made (the lists of a response that opened a session, S20). Never throws
 * into the connection: a throw is reported.
 */
export interface SessionFeeds {
  request(method: string, params: unknown): void;
  response(method: string, params: unknown, result: unknown): void;
  /** A request this end sends (validated), after the notifications received before it (S36: a v1 prompt). */
  sent?(method: string, params: unknown): void;
}

/** The feeds of the notification handlers that have them (a session store's `update`), by handler. */
const sessionFeeds = new WeakMap<object, SessionFeeds>();

/** Gives the notification handler `handler` the feeds the connection calls while it is a handler (see `SessionFeeds`). */
export function withSessionFeeds<H extends (...args: never[]) => unknown>(handler: H, feeds: SessionFeeds): H {
  sessionFeeds.set(handler, feeds);
  return handler;
}

/**
 * A method this end handles, with its name as the method table spells it. The
 * handler is looked up by that name, not by the wire's: `JSON.parse` makes a
 * fresh string of each line's `method`, and a property lookup by a fresh
 * string first searches the engine's string table for it, twice per line here
 * (README, "Benchmark: the connection against the SDK's"), where the table's
 * own name is found at once.
 */
interface Handled {
  readonly spec: HandledSpec;
  readonly method: string;
}

/** `byName` of each table, kept while the table lives: a surface's tables are shared by all its connections, and so is this. */
const namedTables = new WeakMap<ReadonlyMap<string, HandledSpec>, ReadonlyMap<string, Handled>>();

/** A method table's entries, each with its name. */
function byName(table: ReadonlyMap<string, HandledSpec>): ReadonlyMap<string, Handled> {
  let named = namedTables.get(table);
  if (named === undefined) namedTables.set(table, (named = new Map([...table].map(([method, spec]) => [method, { spec, method }]))));
  return named;
}

/** A request (with `id`) or a notification, as written. */
interface OutgoingMessage {
  readonly jsonrpc: "2.0";
  readonly id?: number;
  readonly method: string;
  readonly params: unknown;
}

interface Pending {
  readonly method: string;
  /** The params sent, for the session feeds (`SessionFeeds.response`). */
  readonly params: unknown;
  readonly parseResult: Decoder | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: RpcError) => void;
  readonly detach: () => void;
}

/**
 * Opens a connection on `transport`: the untyped core behind every surface's
 * `connectAgent` / `connectClient`.
 */
export function connect(transport: Transport, spec: ConnectionSpec, handlers: object, options: ConnectOptions = {}): Peer<any, any> {
  const connection = new Connection(transport, spec, handlers, options);
  return {
    request: (method, params, requestOptions) => connection.request(method, params, requestOptions),
    notify: (method, params) => connection.notify(method, params),
    extRequest: (method, params, requestOptions) => connection.call(method, params, undefined, requestOptions),
    extNotify: (method, params) => connection.send({ jsonrpc: "2.0", method, params }),
    closed: connection.closed,
    close: () => connection.close(),
  };
}

class Connection {
  readonly closed: Promise<void>;
  private markClosed!: () => void;
  private isClosed = false;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  /** Requests we cancelled: their late responses are dropped quietly. */
  private readonly abandoned = new Set<number>();
  /** Requests being handled, by id, to abort on `$/cancel_request`. */
  private readonly inflight = new Map<RequestId, RequestContext>();
  /** The context of every notification handler: its signal aborts when the connection closes. */
  private readonly notificationContext = new HandlingContext();
  private readonly queue: (() => unknown)[] = [];
  private queueHead = 0;
  private draining = false;
  private readonly validateOutgoing: boolean;
  /** The methods this end handles (`spec.inbound`), each with its name. */
  private readonly handledRequests: ReadonlyMap<string, Handled>;
  private readonly handledNotifications: ReadonlyMap<string, Handled>;

  constructor(
    private readonly transport: Transport,
    private readonly spec: ConnectionSpec,
    private readonly handlers: object,
    private readonly options: ConnectOptions,
  ) {
    this.validateOutgoing = options.validateOutgoing ?? true;
    this.handledRequests = byName(spec.inbound.requests);
    this.handledNotifications = byName(spec.inbound.notifications);
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
    try {
      this.start();
    } catch (error) {
      // A custom transport's `start` may throw: the connection is then closed, and `connect` does not throw.
      this.report(error);
      this.close();
    }
  }

  /** Starts the transport with the connection's sink. */
  private start(): void {
    // Each callback runs inside a transport's stream event handler: nothing may escape it (a throw there
    // kills a Node process, or ends a Web stream), so each is contained and reported, and the connection goes on.
    this.transport.start({
      line: (text) => this.contained(() => this.receive(parseText(text))),
      // The lines of a read parsed first (up to 64 KiB of them), then each handled in order (`parseOwned.fromLines`).
      lines: (texts) => this.contained(() => eachParsed(texts, (message) => (this.contained(() => this.receive(message)), !this.isClosed))),
      problem: (message) => this.report(new Error(message)),
      end: (error) => {
        if (error !== undefined) this.report(error);
        this.close();
      },
    });
  }

  request(method: string, params: unknown, options: RequestOptions | undefined): Promise<unknown> {
    const spec = this.spec.outbound.requests.get(method);
    if (spec === undefined) return Promise.reject(this.spec.error(METHOD_NOT_FOUND, `"${method}" is not a request the peer handles`));
    const invalid = this.checkOutgoing(spec.validateParams, params, `params of ${method}`);
    if (invalid) return Promise.reject(invalid);
    return this.call(method, params, spec.parseResult ?? anyValue, options);
  }

  notify(method: string, params: unknown): Promise<void> {
    const spec = this.spec.outbound.notifications.get(method);
    if (spec === undefined) return Promise.reject(this.spec.error(METHOD_NOT_FOUND, `"${method}" is not a notification the peer handles`));
    const invalid = this.checkOutgoing(spec.validateParams, params, `params of ${method}`);
    if (invalid) return Promise.reject(invalid);
    return this.send({ jsonrpc: "2.0", method, params });
  }

  call(method: string, params: unknown, parseResult: Decoder | undefined, options: RequestOptions | undefined): Promise<unknown> {
    if (this.isClosed) return Promise.reject(this.spec.error(INTERNAL_ERROR, "connection closed"));
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => this.cancelOutgoing(id);
      let signal: AbortSignalLike | undefined;
      try {
        signal = options?.signal;
        if (signal?.aborted) return reject(this.spec.error(CANCELLED, "request cancelled"));
        signal?.addEventListener("abort", onAbort, { once: true });
      } catch (error) {
        // A signal whose getter or addEventListener throws: the request is not sent, and rejects (the peer's functions never throw).
        return reject(this.spec.error(INTERNAL_ERROR, `could not send ${method}: ${errorMessage(error)}`));
      }
      const detach = (): void => {
        try {
          signal?.removeEventListener("abort", onAbort);
        } catch {
          // A signal whose removeEventListener throws keeps a listener that finds nothing left to cancel.
        }
      };
      this.pending.set(id, { method, params, parseResult, resolve, reject, detach });
      // In line order: after the notification handlers already queued (a store's v1 prompt, S36).
      this.enqueue(() => this.feed((feeds) => feeds.sent?.(method, params)));
      this.send({ jsonrpc: "2.0", id, method, params }).catch((error: unknown) => {
        this.settle(id)?.reject(error instanceof RpcError ? error : this.cannotSend(method, error));
      });
    });
  }

  /** Serialises and writes a request or notification; rejects (never throws) when it cannot, with a -32603 `RequestError` unless the transport's promise rejects. */
  send(message: OutgoingMessage): Promise<void> {
    if (this.isClosed) return Promise.reject(this.spec.error(INTERNAL_ERROR, "connection closed"));
    const text = toJson(message);
    return typeof text === "string" ? this.write(text, message.method) : Promise.reject(this.cannotSend(message.method, text));
  }

  /** Hands one line to the transport; never throws. */
  private write(text: string, what: string): Promise<void> {
    try {
      // `Transport` is public: a custom one's `send` may throw, or return no promise.
      return Promise.resolve(this.transport.send(text));
    } catch (error) {
      return Promise.reject(this.cannotSend(what, error));
    }
  }

  /** The -32603 `RequestError` of a message that could not be written. */
  private cannotSend(what: string, error: unknown): RpcError {
    return this.spec.error(INTERNAL_ERROR, `could not send ${what}: ${errorMessage(error)}`);
  }

  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    try {
      this.transport.close();
    } catch (error) {
      // A custom transport's `close` may throw: the connection closes all the same.
      this.report(error);
    }
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(this.spec.error(INTERNAL_ERROR, "connection closed"));
    for (const handling of this.inflight.values()) handling.abort();
    this.notificationContext.abort();
    this.abandoned.clear(); // no response is read after close
    this.markClosed();
  }

  /** The error when `value` fails `check`; never throws. */
  private checkOutgoing(check: Check, value: unknown, what: string): RpcError | undefined {
    if (!this.validateOutgoing) return undefined;
    try {
      if (check(value)) return undefined;
    } catch (error) {
      // A getter or Proxy in the value that throws: it is invalid (the peer's functions never throw). What the check recorded before is dropped.
      failedIssues();
      return this.spec.error(INVALID_PARAMS, `invalid ${what}: ${errorMessage(error)}`);
    }
    return this.spec.error(INVALID_PARAMS, `invalid ${what}`, { issues: failedIssues() });
  }

  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    if (pending === undefined) return undefined;
    this.pending.delete(id);
    pending.detach();
    return pending;
  }

  private cancelOutgoing(id: number): void {
    const pending = this.settle(id);
    if (pending === undefined) return;
    this.abandoned.add(id);
    pending.reject(this.spec.error(CANCELLED, "request cancelled"));
    if (this.spec.cancel !== undefined) this.send({ jsonrpc: "2.0", method: CANCEL_METHOD, params: { requestId: id } }).catch((error: unknown) => this.report(error));
  }

  /** Runs `work`; a throw from it is reported, never passed on (the caller is a stream's event handler). */
  private contained(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.report(error);
    }
  }

  private report(error: unknown): void {
    try {
      this.options.onError?.(asError(error));
    } catch {
      // An onError that throws has nobody left to tell.
    }
  }

  /** Handles one line, given as what `parseText` made of it; none once the connection is closed. */
  private receive(message: unknown): void {
    if (this.isClosed) return;
    if (message instanceof NotJson) {
      this.answerError(null, PARSE_ERROR, "Parse error: the line is not JSON");
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.answerError(null, INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message object");
      return;
    }
    this.route(message as Record<string, unknown>);
  }

  /** Sorts a decoded message into request, notification or response (JSON-RPC 2.0, section 4 and 5). */
  private route(message: Record<string, unknown>): void {
    const { jsonrpc, id, method } = message;
    const hasId = id !== undefined;
    // A response is never answered (JSON-RPC 2.0, section 5), also a malformed one: the answer would carry its id, one
    // of ours, into the peer's id space, and our request would wait forever. `handleResponse` settles or reports it.
    if ((method === undefined || method === null) && hasId && ("result" in message || "error" in message)) return this.handleResponse(id, message);
    if (hasId && !isRequestId(id)) return this.answerError(null, INVALID_REQUEST, "Invalid request: id must be a string, a number or null");
    if (hasId && typeof method === "string" && this.spec.requestId !== undefined && !this.spec.requestId(id)) {
      // The id is a JSON-RPC id, only not one this version admits: echo it, so that the caller can match the answer.
      return this.answerError(id, INVALID_REQUEST, "Invalid request: the id is not a RequestId of this protocol version", { issues: failedIssues() });
    }
    if (jsonrpc !== "2.0") return this.answerError(hasId ? id : null, INVALID_REQUEST, 'Invalid request: jsonrpc must be "2.0"');
    if (typeof method === "string") {
      if (hasId) void this.handleRequest(id, method, message.params);
      else this.handleNotification(method, message.params);
      return;
    }
    this.answerError(hasId ? id : null, INVALID_REQUEST, "Invalid request: neither a request, a notification nor a response");
  }

  private handleResponse(id: unknown, message: Record<string, unknown>): void {
    const pending = typeof id === "number" ? this.settle(id) : undefined;
    if (pending === undefined) {
      if (typeof id === "number" && this.abandoned.delete(id)) return;
      const error = message.error;
      this.report(id === null && isErrorObject(error) ? this.errorFrom(error) : new Error(`response with unknown id ${describeJson(id)}`));
      return;
    }
    // A response without `"jsonrpc": "2.0"` is not a JSON-RPC 2.0 response (section 5: the member MUST be exactly "2.0"),
    // so its result is not trusted: the request rejects with -32603, as on a malformed error (DESIGN.md "Connection"
    // answers such a request with -32600; a response cannot be answered, so its request fails instead).
    if (message.jsonrpc !== "2.0") return pending.reject(this.spec.error(INTERNAL_ERROR, `invalid response to ${pending.method}: jsonrpc must be "2.0"`));
    if ("error" in message) {
      const error = message.error;
      pending.reject(isErrorObject(error) ? this.errorFrom(error) : this.spec.error(INTERNAL_ERROR, `malformed error response to ${pending.method}`));
      return;
    }
    if (pending.parseResult === undefined) return pending.resolve(message.result);
    const decoded = pending.parseResult(message.result);
    if (decoded.ok) this.feed((feeds) => feeds.response(pending.method, pending.params, decoded.value));
    if (decoded.ok) pending.resolve(decoded.value);
    else pending.reject(this.spec.error(INTERNAL_ERROR, `invalid result of ${pending.method}`, { issues: decoded.issues }));
  }

  private errorFrom(error: WireError): RpcError {
    return this.spec.error(error.code, error.message, error.data);
  }

  private async handleRequest(id: RequestId, method: string, params: unknown): Promise<void> {
    const handled = this.handledRequests.get(method);
    const handler = handled === undefined ? this.extRequestHandler(method) : this.handlerOf(handled);
    if (handler === undefined) return this.answerError(id, METHOD_NOT_FOUND, `Method not found: ${method}`);
    const spec = handled?.spec;
    let input = params;
    if (spec !== undefined) {
      const decoded = decodeParams(spec, params);
      if (!decoded.ok) return this.answerError(id, INVALID_PARAMS, `Invalid params for ${method}`, { issues: decoded.issues });
      input = decoded.value;
    }
    this.feed((feeds) => feeds.request(method, input));
    const ctx = new RequestContext(id);
    this.inflight.set(id, ctx);
    try {
      const result = await handler.call(this.handlers, input, ctx);
      if (spec?.validateResult !== undefined && this.validateOutgoing && !spec.validateResult(result)) {
        this.answerError(id, INTERNAL_ERROR, `Internal error: the handler of ${method} returned an invalid result`, { issues: failedIssues() });
      } else {
        this.answer(id, { jsonrpc: "2.0", id, result: result === undefined ? null : result });
      }
    } catch (error) {
      const { code, message, data } = errorAnswer(error, ctx);
      this.answerError(id, code, message, data);
    } finally {
      // A peer may reuse an id still in flight: the later request owns the entry then, and keeps it.
      if (this.inflight.get(id) === ctx) this.inflight.delete(id);
    }
  }

  private handleNotification(method: string, params: unknown): void {
    if (method === CANCEL_METHOD && this.spec.cancel !== undefined) return this.cancelIncoming(this.spec.cancel, params);
    if (method.startsWith("_")) {
      const hook = this.options.onExtNotification;
      if (hook !== undefined) this.enqueue(() => hook(method, params));
      return;
    }
    const handled = this.handledNotifications.get(method);
    if (handled === undefined) return this.report(this.spec.error(METHOD_NOT_FOUND, `notification of unknown method ${method}`));
    const handler = this.handlerOf(handled);
    if (handler === undefined) return;
    const decoded = decodeParams(handled.spec, params);
    if (!decoded.ok) return this.report(this.spec.error(INVALID_PARAMS, `Invalid params for ${method}`, { issues: decoded.issues }));
    const ctx = this.notificationContext;
    this.enqueue(() => handler.call(this.handlers, decoded.value, ctx));
  }

  private cancelIncoming(parseParams: Decoder, params: unknown): void {
    const decoded = parseParams(params);
    if (!decoded.ok) return this.report(this.spec.error(INVALID_PARAMS, `Invalid params for ${CANCEL_METHOD}`, { issues: decoded.issues }));
    const requestId = (decoded.value as { requestId?: RequestId }).requestId;
    if (requestId !== undefined) this.inflight.get(requestId)?.abort();
  }

  /** Runs notification handlers one at a time, in arrival order; a synchronous handler runs at once. */
  private enqueue(job: () => unknown): void {
    if (this.draining) {
      this.queue.push(job);
      return;
    }
    this.draining = true;
    if (this.runJob(job)) this.drain();
  }

  /** Runs one job; false when it returned a promise, whose settling resumes the queue (`drain`). */
  private runJob(job: () => unknown): boolean {
    let settles: Promise<unknown>;
    try {
      const outcome = job();
      if (!isThenable(outcome)) return true;
      // A handler's own thenable may throw from `then` or call back twice: `Promise.resolve` settles once and turns a throw into a rejection.
      settles = Promise.resolve(outcome);
    } catch (error) {
      this.report(error);
      return true;
    }
    settles.then(
      () => this.drain(),
      (error: unknown) => (this.report(error), this.drain()),
    );
    return false;
  }

  /**
   * Runs the queued jobs in order until one returns a promise, none is left
   * or the connection closed. The queue is emptied only when it held jobs: a
   * synchronous handler whose line arrives with nothing queued runs at once
   * (`enqueue`), with no push and no array length set per line (README,
   * "Benchmark: the connection against the SDK's", says what that saved).
   */
  private drain(): void {
    // After close() no queued notification starts, as no line is handled (DESIGN.md "Connection": close ends the connection).
    while (!this.isClosed && this.queueHead < this.queue.length) if (!this.runJob(this.queue[this.queueHead++]!)) return;
    if (this.queue.length > 0) {
      this.queue.length = 0;
      this.queueHead = 0;
    }
    this.draining = false;
  }

  /**
   * The handler of a method this end handles, read now from `handlers` (by the
   * table's name, see `Handled`), own or inherited: a class instance's methods
   * are on its prototype. It is called with `handlers` as `this`.
   */
  private handlerOf({ method }: Handled): AnyHandler | undefined {
    let handler: unknown;
    try {
      // Only methods of the table reach here, and none is an `Object.prototype` member (test/connection-methods.test.ts).
      handler = (this.handlers as Record<string, unknown>)[method];
    } catch (error) {
      // A getter (or Proxy) that throws: the call throws it, so a request gets -32603 and a notification goes to `onError`.
      return () => {
        throw error;
      };
    }
    if (typeof handler !== "function") return undefined;
    return owningTwins.get(handler) ?? (handler as AnyHandler);
  }

  /**
   * Calls `use` with the feeds of each notification handler that has them (a session
   * store's `update`), read now from `handlers`; a throw from `use` is reported, never
   * passed on.
   */
  private feed(use: (feeds: SessionFeeds) => void): void {
    for (const handled of this.handledNotifications.values()) {
      let feeds: SessionFeeds | undefined;
      try {
        feeds = sessionFeeds.get((this.handlers as Record<string, object>)[handled.method]!);
      } catch {
        continue; // a getter that throws: reported when its notification comes, not here
      }
      try {
        if (feeds !== undefined) use(feeds);
      } catch (error) {
        this.report(error);
      }
    }
  }

  private extRequestHandler(method: string): AnyHandler | undefined {
    const hook = this.options.onExtRequest;
    return method.startsWith("_") && hook !== undefined ? (params, ctx) => hook(method, params, ctx) : undefined;
  }

  private answerError(id: RequestId, code: number, message: string, data?: unknown): void {
    const error = data === undefined ? { code, message } : { code, message, data };
    this.answer(id, { jsonrpc: "2.0", id, error });
  }

  /** Writes a response; `response` holds `result` or `error`. */
  private answer(id: RequestId, response: object): void {
    if (this.isClosed) return;
    const text = toJson(response);
    // The peer always gets an answer (DESIGN.md "Connection"): a result or an error's data that is not JSON (a BigInt, a cycle) becomes -32603 without data.
    const line = typeof text === "string" ? text : JSON.stringify({ jsonrpc: "2.0", id, error: { code: INTERNAL_ERROR, message: `Internal error: the ${"result" in response ? "result" : "error"} is ${text.message}` } });
    this.write(line, "an answer").catch((error: unknown) => this.report(error));
  }
}

/** Decodes a method's params with its tolerant parser (for notifications `parseOwned`: the tree is the connection's own). */
function decodeParams(spec: { readonly parseParams: Decoder }, params: unknown): Result<unknown> {
  // JSON-RPC lets a request omit params; ACP params are objects, so omitted reads as `{}`.
  return spec.parseParams(params === undefined ? {} : params);
}

/** A notification handler's context (one per connection, aborted by close); its `AbortController` is made only when a handler reads `signal`. */
class HandlingContext implements HandlerContext {
  aborted = false;
  private controller: InstanceType<typeof AbortController> | undefined;

  get signal(): AbortSignalOrLike {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  abort(): void {
    this.aborted = true;
    this.controller?.abort();
  }
}

/** A request handler's context: aborted by `$/cancel_request` or close. */
class RequestContext extends HandlingContext {
  constructor(readonly id: RequestId) {
    super();
  }
}

function isRequestId(value: unknown): value is RequestId {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

function isErrorObject(value: unknown): value is WireError {
  if (typeof value !== "object" || value === null) return false;
  const { code, message } = value as Record<string, unknown>;
  return Number.isInteger(code) && typeof message === "string";
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/** `message` as JSON text, or an `Error` saying why it is not JSON (a BigInt, a cycle, a getter or `toJSON` that throws). */
function toJson(message: object): string | Error {
  try {
    return JSON.stringify(message);
  } catch (error) {
    return new Error(`not serialisable as JSON: ${errorMessage(error)}`);
  }
}

/** `error` if it is an `Error`, else an `Error` with its message (`UNREADABLE` when `String()` of it fails); never throws. */
function asError(error: unknown): Error {
  try {
    if (error instanceof Error) return error;
  } catch {
    // A Proxy whose getPrototypeOf throws.
  }
  return new Error(errorMessage(error));
}

/** A JSON-RPC error object (section 5.1), as an error response carries it. */
interface WireError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * The error response to a request whose handler threw `error` (DESIGN.md
 * "Connection": a `RequestError` as it is, -32800 after a cancel, anything else
 * -32603 with its message). Never throws, whatever was thrown.
 */
function errorAnswer(error: unknown, ctx: RequestContext): WireError {
  try {
    // A RequestError's code must be an integer and its message a string on the wire (JSON-RPC 2.0, section 5.1).
    if (error instanceof RpcError && isErrorObject(error)) return { code: error.code, message: error.message, data: error.data };
    if (ctx.aborted) return { code: CANCELLED, message: "Request cancelled" };
  } catch {
    // A getter of the thrown value threw: it is answered as anything else.
  }
  return { code: INTERNAL_ERROR, message: errorMessage(error) };
}
