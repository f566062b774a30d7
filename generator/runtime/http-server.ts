/**
 * The server end of ACP's network transports (the ACP proposal "Streamable
 * HTTP & WebSocket transport"), as a Web-standard handler (`Request` ->
 * `Response`, for Node through http-node.ts, Deno, Bun, edge runtimes) and a
 * WebSocket acceptor. Each accepted connection is a `Transport` handed to the
 * application's `connect`, e.g. `(transport) => connectAgent(transport,
 * handlers)`. No runtime dependency; only structural types, so the package
 * needs no DOM or Node type library.
 *
 * The wire: one endpoint. `POST` (`Content-Type: application/json`) carries
 * one client message; `initialize` without `Acp-Connection-Id` opens a
 * connection and is answered `200` with the response and the
 * `Acp-Connection-Id` header; later POSTs name the connection (and
 * `Acp-Session-Id` for a session's messages) and are answered `202`, their
 * responses travelling over SSE. `GET` (`Accept: text/event-stream`) opens
 * the connection's SSE stream, or a session's with `Acp-Session-Id`.
 * `DELETE` ends the connection. A WebSocket carries every message both ways.
 */
import { type AgentConnection, type ConnectionLimits, ServerConnection, type SocketEnd } from "./http-connection.js";
import { plainSseBody, sseBody } from "./http-outbox.js";
import { type SocketHost, serveSocket, type ServerWebSocket, type WebSocketUpgrade } from "./http-websocket.js";
import { CONNECTION_HEADER, callKey, type Envelope, envelopeOf, errorLine, EVENT_STREAM_TYPE, JSON_TYPE, NOT_A_MESSAGE_LINE, PARSE_ERROR_LINE, PLAIN_RESPONSES, SESSION_HEADER } from "./remote-wire.js";
import { joinBytes, type Transport, type WebReadable } from "./transport.js";

export type { AgentConnection } from "./http-connection.js";
export type { ServerWebSocket, WebSocketUpgrade } from "./http-websocket.js";

declare const TextDecoder: new (label: string, options: { fatal: boolean }) => { decode(bytes: Uint8Array): string };
declare const TextEncoder: new () => { encode(text: string): Uint8Array };
declare const Response: new (body: string | WebReadable | null, init: { status: number; headers: Record<string, string> }) => AcpResponse;

/** Request headers, as far as the server reads them (a Web `Headers` fits). */
export interface HeadersLike {
  /** The value of header `name` (case-insensitive), `null` when absent. */
  get(name: string): string | null;
}

/** A Web `Request`, as far as the server reads it. */
export interface AcpRequest {
  /** The HTTP method. */
  readonly method: string;
  /** The request headers. */
  readonly headers: HeadersLike;
  /** The body (a POST's message), if any. */
  readonly body?: WebReadable | null | undefined;
}

/** A Web `Response`, as far as the server describes it; at run time it is the platform's own `Response`. */
export interface AcpResponse {
  /** The HTTP status. */
  readonly status: number;
  /** The response headers. */
  readonly headers: HeadersLike & { forEach(callback: (value: string, name: string) => void): void };
  /** The body: text, or an SSE stream; `null` for none. */
  readonly body: WebReadable | null;
}

/** What `connect` learns of a new connection. */
export interface ConnectionInfo {
  /** The connection id (`Acp-Connection-Id`). Not a credential: anyone who learns it can use the connection, so `authorize` checks every request. */
  readonly connectionId: string;
  /** The headers of the request that opened the connection (the `initialize` POST, or the WebSocket upgrade). */
  readonly headers: HeadersLike;
}

