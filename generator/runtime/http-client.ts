/**
 * The client end of ACP's Streamable HTTP transport (the ACP proposal
 * "Streamable HTTP & WebSocket transport"), as a `Transport` for
 * `connectClient`: each outgoing line is POSTed to the one endpoint, and what
 * the agent sends arrives over server-sent event streams, one for the
 * connection and one per session. Browser-safe: `fetch` is the only I/O, no
 * Node built-in is imported, and only structural types are used.
 *
 * Lines are read only at their top level (one `JSON.parse`, shallow `typeof`
 * checks) to learn a message's method, id and `params.sessionId`, or a
 * response's `result.sessionId`; the connection parses them again.
 */
import type { AbortSignalOrLike } from "./connection.js";
import { type CookieJar, type CookiePolicy, cookieHeader, createCookieJar, setCookieValues } from "./client-wire.js";
import { CONNECTION_HEADER, EVENT_STREAM_TYPE, JSON_TYPE, SESSION_HEADER, sessionIdOfParams, sessionIdOfResult } from "./remote-wire.js";
import { containedSink, deliverLines, joinBytes, type LineSink, type Transport } from "./transport.js";

/** A `ReadableStream` of bytes (a response body), as far as this module uses it. */
export interface ByteStream {
  getReader(): {
    read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
    cancel(reason?: unknown): Promise<void>;
  };
}

/** What `httpTransport` hands to `fetch`: a plain object the standard `RequestInit` accepts. */
export interface FetchInit {
  readonly method: "GET" | "POST" | "DELETE";
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly signal?: AbortSignalOrLike;
  readonly credentials: CookiePolicy;
}

/** A `fetch` response, as far as this module uses it (the standard `Response` fits). */
export interface FetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null; getSetCookie?: () => string[] };
  readonly body: ByteStream | null;
}

/** A `fetch` function (the standard one fits); called without a receiver, so `globalThis.fetch` may be passed as it is. */
export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

/** Options of `httpTransport`. */
export interface HttpTransportOptions {
  /** The `fetch` to use (default `globalThis.fetch`; without either, the transport ends at `start` with an error). */
  readonly fetch?: FetchLike;
  /** Headers added to every request (authorization, say); the transport's own headers win over a header of the same name. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Keep `Set-Cookie` cookies and send them back as `Cookie` (`"include"`, the default), or neither (`"omit"`). Also `fetch`'s `credentials`. */
  readonly cookies?: CookiePolicy;
  /** Where cookies are kept; pass the same jar to the next transport to keep load-balancer affinity across a reconnect. Default: a jar of this transport's own, cleared when it ends. */
  readonly cookieJar?: CookieJar;
  /**
   * Largest accepted message in bytes (default 64 MiB). A server-sent event
   * over it is dropped and reported (`sink.problem`, the connection's
   * `onError`) while the stream goes on, as `ndJsonStream` drops a long line;
   * an `initialize` answer over it ends the transport (the connection is
   * unusable without it).
   */
  readonly maxMessageBytes?: number;
}

declare const AbortController: new () => { readonly signal: AbortSignalOrLike & { readonly aborted: boolean }; abort(): void };
declare const TextDecoder: new (label?: string) => { decode(bytes: Uint8Array, options?: { stream?: boolean }): string };

const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** An HTTP error's body is diagnostic text: this much of it goes into the JSON-RPC error's `data.body`. */
const ERROR_BODY_BYTES = 8 * 1024;
/** Statuses of a POST or GET that mean the connection is unusable or gone (credentials refused, connection id unknown). */
const CONNECTION_FAILURES: ReadonlySet<number> = new Set([401, 403, 404, 410]);
/** A session-scoped 409: that session's stream was refused (it already has a reader, or must be loaded again). */
const SESSION_CONFLICT = 409;
/** Requests that attach a session again after it failed. */
const REATTACH_METHODS: ReadonlySet<string> = new Set(["session/load", "session/resume"]);
const INTERNAL_ERROR = -32603;

