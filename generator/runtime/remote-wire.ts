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
