/**
 * What the HTTP/SSE and WebSocket transports' two ends agree on (the ACP
 * proposal "Streamable HTTP & WebSocket transport"): header names, media
 * types, and how a message names its session. Shared by the server
 * (http-server.ts) and the clients (http-client.ts, websocket-client.ts).
 * Reads only the top level of a message: nothing here walks wire data.
 */

/** The header carrying the connection id (answered on `initialize`, sent on every later request). */
export const CONNECTION_HEADER = "Acp-Connection-Id";
/** The header naming the session a POST or an SSE stream belongs to. */
export const SESSION_HEADER = "Acp-Session-Id";
/** The media type of a POSTed message and of an `initialize` answer. */
export const JSON_TYPE = "application/json";
/** The media type of a server-sent event stream. */
export const EVENT_STREAM_TYPE = "text/event-stream";

/**
 * Set (to `true`) on a request by a server adapter that reads response
 * bodies through `getReader()` alone (http-node.ts): the server then answers
 * its event streams with a plain response object over the stream's queue
 * instead of a platform `Response` over a `ReadableStream` (about 4 KiB less
 * per open stream). Not part of the public API.
 */
export const PLAIN_RESPONSES: unique symbol = Symbol("acp-bindings plain responses");

/** The session id a message's params name (`params.sessionId`, a string), if any. */
export function sessionIdOfParams(params: unknown): string | undefined {
  if (typeof params !== "object" || params === null || Array.isArray(params)) return undefined;
  const sessionId = Object.hasOwn(params, "sessionId") ? (params as { sessionId?: unknown }).sessionId : undefined;
  return typeof sessionId === "string" ? sessionId : undefined;
}

/** The session id a response's result names (`result.sessionId`: `session/new` and friends), if any. */
export function sessionIdOfResult(result: unknown): string | undefined {
  return sessionIdOfParams(result);
}

/** The top level of a JSON-RPC message, as the transports route it. */
export interface Envelope {
  /** The method of a request or notification; `undefined` for a response. */
  readonly method: string | undefined;
  /** The id when it is a string, a number or null; `undefined` when absent or of another type. */
  readonly id: string | number | null | undefined;
  /** The params, unread. */
  readonly params: unknown;
}

/** The top level of a parsed message (shallow `typeof` checks only); `undefined` when it is not a JSON object. */
export function envelopeOf(value: unknown): Envelope | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as { method?: unknown; id?: unknown; params?: unknown };
  const id = record.id;
  return {
    method: typeof record.method === "string" ? record.method : undefined,
    id: typeof id === "string" || typeof id === "number" || id === null ? id : undefined,
    params: record.params,
  };
}

/** A map key for a request id (a string and a number of the same digits differ); `undefined` for no id or a null one. */
export function callKey(id: string | number | null | undefined): string | undefined {
  if (typeof id === "string") return `s${id}`;
  if (typeof id === "number") return `n${id}`;
  return undefined;
}

/** The line of a JSON-RPC error response (-32603, internal error) to request `id`. */
export function errorLine(id: string | number | null, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message } });
}

/** The answer to a body or frame that is not JSON (-32700, `id: null`), as the server writes it. */
export const PARSE_ERROR_LINE = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });

/** The answer to a body or frame that is JSON but not one message object (-32600, `id: null`; batches included). */
export const NOT_A_MESSAGE_LINE = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "not a JSON-RPC message object (batches are not supported)" } });

/** The length of `text` in UTF-8 bytes, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) bytes += 1; // a surrogate pair is 4 bytes
    else if (c >= 0x800) bytes += 2;
    else if (c >= 0x80) bytes += 1;
  }
  return bytes;
}
