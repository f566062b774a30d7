/**
 * One connection of the HTTP/WebSocket server transport (http-server.ts): the
 * `Transport` the agent's connection runs on. Client messages (POST bodies,
 * WebSocket frames) go to the agent's sink; the agent's messages go to the
 * stream they belong to, as the SDK's server routes them: a response to the
 * stream its request named (`Acp-Session-Id`; the connection's stream for
 * `session/load` and connection-level requests), a request or notification
 * to its `params.sessionId` session's stream, else to the connection's. A
 * session's messages wait in its outbox until its stream opens. On a
 * WebSocket every message goes to the socket. Reads only the top level of
 * each message.
 */
import { Outbox, type OutboxReader } from "./http-outbox.js";
import { type Envelope, callKey, envelopeOf, errorLine, sessionIdOfParams, utf8Length } from "./remote-wire.js";
import type { LineSink, Transport } from "./transport.js";

declare function setTimeout(callback: () => void, ms: number): unknown;
declare function clearTimeout(handle: unknown): void;

/** What the application's `connect` returned for a connection: the agent's connection, as far as the server uses it. */
export interface AgentConnection {
  /** Settles when the agent's connection closed. */
  readonly closed: Promise<void>;
  /** Closes the agent's connection. */
  close(): void;
}

/** The limits of one connection (see `AcpServerOptions`). */
export interface ConnectionLimits {
  readonly maxBufferedBytes: number;
  readonly maxMessageBytes: number;
  readonly maxSessionStreams: number;
  readonly idleTimeoutMs: number;
}

/** The WebSocket end of a connection. */
export interface SocketEnd {
  /** Sends one message; false when the socket then holds more than `maxBufferedBytes` unsent (a stalled reader). */
  write(line: string): boolean;
  /** Closes the socket: the connection ended. */
  close(reason: string): void;
}

/** An agent request the client has not answered yet: the stream it went to, its id, whether a reader took it. */
interface ClientCall {
  readonly session: string | undefined;
  readonly id: string | number;
  delivered: boolean;
}

/** Why a client message was refused: an HTTP status and a reason. */
export interface Refusal {
  readonly status: number;
  readonly reason: string;
}

/** The method whose response goes to the connection's stream although it names a session (the SDK's routing). */
const LOAD_METHOD = "session/load";

/** A connection between one client and the agent `connect` made for it. */
export class ServerConnection implements Transport {
  private sink: LineSink | undefined;
  private early: string[] = [];
  private readonly main: Outbox;
  private readonly sessions = new Map<string, Outbox>();
  /** The stream (a session id, or `undefined`: the connection's) each pending client request's response goes to. */
  private readonly responseRoutes = new Map<string, string | undefined>();
  private readonly clientCalls = new Map<string, ClientCall>();
  private initializing: { readonly key: string; readonly answer: (line: string | undefined) => void } | undefined;
  private readers = 0;
  private idleTimer: unknown;
  private peer: AgentConnection | undefined;
  private ended = false;
  /** Why the connection ended, once it did. */
  endReason: string | undefined;

  constructor(
    /** The connection id (`Acp-Connection-Id`). */
    readonly id: string,
    private readonly limits: ConnectionLimits,
    private readonly onEnd: (connection: ServerConnection) => void,
    /** The client's WebSocket, for a WebSocket connection: its messages all go there. */
    private readonly socket?: SocketEnd,
  ) {
    this.main = this.outbox(undefined);
    this.armIdleTimer();
  }

  /** True once the connection ended. */
  get isEnded(): boolean {
    return this.ended;
  }

  /** Settles when the agent's connection closed (at once when there is none). */
  get agentClosed(): Promise<void> {
    return this.peer?.closed.then(() => undefined, () => undefined) ?? Promise.resolve();
  }

  /** Keeps the agent's connection, to close it when this connection ends. */
  adopt(peer: AgentConnection): void {
    this.peer = peer;
    if (this.ended) this.closePeer();
  }

  // --- Transport: the agent's side ---

  /** Starts delivering client messages to the agent's connection. */
  start(sink: LineSink): void {
    if (this.sink !== undefined) return;
    this.sink = sink;
    const early = this.early;
    this.early = [];
    for (const line of early) this.deliver(line);
    if (this.ended) this.endSink();
  }

  /** Takes one message of the agent's and routes it; rejects once the connection ended or when the message cannot be carried. */
  send(line: string): Promise<void> {
    if (this.ended) return Promise.reject(new Error("the connection is closed"));
    const envelope = parseEnvelope(line);
    const key = envelope === undefined ? undefined : callKey(envelope.id);
    if (this.initializing !== undefined && envelope?.method === undefined && key === this.initializing.key) {
      return this.answerInitialize(line);
    }
    if (utf8Length(line) > this.limits.maxMessageBytes) return this.tooLong(envelope, key);
    if (this.socket !== undefined) return this.write(line);
    return this.route(line, envelope, key);
  }