/** Options of `createAcpServer`. */
export interface AcpServerOptions {
  /**
   * Called once per accepted connection (on its `initialize`) with the
   * connection's transport; returns the agent's connection on it, e.g.
   * `(transport) => connectAgent(transport, handlers)` (the same handlers
   * for every connection, or a new agent from a factory each time). The
   * server closes it when the connection ends; when it closes, the
   * connection ends. A `connect` that throws fails the `initialize` (500).
   */
  connect(transport: Transport, info: ConnectionInfo): AgentConnection;
  /** Largest POST body in bytes (default 16 MiB); a larger one is answered 413. */
  readonly maxBodyBytes?: number;
  /**
   * Largest message in UTF-8 bytes (default 16 MiB): a longer WebSocket
   * frame closes the socket (1009); a longer agent message is not sent (its
   * `send` rejects; a response is replaced by an error response).
   */
  readonly maxMessageBytes?: number;
  /**
   * Most bytes one outbound stream (the connection's SSE stream, a session's,
   * a WebSocket) may hold unread (default 32 MiB). A client that stops
   * reading, or never opens a stream its messages wait for, makes its
   * connection close when this is exceeded: memory stays bounded.
   */
  readonly maxBufferedBytes?: number;
  /** Most open connections (default 1024); an `initialize` or upgrade beyond is answered 503. */
  readonly maxConnections?: number;
  /** Most session streams (open or holding messages) per connection (default 64); a session beyond is answered 409 and its agent requests fail. */
  readonly maxSessionStreams?: number;
  /** Longest accepted `Acp-Connection-Id` and `Acp-Session-Id` (default 256 characters); longer is answered 400. */
  readonly maxIdLength?: number;
  /** A connection with no open stream and no request for this long ends (default 300000 ms, five minutes). */
  readonly idleTimeoutMs?: number;
  /**
   * The origins (`https://app.example`) whose browser requests are served,
   * with CORS headers; a request with another `Origin` is answered 403.
   * Default: only the server's own origin (the `Origin` matches the `Host`
   * header), which stops DNS-rebinding and cross-site pages. Requests
   * without `Origin` (not from a browser) are always served.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Decides whether a request is served; runs on every request (POST, GET,
   * DELETE, WebSocket upgrade; not CORS preflights), before anything else
   * happens, since a connection id is no credential. `true` serves it;
   * `false` answers 401 (no `Authorization` header) or 403; a returned
   * response is sent as it is; a throw is answered 500.
   */
  authorize?(request: AcpRequest): boolean | AcpResponse | Promise<boolean | AcpResponse>;
}

/** An ACP server: a Web-standard request handler and a WebSocket acceptor over the connections they share. */
export interface AcpServer {
  /** Serves one HTTP request of the transport (POST, GET, DELETE, OPTIONS). Never rejects: bad input is a 4xx response. */
  handle(request: AcpRequest): Promise<AcpResponse>;
  /**
   * Checks a WebSocket upgrade request (origin, `authorize`, capacity) and
   * reserves a connection for it: the upgrade to complete, with its
   * `connectionId` as the `Acp-Connection-Id` header of the 101; or the
   * response refusing it. Never rejects.
   */
  prepareWebSocket(request: AcpRequest): Promise<WebSocketUpgrade | AcpResponse>;
  /**
   * Serves an already upgraded WebSocket (`prepareWebSocket` and `accept` in
   * one, for servers that upgrade first, like Deno's or Bun's); a refused
   * request closes the socket (1008). Never rejects.
   */
  acceptWebSocket(socket: ServerWebSocket, request: AcpRequest): Promise<void>;
  /** Ends every connection (their agents' pending requests reject) and refuses new ones; settles once every agent connection closed. */
  close(): Promise<void>;
  /** The number of open connections (those opening included). */
  readonly connectionCount: number;
}

const DEFAULTS = {
  maxBodyBytes: 16 * 1024 * 1024,
  maxMessageBytes: 16 * 1024 * 1024,
  maxBufferedBytes: 32 * 1024 * 1024,
  maxConnections: 1024,
  maxSessionStreams: 64,
  maxIdLength: 256,
  idleTimeoutMs: 300_000,
} as const;

type Limits = ConnectionLimits & { readonly [K in keyof typeof DEFAULTS]: number };

const ALLOW_METHODS = "GET, POST, DELETE, OPTIONS";
const ALLOW_HEADERS = `Content-Type, Accept, Authorization, ${CONNECTION_HEADER}, ${SESSION_HEADER}`;
const EXPOSE_HEADERS = `${CONNECTION_HEADER}, ${SESSION_HEADER}`;

/** Creates an ACP server; see `AcpServerOptions` for its limits and their defaults. Throws a RangeError for a limit that is not a positive integer. */
export function createAcpServer(options: AcpServerOptions): AcpServer {
  return new Server(options, resolveLimits(options));
}

