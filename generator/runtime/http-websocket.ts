/**
 * The WebSocket side of the server transport (http-server.ts): one JSON-RPC
 * message per text frame, both ways; binary frames are ignored; the first
 * message must be `initialize`, which opens the connection. The socket is
 * structural: the `ws` package's server socket (`on('message')`) and the
 * standard `WebSocket` (`addEventListener`) both fit. Every event handler
 * is contained: nothing it throws escapes to the socket.
 */
import type { ServerConnection, SocketEnd } from "./http-connection.js";
import { callKey, envelopeOf, NOT_A_MESSAGE_LINE, PARSE_ERROR_LINE, utf8Length } from "./remote-wire.js";
import { joinBytes } from "./transport.js";

declare const TextDecoder: new (label?: string) => { decode(bytes: Uint8Array): string };

/** A server-side WebSocket, as far as the server uses it (the `ws` package's, or a standard `WebSocket`). */
export interface ServerWebSocket {
  /** Sends one text frame. */
  send(data: string): void;
  /** Closes the socket. */
  close(code?: number, reason?: string): void;
  /** Bytes sent but not yet written out (a stalled reader makes it grow). */
  readonly bufferedAmount?: number;
  /** Node-style listeners (`ws`): `message` gets `(data, isBinary)`. */
  on?(event: string, listener: (...args: any[]) => void): unknown;
  /** DOM-style listeners: `message` gets an event with `data`. */
  addEventListener?(type: string, listener: (event: any) => void): unknown;
}

/** A WebSocket upgrade the server agreed to (see `AcpServer.prepareWebSocket`). */
export interface WebSocketUpgrade {
  /** The connection id to send as `Acp-Connection-Id` on the `101 Switching Protocols` response. */
  readonly connectionId: string;
  /** Serves the upgraded socket. Once. */
  accept(socket: ServerWebSocket): void;
  /** Gives the reserved connection up (the upgrade failed). */
  reject(): void;
}

/** What a served socket needs of its server. */
export interface SocketHost {
  /** The longest accepted frame, in UTF-8 bytes. */
  readonly maxMessageBytes: number;
  /** The most a socket may hold unsent. */
  readonly maxBufferedBytes: number;
  /** Opens connection `id` on `socket` (its `initialize` arrived); `undefined` when it could not be opened. */
  open(id: string, socket: SocketEnd): ServerConnection | undefined;
  /** Frees the reserved connection id `id` (the socket closed before it opened). */
  release(id: string): void;
}

const decoder = new TextDecoder("utf-8");

/** Serves `socket` as connection `id` of `host`. */
export function serveSocket(socket: ServerWebSocket, id: string, host: SocketHost): void {
  let connection: ServerConnection | undefined;
  let closed = false;
  const shut = (code: number, reason: string): void => {
    if (closed) return;
    closed = true;
    contain(() => socket.close(code, reason.slice(0, 120)));
    if (connection === undefined) host.release(id);
    else connection.end(reason);
  };
  const end: SocketEnd = {
    write: (line) => (socket.send(line), (socket.bufferedAmount ?? 0) <= host.maxBufferedBytes),
    close: (reason) => shut(1001, reason),
  };
  const reply = (line: string): void => contain(() => socket.send(line));
  const frame = (text: string): void => {
    if (utf8Length(text) > host.maxMessageBytes) return shut(1009, `a message longer than maxMessageBytes (${host.maxMessageBytes} bytes)`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return reply(PARSE_ERROR_LINE);
    }
    const message = envelopeOf(value);
    if (message === undefined) return reply(NOT_A_MESSAGE_LINE);
    if (connection !== undefined) return connection.receiveFrame(text);
    if (message.method !== "initialize" || callKey(message.id) === undefined) return shut(1002, "the first message must be an initialize request");
    connection = host.open(id, end);
    if (connection === undefined) return shut(1011, "the connection could not be opened");
    connection.receiveFrame(text);
  };
  listen(socket, "message", (args) => {
    const text = closed ? undefined : frameText(args);
    if (text !== undefined) frame(text);
  });
  listen(socket, "close", () => {
    closed = true;
    if (connection === undefined) host.release(id);
    else connection.end("the WebSocket closed");
  });
  listen(socket, "error", () => shut(1011, "WebSocket error"));
}

/** Adds a contained listener (`on` when the socket has it, else `addEventListener`). */
function listen(socket: ServerWebSocket, event: string, listener: (args: unknown[]) => void): void {
  const contained = (...args: unknown[]): void => contain(() => listener(args));
  if (socket.on !== undefined) socket.on(event, contained);
  else socket.addEventListener?.(event, contained);
}

/** The text of a text frame's message event; `undefined` for a binary frame. */
function frameText(args: readonly unknown[]): string | undefined {
  const [data, binary] = args;
  if (binary === true) return undefined;
  if (typeof data === "string") return data;
  if (binary === false) return decodeFrame(data); // `ws`: a text frame as a Buffer (or Buffers)
  const event = typeof data === "object" && data !== null ? (data as { data?: unknown }).data : undefined;
  return typeof event === "string" ? event : undefined;
}

function decodeFrame(data: unknown): string | undefined {
  if (data instanceof Uint8Array) return decoder.decode(data);
  if (data instanceof ArrayBuffer) return decoder.decode(new Uint8Array(data));
  if (!Array.isArray(data) || !data.every((piece) => piece instanceof Uint8Array)) return undefined;
  const pieces = data as Uint8Array[];
  return decoder.decode(joinBytes(pieces, new Uint8Array(0), pieces.reduce((sum, piece) => sum + piece.length, 0)));
}

/** Runs `action`, swallowing what it throws (a closed socket's `send`, a listener's failure). */
function contain(action: () => void): void {
  try {
    action();
  } catch {
    // Contained: nothing escapes to the socket's event loop.
  }
}