/**
 * A `Transport` over ACP's Streamable HTTP: `initialize` is POSTed first and
 * answered with the connection id (`Acp-Connection-Id`) and its JSON
 * response; every later message is POSTed with that id (and `Acp-Session-Id`
 * when its params name a session) and answered `202`, its response arriving
 * over the connection's or the session's event stream. A session's stream is
 * opened when a result names the session (`session/new`, `session/load`, ...)
 * or before a message for it is POSTed. `close()` DELETEs the connection (best
 * effort) and ends.
 *
 * Failures: a request whose POST gets an HTTP error fails alone (the
 * connection gets a -32603 error response with `data: { status, body }`); a
 * notification's or response's POST so refused rejects its `send`. A 409 for a
 * session fails that session's requests until `session/load` or
 * `session/resume` attaches it again. 401, 403, 404 and 410, network errors,
 * and the end of the connection's event stream end the transport. When a
 * session's event stream ends, its requests still waiting get -32603 error
 * responses, and the next message for it opens the stream again.
 *
 * The same steps reconnect: a new transport (with the same `headers` and
 * `cookieJar`), `initialize`, and `session/load` when the agent's
 * capabilities offer it.
 */
export function httpTransport(url: string, options: HttpTransportOptions = {}): Transport {
  return new HttpTransport(url, options);
}

/** One outgoing message, read at its top level. */
interface Outgoing {
  readonly line: string;
  readonly method: string | undefined;
  /** The id's key (`idKey`) when the message has an id. */
  readonly key: string | undefined;
  readonly id: unknown;
  /** A request (method and id), as opposed to a notification or a response. */
  readonly isRequest: boolean;
  readonly sessionId: string | undefined;
}

/** A session's event stream: `ready` settles once it is open (or refused). */
interface SessionStream {
  readonly ready: Promise<void>;
  readonly abort: () => void;
}