function resolveLimits(options: AcpServerOptions): Limits {
  const limits = { ...DEFAULTS } as Record<keyof typeof DEFAULTS, number>;
  for (const name of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
    const value = options[name] ?? DEFAULTS[name];
    if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer`);
    limits[name] = value;
  }
  return limits;
}

/** Builds the responses of one request, each with the request's CORS headers. */
class Reply {
  constructor(private readonly cors: Readonly<Record<string, string>>) {}

  text(status: number, text: string, headers: Record<string, string> = {}): AcpResponse {
    return new Response(text, { status, headers: { ...this.cors, "Content-Type": "text/plain; charset=utf-8", ...headers } });
  }

  json(status: number, text: string, headers: Record<string, string> = {}): AcpResponse {
    return new Response(text, { status, headers: { ...this.cors, "Content-Type": JSON_TYPE, ...headers } });
  }

  empty(status: number, headers: Record<string, string> = {}): AcpResponse {
    return new Response(null, { status, headers: { ...this.cors, ...headers } });
  }

  events(body: WebReadable): AcpResponse {
    return new Response(body, { status: 200, headers: this.eventHeaders() });
  }

  /** An event stream's response as a plain object (no `Response`), for an adapter that asked for one (`PLAIN_RESPONSES`). */
  plainEvents(body: WebReadable): AcpResponse {
    const headers = this.eventHeaders();
    const names = new Map(Object.keys(headers).map((name) => [name.toLowerCase(), headers[name]!]));
    return {
      status: 200,
      headers: {
        get: (name) => names.get(name.toLowerCase()) ?? null,
        forEach: (callback) => names.forEach((value, name) => callback(value, name)),
      },
      body,
    };
  }

  private eventHeaders(): Record<string, string> {
    return { ...this.cors, "Content-Type": EVENT_STREAM_TYPE, "Cache-Control": "no-cache", "X-Accel-Buffering": "no" };
  }
}

class Server implements AcpServer {
  private readonly connections = new Map<string, ServerConnection>();
  /** Connection ids of WebSocket upgrades not yet opened (counted against `maxConnections`). */
  private readonly reserved = new Set<string>();
  private closed = false;

  constructor(
    private readonly options: AcpServerOptions,
    private readonly limits: Limits,
  ) {}

  get connectionCount(): number {
    return this.connections.size + this.reserved.size;
  }

  async handle(request: AcpRequest): Promise<AcpResponse> {
    try {
      return await this.serve(request);
    } catch {
      return new Reply({}).text(500, "internal server error");
    }
  }

  async prepareWebSocket(request: AcpRequest): Promise<WebSocketUpgrade | AcpResponse> {
    try {
      const reply = this.corsOf(request);
      if (reply === undefined) return new Reply({}).text(403, "origin not allowed");
      const refused = (await this.admit(request, reply)) ?? this.refuseNewConnection(reply);
      return refused ?? this.reserve(request);
    } catch {
      return new Reply({}).text(500, "internal server error");
    }
  }

  async acceptWebSocket(socket: ServerWebSocket, request: AcpRequest): Promise<void> {
    const upgrade = await this.prepareWebSocket(request);
    if ("accept" in upgrade) return upgrade.accept(socket);
    try {
      socket.close(1008, `refused: ${upgrade.status}`);
    } catch {
      // The socket is gone already.
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reserved.clear();
    const open = [...this.connections.values()];
    for (const connection of open) connection.end("the server closed");
    await Promise.all(open.map((connection) => connection.agentClosed));
  }

  // --- requests ---

  private async serve(request: AcpRequest): Promise<AcpResponse> {
    const reply = this.corsOf(request);
    if (reply === undefined) return new Reply({}).text(403, "origin not allowed");
    if (request.method === "OPTIONS") return reply.empty(204, preflightHeaders(request));
    const refused = await this.admit(request, reply);
    if (refused !== undefined) return refused;
    switch (request.method) {
      case "POST":
        return this.post(request, reply);
      case "GET":
        return this.get(request, reply);
      case "DELETE":
        return this.delete(request, reply);
      default:
        return reply.text(405, "method not allowed", { Allow: ALLOW_METHODS });
    }
  }

  /** The refusal of a request by its ids' lengths or by `authorize`; `undefined` when it is served. */
  private async admit(request: AcpRequest, reply: Reply): Promise<AcpResponse | undefined> {
    for (const name of [CONNECTION_HEADER, SESSION_HEADER]) {
      if ((request.headers.get(name)?.length ?? 0) > this.limits.maxIdLength) return reply.text(400, `${name} longer than maxIdLength (${this.limits.maxIdLength})`);
    }
    if (this.options.authorize === undefined) return undefined;
    let verdict: boolean | AcpResponse;
    try {
      verdict = await this.options.authorize(request);
    } catch {
      return reply.text(500, "authorization failed");
    }
    if (verdict === true) return undefined;
    if (verdict !== false) return verdict;
    return request.headers.get("authorization") === null ? reply.text(401, "unauthorized", { "WWW-Authenticate": "Bearer" }) : reply.text(403, "forbidden");
  }

  private async post(request: AcpRequest, reply: Reply): Promise<AcpResponse> {
    if (mediaType(request.headers.get("content-type")) !== JSON_TYPE) return reply.text(415, `Content-Type must be ${JSON_TYPE}`);
    const body = await readBody(request, this.limits.maxBodyBytes);
    if (typeof body !== "string") return reply.text(body.status, body.reason);
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return reply.json(400, PARSE_ERROR_LINE);
    }
    const message = envelopeOf(value);
    if (message === undefined) return reply.json(400, NOT_A_MESSAGE_LINE);
    const connectionId = header(request, CONNECTION_HEADER);
    if (message.method === "initialize" && connectionId === undefined) return this.initialize(request, body, message, reply);
    const connection = this.connectionOf(connectionId);
    if (typeof connection === "string") return reply.text(connectionId === undefined ? 400 : 404, connection);
    if (message.method === "initialize") return reply.text(400, "initialize on an open connection");
    const refusal = connection.receive(body, message, header(request, SESSION_HEADER));
    return refusal === undefined ? reply.empty(202) : reply.text(refusal.status, refusal.reason);
  }

  private async initialize(request: AcpRequest, line: string, message: Envelope, reply: Reply): Promise<AcpResponse> {
    const key = callKey(message.id);
    if (key === undefined || message.id === undefined || message.id === null) return reply.text(400, "initialize must be a request with an id");
    const refused = this.refuseNewConnection(reply);
    if (refused !== undefined) return refused;
    const connection = this.open(newConnectionId(), request.headers);
    if (connection === undefined) return reply.json(500, errorLine(message.id, "the connection could not be opened"));
    const answer = await connection.initialize(line, key);
    if (answer === undefined) return reply.json(500, errorLine(message.id, `the connection ended before initialize was answered: ${connection.endReason ?? ""}`));
    return reply.json(200, answer, { [CONNECTION_HEADER]: connection.id });
  }

  private get(request: AcpRequest, reply: Reply): AcpResponse {
    if (header(request, "upgrade")?.toLowerCase() === "websocket") return reply.text(426, "WebSocket upgrades are served by prepareWebSocket/acceptWebSocket");
    if (!(request.headers.get("accept") ?? "").toLowerCase().includes(EVENT_STREAM_TYPE)) return reply.text(406, `Accept must include ${EVENT_STREAM_TYPE}`);
    const connectionId = header(request, CONNECTION_HEADER);
    const connection = this.connectionOf(connectionId);
    if (typeof connection === "string") return reply.text(connectionId === undefined ? 400 : 404, connection);
    const reader = connection.openStream(header(request, SESSION_HEADER));
    if ("status" in reader) return reply.text(reader.status, reader.reason);
    return (request as { [PLAIN_RESPONSES]?: boolean })[PLAIN_RESPONSES] === true ? reply.plainEvents(plainSseBody(reader)) : reply.events(sseBody(reader));
  }

  private delete(request: AcpRequest, reply: Reply): AcpResponse {
    const connectionId = header(request, CONNECTION_HEADER);
    const connection = this.connectionOf(connectionId);
    if (typeof connection === "string") return reply.text(connectionId === undefined ? 400 : 404, connection);
    connection.end("the client deleted the connection");
    return reply.empty(202);
  }

  // --- connections ---

  /** The open connection `id` names, or why there is none. */
  private connectionOf(id: string | undefined): ServerConnection | string {
    if (id === undefined) return `missing ${CONNECTION_HEADER}`;
    return this.connections.get(id) ?? `unknown or ended ${CONNECTION_HEADER}`;
  }

  /** The refusal of a new connection: the server closed, or `maxConnections` are open. */
  private refuseNewConnection(reply: Reply): AcpResponse | undefined {
    if (this.closed) return reply.text(503, "the server is closed");
    if (this.connectionCount >= this.limits.maxConnections) return reply.text(503, `maxConnections (${this.limits.maxConnections}) reached`, { "Retry-After": "5" });
    return undefined;
  }

  /** Opens connection `id` and hands its transport to `connect`; `undefined` when `connect` threw. */
  private open(id: string, headers: HeadersLike, socket?: SocketEnd): ServerConnection | undefined {
    const connection = new ServerConnection(id, this.limits, (ended) => this.forget(ended), socket);
    this.connections.set(id, connection);
    try {
      connection.adopt(this.options.connect(connection, { connectionId: id, headers }));
      return connection;
    } catch {
      connection.end("connect threw");
      return undefined;
    }
  }

  private forget(connection: ServerConnection): void {
    if (this.connections.get(connection.id) === connection) this.connections.delete(connection.id);
  }

  private reserve(request: AcpRequest): WebSocketUpgrade {
    const connectionId = newConnectionId();
    this.reserved.add(connectionId);
    let settled = false;
    const host: SocketHost = {
      maxMessageBytes: this.limits.maxMessageBytes,
      maxBufferedBytes: this.limits.maxBufferedBytes,
      open: (id, end) => (this.reserved.delete(id) ? this.open(id, request.headers, end) : undefined),
      release: (id) => void this.reserved.delete(id),
    };
    return {
      connectionId,
      accept: (socket) => {
        if (settled) return;
        settled = true;
        if (this.reserved.has(connectionId)) serveSocket(socket, connectionId, host);
        else closeQuietly(socket);
      },
      reject: () => {
        if (!settled) this.reserved.delete(connectionId);
        settled = true;
      },
    };
  }

  // --- origins ---

  /** The responses of a request from an allowed origin (with its CORS headers); `undefined` for a disallowed origin. */
  private corsOf(request: AcpRequest): Reply | undefined {
    const origin = request.headers.get("origin");
    if (origin === null) return new Reply({});
    if (!this.originAllowed(origin, request)) return undefined;
    return new Reply({
      "Access-Control-Allow-Origin": origin,
      "Access-Control-Allow-Credentials": "true",
      "Access-Control-Expose-Headers": EXPOSE_HEADERS,
      Vary: "Origin",
    });
  }

  private originAllowed(origin: string, request: AcpRequest): boolean {
    if (this.options.allowedOrigins !== undefined) return this.options.allowedOrigins.includes(origin);
    const host = request.headers.get("host");
    return host !== null && (origin === `http://${host}` || origin === `https://${host}`);
  }
}

