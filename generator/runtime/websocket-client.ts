/**
 * The client end of ACP's WebSocket transport (the ACP proposal "Streamable
 * HTTP & WebSocket transport"), as a `Transport` for `connectClient`: a GET
 * upgraded to a WebSocket, one JSON-RPC message per text frame, both ways.
 * Browser-safe: the `WebSocket` constructor is the global one or the one
 * passed in (the `ws` package's in Node 20, which has no global one), no Node
 * built-in is imported, and only structural types are used.
 */
import { type CookieJar, type CookiePolicy, contained, cookieHeader, createCookieJar, setCookieValues, splitJoinedSetCookie } from "./client-wire.js";
import { errorMessage } from "./describe.js";
import { containedSink, type LineSink, type Transport } from "./transport.js";

/** A WebSocket, as far as this module uses it (the standard one and the `ws` package's fit). */
export interface WebSocketLike {
  readonly readyState: number;
  /** Bytes queued but not yet sent; read for back-pressure where present. */
  readonly bufferedAmount?: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open" | "message" | "close" | "error", listener: (event: any) => void): void;
  /** The `ws` package's event emitter, used only for its `upgrade` event (the `Set-Cookie` of the 101 answer). */
  on?(event: "upgrade", listener: (response: { readonly headers?: unknown }) => void): unknown;
}

/** A `WebSocket` constructor: the standard one takes `(url, protocols)`; the `ws` package's also takes `{ headers }`. */
export type WebSocketConstructor = new (url: string, protocols?: string | string[], options?: { headers?: Record<string, string> }) => WebSocketLike;

/** Options of `webSocketTransport`. */
export interface WebSocketTransportOptions {
  /** The constructor to use (default `globalThis.WebSocket`). Node 20 has none: pass the `ws` package's `WebSocket`. */
  readonly WebSocket?: WebSocketConstructor;
  /** Subprotocols to offer. */
  readonly protocols?: string | string[];
  /**
   * Headers for the upgrade request (authorization, say), passed as the
   * constructor's third argument `{ headers }`: the `ws` package sends them,
   * a browser's `WebSocket` takes no headers and ignores them.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** Send kept cookies with the upgrade and keep the answer's `Set-Cookie` (`"include"`, the default, where the constructor allows it), or not (`"omit"`). */
  readonly cookies?: CookiePolicy;
  /** Where cookies are kept; share one with an `httpTransport` or the next transport to keep load-balancer affinity. Default: a jar of this transport's own. */
  readonly cookieJar?: CookieJar;
  /** Largest accepted text frame in bytes (default 64 MiB): a longer one is dropped and reported, the socket goes on. */
  readonly maxMessageBytes?: number;
}

declare const setTimeout: (callback: () => void, ms: number) => unknown;
declare const TextEncoder: new () => { encode(text: string): Uint8Array };

const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const CONNECTING = 0;
const OPEN = 1;
/** `send` waits while more than this is queued on the socket, polling every `DRAIN_POLL_MS`. */
const HIGH_WATER_BYTES = 1024 * 1024;
const DRAIN_POLL_MS = 10;
/** Close codes of an orderly end: normal closure, and no status given. */
const ORDERLY_CLOSE: ReadonlySet<number> = new Set([1000, 1005]);

/** The error when there is no `WebSocket` constructor. */
const NO_WEBSOCKET =
  "webSocketTransport needs a WebSocket constructor: there is no globalThis.WebSocket (Node 20 has none); pass the ws package's WebSocket as options.WebSocket (import { WebSocket } from \"ws\")";

/**
 * A `Transport` over ACP's WebSocket binding: each line is one text frame,
 * each text frame received one line (binary frames are ignored and reported).
 * The socket is made at `start`; `send` waits for it to open, and while more
 * than 1 MiB is queued on it. The socket's close ends the transport (with an
 * error unless it was an orderly close); `close()` closes the socket and ends.
 * Never throws: without a constructor, or when it throws (a bad URL), `start`
 * ends the sink with the error and `send` rejects.
 */
export function webSocketTransport(url: string, options: WebSocketTransportOptions = {}): Transport {
  return new WebSocketTransport(url, options);
}

class WebSocketTransport implements Transport {
  private sink: LineSink | undefined;
  private socket: WebSocketLike | undefined;
  private ended = false;
  private failure: unknown;
  /** Senders waiting for the socket to open: settled by `open`, or by the end. */
  private waiting: { readonly resolve: () => void; readonly reject: (error: unknown) => void }[] = [];
  private readonly jar: CookieJar;
  private readonly maxMessageBytes: number;