  /** Ends the connection (the agent closed it). */
  close(): void {
    this.end("the agent closed the connection");
  }

  // --- the client's side ---

  /**
   * Hands the `initialize` request to the agent and resolves with the
   * agent's response line; `undefined` when the connection ended first.
   */
  initialize(line: string, key: string): Promise<string | undefined> {
    return new Promise((answer) => {
      this.initializing = { key, answer };
      this.deliver(line);
    });
  }

  /**
   * Takes one client message of an HTTP POST (`session`: its
   * `Acp-Session-Id`). Refused (nothing delivered) when the header is
   * missing or names another session than the message, or when the
   * session's stream cannot be had.
   */
  receive(line: string, message: Envelope, session: string | undefined): Refusal | undefined {
    this.touch();
    if (message.method === undefined) return this.receiveResponse(line, message, session);
    const named = sessionIdOfParams(message.params);
    if (named !== undefined && session === undefined) return { status: 400, reason: "missing Acp-Session-Id" };
    if (named !== undefined && session !== named) return { status: 400, reason: "Acp-Session-Id does not match params.sessionId" };
    const key = callKey(message.id);
    if (key !== undefined) {
      const route = message.method === LOAD_METHOD ? undefined : session;
      if (route !== undefined && this.outboxOf(route) === undefined) return sessionLimit();
      this.responseRoutes.set(key, route);
    }
    this.deliver(line);
    return undefined;
  }

  /** Takes one client message of a WebSocket frame. */
  receiveFrame(line: string): void {
    this.deliver(line);
  }

  /**
   * Attaches a reader to the connection's stream (`session` undefined) or a
   * session's; a refusal (409) when it has one already or no further session
   * stream may open.
   */
  openStream(session: string | undefined): OutboxReader | Refusal {
    this.touch();
    const outbox = session === undefined ? this.main : this.outboxOf(session);
    if (outbox === undefined) return sessionLimit();
    return outbox.attach() ?? { status: 409, reason: "this stream has a reader already" };
  }

  /** Refreshes the idle timer (a request came). */
  touch(): void {
    this.armIdleTimer();
  }

  /**
   * Ends the connection: every stream ends (`discard`: without the messages
   * still queued), the agent's connection ends, its pending requests are
   * rejected. Once only.
   */
  end(reason: string, discard = true): void {
    if (this.ended) return;
    this.ended = true;
    this.endReason = reason;
    clearTimeout(this.idleTimer);
    this.initializing?.answer(undefined);
    this.initializing = undefined;
    this.main.finish(discard);
    for (const outbox of this.sessions.values()) outbox.finish(discard);
    this.onEnd(this);
    this.socket?.close(reason);
    this.endSink();
    this.closePeer();
  }

  // --- routing ---

  private receiveResponse(line: string, message: Envelope, session: string | undefined): Refusal | undefined {
    const key = callKey(message.id);
    const call = key === undefined ? undefined : this.clientCalls.get(key);
    if (call?.session !== undefined && session !== call.session) return { status: 400, reason: "Acp-Session-Id does not match the request's session" };
    if (key !== undefined) this.clientCalls.delete(key);
    this.deliver(line);
    return undefined;
  }

  private route(line: string, envelope: Envelope | undefined, key: string | undefined): Promise<void> {
    if (envelope?.method === undefined) {
      const session = key === undefined ? undefined : this.responseRoutes.get(key);
      if (key !== undefined) this.responseRoutes.delete(key);
      return this.queue(line, session, undefined);
    }
    const session = sessionIdOfParams(envelope.params);
    if (key === undefined || envelope.id === undefined || envelope.id === null) return this.queue(line, session, undefined);
    this.clientCalls.set(key, { session, id: envelope.id, delivered: false });
    return this.queue(line, session, key);
  }

  /** Queues a line on its stream; an agent request that cannot be queued is answered with an error (its `request` rejects). */
  private queue(line: string, session: string | undefined, key: string | undefined): Promise<void> {
    const outbox = session === undefined ? this.main : this.outboxOf(session);
    if (outbox === undefined) {
      if (key !== undefined) this.failCall(key, "no further session stream may open (maxSessionStreams)");
      return Promise.reject(new Error(`session ${session ?? ""} has no stream: maxSessionStreams (${this.limits.maxSessionStreams}) reached`));
    }
    if (outbox.push(line, key)) return Promise.resolve();
    const reason = `an outbound stream held more than maxBufferedBytes (${this.limits.maxBufferedBytes}) unread`;
    this.end(reason);
    return Promise.reject(new Error(reason));
  }