function preflightHeaders(request: AcpRequest): Record<string, string> {
  const preflight = { "Access-Control-Allow-Methods": ALLOW_METHODS, "Access-Control-Allow-Headers": ALLOW_HEADERS, "Access-Control-Max-Age": "600" };
  return request.headers.get("origin") === null ? { Allow: ALLOW_METHODS } : preflight;
}

/** A header's value; `undefined` when absent or empty. */
function header(request: AcpRequest, name: string): string | undefined {
  const value = request.headers.get(name);
  return value === null || value === "" ? undefined : value;
}

/** The media type of a Content-Type value, lower case, without parameters. */
function mediaType(contentType: string | null): string | undefined {
  return contentType?.split(";", 1)[0]?.trim().toLowerCase();
}

/** A refusal of a request body: its status and reason. */
interface BodyRefusal {
  readonly status: number;
  readonly reason: string;
}

const encoder = new TextEncoder();

/** The request body as text, read up to `maxBytes`; a refusal when longer (413), unreadable or not UTF-8 (400). */
async function readBody(request: AcpRequest, maxBytes: number): Promise<string | BodyRefusal> {
  const tooLarge = { status: 413, reason: `body larger than maxBodyBytes (${maxBytes})` };
  if (Number(request.headers.get("content-length") ?? 0) > maxBytes) return tooLarge;
  if (request.body === undefined || request.body === null) return "";
  const reader = request.body.getReader();
  const pieces: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value === undefined) continue;
      const bytes = typeof value === "string" ? encoder.encode(value) : value;
      size += bytes.length;
      if (size > maxBytes) {
        void reader.cancel().catch(() => {});
        return tooLarge;
      }
      pieces.push(bytes);
    }
    return new TextDecoder("utf-8", { fatal: true }).decode(joinBytes(pieces, new Uint8Array(0), size));
  } catch {
    return { status: 400, reason: "the body could not be read as UTF-8" };
  }
}

/** A random 128-bit connection id, 32 hex digits. */
function newConnectionId(): string {
  const crypto = (globalThis as unknown as { crypto: { getRandomValues(bytes: Uint8Array): Uint8Array } }).crypto;
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function closeQuietly(socket: ServerWebSocket): void {
  try {
    socket.close(1001, "the server closed");
  } catch {
    // The socket is gone already.
  }
}