  constructor(
    private readonly url: string,
    private readonly options: WebSocketTransportOptions,
  ) {
    this.jar = options.cookieJar ?? createCookieJar();
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  start(sink: LineSink): void {
    this.sink = containedSink(sink);
    const Socket = this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (typeof Socket !== "function") return this.finish(new Error(NO_WEBSOCKET));
    try {
      this.socket = this.open(Socket);
    } catch (error) {
      this.finish(error);
    }
  }

  async send(line: string): Promise<void> {
    const socket = await this.openSocket();
    socket.send(line);
    await this.drained(socket);
  }

  close(): void {
    if (this.ended) return;
    try {
      this.socket?.close(1000);
    } catch (error) {
      this.problem(`closing the WebSocket failed: ${errorMessage(error)}`);
    }
    this.finish(undefined);
  }

  /** Makes the socket and listens to it; every listener is contained. */
  private open(Socket: WebSocketConstructor): WebSocketLike {
    const headers = this.upgradeHeaders();
    const socket = headers === undefined ? new Socket(this.url, this.options.protocols) : new Socket(this.url, this.options.protocols, { headers });
    socket.addEventListener("open", () => contained(this.sink, () => this.opened()));
    socket.addEventListener("message", (event: { readonly data?: unknown }) => contained(this.sink, () => this.received(event.data)));
    socket.addEventListener("error", (event: { readonly error?: unknown; readonly message?: unknown }) => contained(this.sink, () => this.finish(socketError(event))));
    socket.addEventListener("close", (event: { readonly code?: unknown }) => contained(this.sink, () => this.closed(event.code)));
    if ((this.options.cookies ?? "include") === "include" && typeof socket.on === "function") {
      socket.on("upgrade", (response) => contained(this.sink, () => this.jar.store(upgradeSetCookies(response.headers))));
    }
    return socket;
  }

  /** The upgrade's headers: the caller's, and the kept cookies; `undefined` when there are none. */
  private upgradeHeaders(): Record<string, string> | undefined {
    const headers: Record<string, string> = {};
    let callerCookie: string | undefined;
    for (const [name, value] of Object.entries(this.options.headers ?? {})) {
      if (name.toLowerCase() === "cookie") callerCookie = value;
      else headers[name] = value;
    }
    const cookie = (this.options.cookies ?? "include") === "include" ? cookieHeader(this.jar, callerCookie) : callerCookie;
    if (cookie !== undefined) headers.Cookie = cookie;
    return Object.keys(headers).length === 0 ? undefined : headers;
  }

  /** The socket once it is open; rejects when the transport ended (or ends first). */
  private openSocket(): Promise<WebSocketLike> {
    const socket = this.socket;
    if (this.ended || socket === undefined) return Promise.reject(this.endedError());
    if (socket.readyState === OPEN) return Promise.resolve(socket);
    if (socket.readyState !== CONNECTING) return Promise.reject(new Error("the WebSocket is closing"));
    return new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject })).then(() => socket);
  }

  /** Settles once the socket has queued no more than `HIGH_WATER_BYTES`, or rejects when the transport ends first. */
  private async drained(socket: WebSocketLike): Promise<void> {
    while ((socket.bufferedAmount ?? 0) > HIGH_WATER_BYTES) {
      if (this.ended) throw this.endedError();
      await new Promise<void>((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
  }

  private opened(): void {
    for (const waiter of this.waiting.splice(0)) waiter.resolve();
  }

  /** One frame: text is a line (unless too long); anything else (binary) is ignored and reported. */
  private received(data: unknown): void {
    const sink = this.sink;
    if (this.ended || sink === undefined) return;
    if (typeof data !== "string") return sink.problem("a binary WebSocket frame was ignored (ACP messages are text frames)");
    if (data.length * 3 > this.maxMessageBytes && new TextEncoder().encode(data).length > this.maxMessageBytes) {
      return sink.problem(`a WebSocket message longer than maxMessageBytes (${this.maxMessageBytes} bytes) was dropped`);
    }
    if (data.trim() !== "") sink.line(data);
  }

  private closed(code: unknown): void {
    const orderly = typeof code === "number" && ORDERLY_CLOSE.has(code);
    this.finish(orderly ? undefined : new Error(`the WebSocket closed (code ${typeof code === "number" ? code : "unknown"})`));
  }

  /** Ends the transport once: waiting senders reject, the sink ends. */
  private finish(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error;
    const stopped = this.endedError();
    for (const waiter of this.waiting.splice(0)) waiter.reject(stopped);
    this.sink?.end(error);
  }

  private endedError(): Error {
    return this.failure instanceof Error ? this.failure : new Error("the WebSocket transport is closed");
  }

  private problem(message: string): void {
    this.sink?.problem(message);
  }
}

/** The error of a socket's `error` event (a standard one carries none: a generic error is made). */
function socketError(event: { readonly error?: unknown; readonly message?: unknown }): Error {
  if (event.error instanceof Error) return event.error;
  return new Error(typeof event.message === "string" && event.message !== "" ? `WebSocket error: ${event.message}` : "WebSocket error");
}

/** The `Set-Cookie` values of the `ws` package's upgrade response (Node's `IncomingMessage` headers: a string array). */
function upgradeSetCookies(headers: unknown): string[] {
  if (typeof headers !== "object" || headers === null) return [];
  if (typeof (headers as { get?: unknown }).get === "function") return setCookieValues(headers as { get(name: string): string | null });
  const value = Object.hasOwn(headers, "set-cookie") ? (headers as Record<string, unknown>)["set-cookie"] : undefined;
  if (typeof value === "string") return splitJoinedSetCookie(value);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}