/** An HTTP response that was not a success: its status and the start of its body. */
class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what} failed with HTTP ${status}`);
  }
}

class HttpTransport implements Transport {
  private sink: LineSink | undefined;
  private ended = false;
  private connectionId: string | undefined;
  private readonly fetch: FetchLike | undefined;
  private readonly maxMessageBytes: number;
  private readonly policy: CookiePolicy;
  private readonly jar: CookieJar;
  private readonly ownsJar: boolean;
  private readonly stop = new AbortController();
  /** The POSTs under way after `initialize`, each with its own signal; aborted when the transport ends. */
  private readonly posts = new Set<{ abort(): void }>();
  /** Sends are POSTed one at a time, in order (the connection id comes with the first answer). */
  private chain: Promise<void> = Promise.resolve();
  private readonly sessions = new Map<string, SessionStream>();
  /** Sessions refused with 409, and why, until `session/load` or `session/resume`. */
  private readonly failedSessions = new Map<string, HttpStatusError>();
  /** Our requests for a session whose response has not arrived, by id key. */
  private readonly waiting = new Map<string, { readonly sessionId: string; readonly id: unknown }>();
  /** The session of each agent request that came over a session's stream, by id key: our response is POSTed for it. */
  private readonly answerSessions = new Map<string, string>();

  constructor(
    private readonly url: string,
    private readonly options: HttpTransportOptions,
  ) {
    this.fetch = boundFetch(options.fetch);
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.policy = options.cookies ?? "include";
    this.jar = options.cookieJar ?? createCookieJar();
    this.ownsJar = options.cookieJar === undefined;
  }

  start(sink: LineSink): void {
    this.sink = containedSink(sink);
    if (this.fetch === undefined) this.fail(new Error("httpTransport needs fetch: there is no globalThis.fetch, pass one as options.fetch"));
  }

  send(line: string): Promise<void> {
    if (this.ended) return Promise.reject(new Error("the HTTP transport is closed"));
    if (this.sink === undefined) return Promise.reject(new Error("the HTTP transport is not started"));
    const sent = this.chain.then(() => this.post(line));
    this.chain = sent.catch(() => {});
    return sent;
  }

  close(): void {
    if (this.ended) return;
    this.finish(undefined);
  }

  /** POSTs one line: `initialize` first, every later message with the connection id. */
  private async post(line: string): Promise<void> {
    if (this.ended) throw new Error("the HTTP transport is closed");
    const message = readOutgoing(line);
    if (this.connectionId === undefined) return this.initialize(message);
    return this.postConnected(message, this.connectionId);
  }

  private async initialize(message: Outgoing): Promise<void> {
    if (message.method !== "initialize" || !message.isRequest) throw new Error("the first message on an HTTP transport must be the initialize request");
    const response = await this.exchange("POST", { "Content-Type": JSON_TYPE }, message.line, this.stop.signal);
    if (!response.ok) return this.refused(message, false, await httpStatusError(response, "initialize"));
    const connectionId = response.headers.get(CONNECTION_HEADER);
    if (connectionId === null || connectionId === "") return this.fail(new Error(`the initialize answer has no ${CONNECTION_HEADER} header`));
    let text: string;
    try {
      text = await readText(response.body, this.maxMessageBytes, false);
    } catch (error) {
      this.deleteConnection(connectionId);
      return this.fail(error);
    }
    if (this.ended) return this.deleteConnection(connectionId);
    if (idKey(topLevel(text)?.id) !== message.key) {
      this.deleteConnection(connectionId);
      return this.fail(new Error("the initialize answer is not the response to the initialize request"));
    }
    this.connectionId = connectionId;
    this.openConnectionStream(connectionId);
    this.deliver([text], undefined);
  }

  private async postConnected(message: Outgoing, connectionId: string): Promise<void> {
    const sessionId = message.sessionId ?? this.answeredSession(message);
    if (sessionId !== undefined) {
      if (message.method !== undefined && REATTACH_METHODS.has(message.method)) this.failedSessions.delete(sessionId);
      try {
        await this.sessionStream(sessionId);
      } catch (error) {
        if (!(error instanceof HttpStatusError) || error.status !== SESSION_CONFLICT) throw error;
        return this.refused(message, false, error);
      }
    }
    const registered = sessionId !== undefined && message.isRequest && message.key !== undefined;
    if (registered) this.waiting.set(message.key, { sessionId, id: message.id });
    const headers: Record<string, string> = { "Content-Type": JSON_TYPE, [CONNECTION_HEADER]: connectionId };
    if (sessionId !== undefined) headers[SESSION_HEADER] = sessionId;
    // A signal of this POST's own, aborted with the transport: `fetch` leaves a listener on the signal it is
    // given until the request is collected, so one long-lived signal would gather one listener per POST.
    const posting = new AbortController();
    this.posts.add(posting);
    let response: FetchResponse;
    try {
      response = await this.exchange("POST", headers, message.line, posting.signal);
    } finally {
      this.posts.delete(posting);
    }
    if (response.ok) return discardBody(response.body);
    const error = await httpStatusError(response, message.method ?? "a response");
    if (sessionId !== undefined && error.status === SESSION_CONFLICT) this.failSession(sessionId, error);
    return this.refused(message, registered, error);
  }

  /** The session of the agent request `message` answers, if it came over a session's stream (forgotten once used). */
  private answeredSession(message: Outgoing): string | undefined {
    if (message.method !== undefined || message.key === undefined) return undefined;
    const sessionId = this.answerSessions.get(message.key);
    this.answerSessions.delete(message.key);
    return sessionId;
  }

  /**
   * A message the server refused (not a connection failure: `exchange` ended
   * the transport for those): a request fails alone, by an error response
   * unless it was `registered` as waiting and is no longer (its response or
   * its session's failure came first); a notification's or response's `send`
   * rejects.
   */
  private refused(message: Outgoing, registered: boolean, error: HttpStatusError): void {
    if (!message.isRequest) throw error;
    if (!registered || (message.key !== undefined && this.waiting.delete(message.key))) this.deliverError(message.id, error);
  }

  /** Opens (once) the stream of `sessionId`; settles when it is open. A 409 rejects with an `HttpStatusError` of status 409. */
  private sessionStream(sessionId: string): Promise<void> {
    const failure = this.failedSessions.get(sessionId);
    if (failure !== undefined) return Promise.reject(failure);
    const open = this.sessions.get(sessionId);
    if (open !== undefined) return open.ready;
    const connectionId = this.connectionId;
    if (connectionId === undefined) return Promise.resolve();
    const controller = new AbortController();
    const abort = (): void => controller.abort();
    this.stop.signal.addEventListener("abort", abort, { once: true });
    const stream: SessionStream = {
      ready: this.openStream({ [CONNECTION_HEADER]: connectionId, [SESSION_HEADER]: sessionId }, controller.signal, sessionId, () => {
        this.stop.signal.removeEventListener("abort", abort);
        if (this.sessions.get(sessionId) === stream) this.sessions.delete(sessionId);
      }),
      abort,
    };
    this.sessions.set(sessionId, stream);
    stream.ready.catch((error: unknown) => this.streamRefused(sessionId, controller.signal, error));
    return stream.ready;
  }

  private openConnectionStream(connectionId: string): void {
    this.openStream({ [CONNECTION_HEADER]: connectionId }, this.stop.signal, undefined, () => {}).catch((error: unknown) =>
      this.streamRefused(undefined, this.stop.signal, error),
    );
  }

  /** A stream's GET failed: a session's 409 fails that session; anything else ends the transport (unless the stream was stopped). */
  private streamRefused(sessionId: string | undefined, signal: { readonly aborted: boolean }, error: unknown): void {
    if (this.ended || signal.aborted) return;
    if (sessionId !== undefined && error instanceof HttpStatusError && error.status === SESSION_CONFLICT) this.failSession(sessionId, error);
    else this.fail(error);
  }

  /**
   * GETs an event stream; resolves once it is open, then reads it in the
   * background until it ends, and calls `closed` then.
   */
  private async openStream(headers: Record<string, string>, signal: AbortSignalOrLike & { readonly aborted: boolean }, sessionId: string | undefined, closed: () => void): Promise<void> {
    let response: FetchResponse;
    try {
      response = await this.exchange("GET", { Accept: EVENT_STREAM_TYPE, ...headers }, undefined, signal);
      if (!response.ok) throw await httpStatusError(response, sessionId === undefined ? "the connection's event stream" : "a session's event stream");
      if (response.body === null) throw new Error("the event stream response has no body");
    } catch (error) {
      closed();
      throw error;
    }
    void this.readStream(response.body, signal, sessionId).finally(closed);
  }

  /** Reads an open event stream to its end, delivering its events; then the stream's end is handled. */
  private async readStream(body: ByteStream, signal: { readonly aborted: boolean }, sessionId: string | undefined): Promise<void> {
    const reader = body.getReader();
    const events = new EventStreamParser(this.maxMessageBytes, (message) => this.problem(message));
    let failure: unknown;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || this.ended || signal.aborted) break;
        if (value !== undefined) this.deliver(events.push(value), sessionId);
      }
    } catch (error) {
      failure = error;
    }
    if (this.ended || signal.aborted) return void reader.cancel().catch(() => {});
    this.deliver(events.finish(), sessionId);
    this.streamEnded(sessionId, failure);
  }

  /** A stream ended by the server (or the network): a session's fails its waiting requests; the connection's ends the transport. */
  private streamEnded(sessionId: string | undefined, failure: unknown): void {
    if (sessionId === undefined) return this.fail(failure ?? new Error("the connection's event stream ended"));
    this.sessions.delete(sessionId);
    this.failWaiting(sessionId, new Error("the session's event stream ended before the response arrived"));
  }

  /** Marks a session refused (409): its stream stops, its waiting requests fail, until it is attached again. */
  private failSession(sessionId: string, error: HttpStatusError): void {
    this.failedSessions.set(sessionId, error);
    const stream = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    stream?.abort();
    this.failWaiting(sessionId, error);
  }

  /** Delivers an error response to each of the session's requests still waiting for one. */
  private failWaiting(sessionId: string, error: Error): void {
    for (const [key, request] of [...this.waiting]) {
      if (request.sessionId !== sessionId) continue;
      this.waiting.delete(key);
      this.deliverError(request.id, error);
    }
  }

  /** Hands received messages to the sink, after noting at their top level what routing needs. */
  private deliver(texts: readonly string[], streamSession: string | undefined): void {
    if (texts.length === 0 || this.ended || this.sink === undefined) return;
    for (const text of texts) this.note(text, streamSession);
    deliverLines(this.sink, texts);
  }

  /** Notes what one received message means for routing: a response settles a waiting request and may name a new session; an agent request on a session's stream is answered for that session. */
  private note(text: string, streamSession: string | undefined): void {
    // A message with no member named "id" at any depth (no `"id"` in its text, nor a `\u` escape that could
    // spell one) is a notification: nothing to note, and its one parse is left to the connection.
    if (!text.includes('"id"') && !text.includes("\\u")) return;
    const message = topLevel(text);
    if (message === undefined) return;
    const key = idKey(message.id);
    if (typeof message.method === "string") {
      if (key !== undefined && streamSession !== undefined) this.answerSessions.set(key, streamSession);
      return;
    }
    if (key !== undefined) this.waiting.delete(key);
    const sessionId = sessionIdOfResult(message.result);
    if (sessionId !== undefined && !this.failedSessions.has(sessionId)) this.sessionStream(sessionId).catch(() => {});
  }

  /** Delivers a -32603 error response for request `id` (our own id, read from the line we sent). */
  private deliverError(id: unknown, error: Error): void {
    const data = error instanceof HttpStatusError ? { status: error.status, body: error.body } : undefined;
    const response = { jsonrpc: "2.0", id, error: { code: INTERNAL_ERROR, message: error.message, ...(data === undefined ? {} : { data }) } };
    this.deliver([JSON.stringify(response)], undefined);
  }

  /** One HTTP exchange with the transport's headers and cookies; a network error (not a stop) ends the transport. */
  private async exchange(method: FetchInit["method"], headers: Record<string, string>, body: string | undefined, signal: (AbortSignalOrLike & { readonly aborted: boolean }) | undefined): Promise<FetchResponse> {
    const fetch = this.fetch;
    if (fetch === undefined) throw new Error("httpTransport needs fetch");
    const init: FetchInit = {
      method,
      headers: this.headers(headers),
      credentials: this.policy,
      ...(body === undefined ? {} : { body }),
      ...(signal === undefined ? {} : { signal }),
    };
    let response: FetchResponse;
    try {
      response = await fetch(this.url, init);
    } catch (error) {
      if (!this.ended && signal?.aborted !== true) this.fail(error);
      throw error;
    }
    if (this.policy === "include") this.jar.store(setCookieValues(response.headers));
    if (CONNECTION_FAILURES.has(response.status) && method !== "DELETE") {
      const error = await httpStatusError(response, method === "GET" ? "an event stream" : "a POST");
      this.fail(error);
      throw error;
    }
    return response;
  }

  /** The request headers: the caller's, then the transport's own (which win), then the cookies. */
  private headers(own: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = {};
    const ownNames = new Set(Object.keys(own).map((name) => name.toLowerCase()));
    let callerCookie: string | undefined;
    for (const [name, value] of Object.entries(this.options.headers ?? {})) {
      if (name.toLowerCase() === "cookie") callerCookie = value;
      else if (!ownNames.has(name.toLowerCase())) headers[name] = value;
    }
    Object.assign(headers, own);
    const cookie = this.policy === "include" ? cookieHeader(this.jar, callerCookie) : callerCookie;
    if (cookie !== undefined) headers.Cookie = cookie;
    return headers;
  }

  /** DELETEs a connection, best effort: nothing is awaited or reported. */
  private deleteConnection(connectionId: string): void {
    this.exchange("DELETE", { [CONNECTION_HEADER]: connectionId }, undefined, undefined).then(
      (response) => discardBody(response.body),
      () => {},
    ).finally(() => {
      if (this.ownsJar) this.jar.clear();
    });
  }

  /** Ends the transport with `error`. */
  private fail(error: unknown): void {
    if (!this.ended) this.finish(error);
  }

  /** Stops every stream, DELETEs the connection (best effort), and ends the sink once. */
  private finish(error: unknown): void {
    this.ended = true;
    this.stop.abort();
    for (const post of this.posts) post.abort();
    this.posts.clear();
    const connectionId = this.connectionId;
    if (connectionId !== undefined) this.deleteConnection(connectionId);
    else if (this.ownsJar) this.jar.clear();
    this.sink?.end(error);
  }

  private problem(message: string): void {
    if (!this.ended) this.sink?.problem(message);
  }
}

/** `fetch` (given, else the global one) called without a receiver; `undefined` when there is none. */
function boundFetch(given: FetchLike | undefined): FetchLike | undefined {
  const fetch = given ?? (globalThis as { fetch?: FetchLike }).fetch;
  return typeof fetch === "function" ? (url, init) => fetch(url, init) : undefined;
}

/** Reads one outgoing line at its top level; throws when it is not a JSON object. */
function readOutgoing(line: string): Outgoing {
  const message = topLevel(line);
  if (message === undefined) throw new Error("an outgoing line is not a JSON-RPC message object");
  const method = typeof message.method === "string" ? message.method : undefined;
  const key = idKey(message.id);
  return { line, method, key, id: message.id, isRequest: method !== undefined && key !== undefined, sessionId: method === undefined ? undefined : sessionIdOfParams(message.params) };
}

/** The top-level members of a JSON object text (`undefined` for other JSON or bad JSON); nothing below is looked at. */
function topLevel(text: string): { readonly method?: unknown; readonly id?: unknown; readonly params?: unknown; readonly result?: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const own = (name: string): unknown => (Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined);
  return { method: own("method"), id: Object.hasOwn(value, "id") ? own("id") : undefined, params: own("params"), result: own("result") };
}

/** A map key for a JSON-RPC id (`"s:7"` and `"n:7"` differ); `undefined` for a missing or malformed id. */
function idKey(id: unknown): string | undefined {
  if (typeof id === "string") return `s:${id}`;
  if (typeof id === "number") return `n:${id}`;
  return id === null ? "null" : undefined;
}

/** The error of a response that was not a success, with up to 8 KiB of its body. */
async function httpStatusError(response: FetchResponse, what: string): Promise<HttpStatusError> {
  const body = await readText(response.body, ERROR_BODY_BYTES, true).catch(() => "");
  return new HttpStatusError(response.status, body, what);
}

/**
 * Reads to its end, in the background, a body nobody needs (a `202`'s,
 * usually empty), so that the HTTP connection is free for the next request:
 * cancelling a body whose end has not arrived yet (a chunked `202`'s last
 * chunk) would close the connection. A body longer than `DISCARD_BYTES` is
 * cancelled.
 */
function discardBody(body: ByteStream | null): void {
  if (body === null) return;
  const reader = body.getReader();
  let size = 0;
  const next = (): Promise<void> =>
    reader.read().then(({ done, value }) => {
      if (done) return;
      size += value?.length ?? 0;
      return size > DISCARD_BYTES ? reader.cancel() : next();
    });
  void next().catch(() => {});
}

/** The most bytes of an unneeded body read to keep its connection; past it the body is cancelled. */
const DISCARD_BYTES = 64 * 1024;

/** Reads a body as UTF-8 text; past `limit` bytes it is cut (`truncate`) or rejected. */
async function readText(body: ByteStream | null, limit: number, truncate: boolean): Promise<string> {
  if (body === null) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  const parts: string[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value === undefined) continue;
    if (size + value.length > limit) {
      void reader.cancel().catch(() => {});
      if (!truncate) throw new Error(`a response body longer than maxMessageBytes (${limit} bytes)`);
      parts.push(decoder.decode(value.subarray(0, limit - size), { stream: true }));
      return parts.join("");
    }
    size += value.length;
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode(new Uint8Array(0)));
  return parts.join("");
}

/**
 * Cuts a server-sent event stream into the `data` of its events (the lines of
 * one event's `data:` fields joined with `\n`). Lines end with LF, CRLF or
 * CR; comments, `event:`, `id:` and `retry:` are skipped. An event whose data
 * passes `maxBytes` is dropped and reported; the stream goes on.
 */
class EventStreamParser {
  private line: Uint8Array[] = [];
  private lineSize = 0;
  private data: string[] = [];
  private dataSize = 0;
  private hasData = false;
  private skipping = false;
  /** The last byte of the previous chunk was CR: an LF first in this one ends nothing. */
  private afterReturn = false;
  private readonly decoder = new TextDecoder("utf-8");

  constructor(
    private readonly maxBytes: number,
    private readonly problem: (message: string) => void,
  ) {}

  /** Takes one chunk; returns the data of the events it completed, in order. */
  push(chunk: Uint8Array): string[] {
    const events: string[] = [];
    let start = 0;
    if (this.afterReturn && chunk[0] === LF) start = 1;
    this.afterReturn = false;
    // Line ends found by the native `indexOf`, the next LF and the next CR each looked up again only once passed.
    let lf = chunk.indexOf(LF, start);
    let cr = chunk.indexOf(CR, start);
    while (lf >= 0 || cr >= 0) {
      const end = cr < 0 || (lf >= 0 && lf < cr) ? lf : cr;
      this.keep(chunk.subarray(start, end));
      this.endLine(events);
      start = end + 1;
      if (end === cr) {
        if (start === chunk.length) this.afterReturn = true;
        else if (chunk[start] === LF) start++;
      }
      if (lf >= 0 && lf < start) lf = chunk.indexOf(LF, start);
      if (cr >= 0 && cr < start) cr = chunk.indexOf(CR, start);
    }
    this.keep(chunk.subarray(start));
    return events;
  }

  /** The end of the stream: an event not closed by a blank line still counts. */
  finish(): string[] {
    const events: string[] = [];
    if (this.lineSize > 0) this.endLine(events);
    this.endEvent(events);
    return events;
  }

  private keep(part: Uint8Array): void {
    if (part.length === 0 || this.skipping) return;
    if (this.lineSize + part.length > this.maxBytes + LINE_OVERHEAD) return this.tooLong();
    this.line.push(part);
    this.lineSize += part.length;
  }

  private endLine(events: string[]): void {
    const bytes = joinParts(this.line, this.lineSize);
    this.line = [];
    this.lineSize = 0;
    if (bytes.length === 0) return this.endEvent(events);
    if (this.skipping) return;
    const text = this.decoder.decode(bytes);
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    if (field !== "data") return;
    const value = colon < 0 ? "" : text.slice(text.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1);
    if (this.dataSize + bytes.length > this.maxBytes) return this.tooLong();
    this.data.push(value);
    this.dataSize += bytes.length;
    this.hasData = true;
  }

  private endEvent(events: string[]): void {
    if (this.hasData && !this.skipping) {
      const data = this.data.join("\n");
      if (data.trim() !== "") events.push(data);
    }
    this.data = [];
    this.dataSize = 0;
    this.hasData = false;
    this.skipping = false;
  }

  private tooLong(): void {
    if (this.skipping) return;
    this.skipping = true;
    this.line = [];
    this.lineSize = 0;
    this.data = [];
    this.dataSize = 0;
    this.problem(`a server-sent event longer than maxMessageBytes (${this.maxBytes} bytes) was dropped`);
  }
}

const LF = 10;
const CR = 13;
const SPACE = 32;
/** What a `data: ` line carries besides its data (the field name, colon, space, a byte-order mark). */
const LINE_OVERHEAD = 16;

/** The bytes of a line's parts (the one part itself, uncopied, when there is one). */
function joinParts(parts: readonly Uint8Array[], size: number): Uint8Array {
  return parts.length === 1 ? parts[0]! : joinBytes(parts, NO_BYTES, size);
}

const NO_BYTES = new Uint8Array(0);