  /** Writes a line to the WebSocket; a socket whose unsent bytes exceed `maxBufferedBytes` (a stalled reader) ends the connection. */
  private write(line: string): Promise<void> {
    let reason: string;
    try {
      if (this.socket?.write(line) !== false) return Promise.resolve();
      reason = `the WebSocket held more than maxBufferedBytes (${this.limits.maxBufferedBytes}) unsent`;
    } catch (error) {
      reason = `the WebSocket failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    this.end(reason);
    return Promise.reject(new Error(reason));
  }

  private tooLong(envelope: Envelope | undefined, key: string | undefined): Promise<void> {
    const message = `a message longer than maxMessageBytes (${this.limits.maxMessageBytes} bytes) was not sent`;
    // A response that cannot be sent is replaced by an error response, so that the client's request does not hang.
    if (envelope !== undefined && envelope.method === undefined && key !== undefined && envelope.id !== undefined) {
      void this.send(errorLine(envelope.id, message)).catch(() => {});
    }
    return Promise.reject(new Error(message));
  }

  private answerInitialize(line: string): Promise<void> {
    const initializing = this.initializing;
    this.initializing = undefined;
    initializing?.answer(line);
    return Promise.resolve();
  }

  /** The outbox of a session, made when the session has none; `undefined` when `maxSessionStreams` are open. */
  private outboxOf(session: string): Outbox | undefined {
    const existing = this.sessions.get(session);
    if (existing !== undefined) return existing;
    if (this.sessions.size >= this.limits.maxSessionStreams) return undefined;
    const outbox = this.outbox(session);
    this.sessions.set(session, outbox);
    return outbox;
  }

  private outbox(session: string | undefined): Outbox {
    const outbox: Outbox = new Outbox(this.limits.maxBufferedBytes, {
      delivered: (key) => {
        const call = this.clientCalls.get(key);
        if (call !== undefined) call.delivered = true;
      },
      readerChanged: (attached) => (attached ? this.readerAttached() : this.readerLeft(session, outbox)),
    });
    return outbox;
  }

  private readerAttached(): void {
    this.readers++;
    clearTimeout(this.idleTimer);
  }

  /**
   * A stream's reader left: the agent's requests it carried fail (their
   * answers cannot come), a session stream with nothing queued is
   * forgotten, and a connection without readers starts its idle timer.
   */
  private readerLeft(session: string | undefined, outbox: Outbox): void {
    this.readers--;
    if (this.ended) return;
    for (const [key, call] of [...this.clientCalls]) {
      if (call.session === session && call.delivered) this.failCall(key, "the stream that carried this request closed before it was answered");
    }
    if (session !== undefined && outbox.empty && !outbox.attached) this.sessions.delete(session);
    this.armIdleTimer();
  }

  /** Answers the agent's pending request `key` with an error, as if the client had. */
  private failCall(key: string, message: string): void {
    const call = this.clientCalls.get(key);
    if (call === undefined) return;
    this.clientCalls.delete(key);
    this.deliver(errorLine(call.id, message));
  }

  private armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    if (this.ended || this.readers > 0 || this.socket !== undefined) return;
    this.idleTimer = setTimeout(() => this.end(`idle for idleTimeoutMs (${this.limits.idleTimeoutMs} ms)`), this.limits.idleTimeoutMs);
    (this.idleTimer as { unref?(): void }).unref?.();
  }

  // --- the agent's sink ---

  private deliver(line: string): void {
    if (this.ended) return;
    if (this.sink === undefined) return void this.early.push(line);
    try {
      this.sink.line(line);
    } catch (error) {
      this.end(`the agent's connection failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private endSink(): void {
    const sink = this.sink;
    if (sink === undefined) return;
    try {
      sink.end();
    } catch {
      // The agent's connection failed while it closed; it is closed either way.
    }
  }

  private closePeer(): void {
    try {
      this.peer?.close();
    } catch {
      // The application's close failed; the connection is gone either way.
    }
  }
}

function sessionLimit(): Refusal {
  return { status: 409, reason: "no further session stream may open on this connection (maxSessionStreams)" };
}

/** The top level of an agent's message; `undefined` when the line is not a JSON object. */
function parseEnvelope(line: string): Envelope | undefined {
  try {
    return envelopeOf(JSON.parse(line));
  } catch {
    return undefined;
  }
}
