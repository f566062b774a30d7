/**
 * Node.js adapters of the ACP server (http-server.ts): a `node:http` request
 * listener, and an `upgrade` listener for the `ws` package's
 * `WebSocketServer({ noServer: true })`. Structural types only (no `node:`
 * import): an `IncomingMessage` becomes a Web-style request whose body
 * streams on demand, a response is written back chunk by chunk, waiting for
 * `drain` (back-pressure), and a client that goes away cancels the
 * response's body (an SSE stream's reader leaves). Every callback is
 * contained: nothing thrown escapes to the server's event loop.
 */
import type { AcpRequest, AcpResponse, AcpServer, HeadersLike, ServerWebSocket } from "./http-server.js";
import { CONNECTION_HEADER, PLAIN_RESPONSES } from "./remote-wire.js";
import type { WebReadable } from "./transport.js";

declare const TextEncoder: new () => { encode(text: string): Uint8Array };

/** A `node:http` `IncomingMessage`, as far as the adapters use it. */
export interface NodeRequest {
  readonly method?: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  on(event: string, listener: (...args: any[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

/** A `node:http` `ServerResponse`, as far as the adapter uses it. */
export interface NodeResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  flushHeaders?(): void;
  write(chunk: Uint8Array): boolean;
  end(): unknown;
  on(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
  removeListener(event: string, listener: (...args: any[]) => void): unknown;
  destroy(): unknown;
  readonly headersSent?: boolean;
  readonly writableFinished?: boolean;
}

/** The upgraded connection's socket (a `node:net` `Duplex`), as far as the adapter uses it. */
export interface NodeSocket {
  write(data: string): unknown;
  destroy(): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
}

/** The `ws` package's `WebSocketServer` (made with `{ noServer: true }`), as far as the adapter uses it. */
export interface NodeWebSocketServer {
  handleUpgrade(request: any, socket: any, head: any, callback: (socket: ServerWebSocket) => void): void;
  on(event: "headers", listener: (headers: string[], request: any) => void): unknown;
  off(event: "headers", listener: (headers: string[], request: any) => void): unknown;
}

/** Options of `nodeHttpHandler`. */
export interface NodeHttpOptions {
  /** Told of a failure writing a response (the client went away mid-body, say); default: ignored. */
  readonly onError?: (error: unknown) => void;
}

/**
 * A `node:http` request listener serving `server`:
 * `http.createServer(nodeHttpHandler(server))`. The body's size limit is the
 * server's `maxBodyBytes` (it stops reading past it); a request whose body
 * was left unread is closed once answered.
 */
export function nodeHttpHandler(server: AcpServer, options: NodeHttpOptions = {}): (req: NodeRequest, res: NodeResponse) => void {
  const report = (error: unknown): void => {
    try {
      options.onError?.(error);
    } catch {
      // Contained: a failing reporter changes nothing.
    }
  };
  return (req, res) => {
    try {
      const body = nodeBody(req);
      void server
        .handle(toRequest(req, body.readable))
        .then((response) => writeResponse(res, response, body.unread))
        .catch((error: unknown) => (report(error), res.destroy()));
    } catch (error) {
      report(error);
      res.destroy();
    }
  };
}

/**
 * A `node:http` `upgrade` listener serving WebSocket upgrades with `server`
 * through the `ws` package: `httpServer.on("upgrade",
 * nodeWebSocketUpgrade(server, new WebSocketServer({ noServer: true })))`.
 * The `101 Switching Protocols` carries the `Acp-Connection-Id`; a refused
 * upgrade is answered with the refusal's status and the socket closed.
 */
export function nodeWebSocketUpgrade(server: AcpServer, webSocketServer: NodeWebSocketServer): (req: NodeRequest, socket: NodeSocket, head: unknown) => void {
  return (req, socket, head) => {
    socket.once("error", () => {}); // a reset socket must not throw; its 'close' ends what was reserved
    void server
      .prepareWebSocket(toRequest(req, null))
      .then((upgrade) => ("accept" in upgrade ? upgradeSocket(webSocketServer, req, socket, head, upgrade) : refuseUpgrade(socket, upgrade)))
      .catch(() => socket.destroy());
  };
}

function upgradeSocket(webSocketServer: NodeWebSocketServer, req: NodeRequest, socket: NodeSocket, head: unknown, upgrade: { connectionId: string; accept(socket: ServerWebSocket): void; reject(): void }): void {
  const onHeaders = (headers: string[], request: unknown): void => {
    if (request === req) headers.push(`${CONNECTION_HEADER}: ${upgrade.connectionId}`);
  };
  const done = (): void => void webSocketServer.off("headers", onHeaders);
  socket.once("close", () => (done(), upgrade.reject())); // no-op once accepted
  webSocketServer.on("headers", onHeaders);
  try {
    webSocketServer.handleUpgrade(req, socket, head, (webSocket) => {
      done();
      upgrade.accept(webSocket);
    });
  } catch {
    done();
    upgrade.reject();
    socket.destroy();
  }
}

function refuseUpgrade(socket: NodeSocket, response: AcpResponse): void {
  const lines = [`HTTP/1.1 ${response.status} ${response.status === 401 ? "Unauthorized" : "Refused"}`, "Connection: close", "Content-Length: 0"];
  response.headers.forEach((value, name) => void (name.toLowerCase() !== "content-length" && lines.push(`${name}: ${value}`)));
  try {
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
  } finally {
    socket.destroy();
  }
}

/** A Node request as a Web-style request; its event streams may be answered as plain objects (`writeResponse` reads bodies by `getReader()` alone). */
function toRequest(req: NodeRequest, body: WebReadable | null): AcpRequest {
  const request = { method: req.method ?? "GET", headers: nodeHeaders(req.headers), body, [PLAIN_RESPONSES]: true };
  return request;
}

function nodeHeaders(headers: NodeRequest["headers"]): HeadersLike {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return typeof value === "string" ? value : value.join(", ");
    },
  };
}

/** A Node request body as a Web-style stream read on demand (paused between reads), and whether it was left unread. */
function nodeBody(req: NodeRequest): { readable: WebReadable; unread: () => boolean } {
  const chunks: Uint8Array[] = [];
  let ended = false;
  let failure: unknown;
  let wake = (): void => {};
  req.pause();
  req.on("data", (chunk: Uint8Array) => (chunks.push(chunk), req.pause(), wake()));
  req.on("end", () => ((ended = true), wake()));
  req.on("error", (error: unknown) => ((failure = error ?? new Error("request failed")), wake()));
  const read = async (): Promise<{ done: boolean; value?: Uint8Array }> => {
    for (;;) {
      const chunk = chunks.shift();
      if (chunk !== undefined) return { done: false, value: chunk };
      if (failure !== undefined) throw failure;
      if (ended) return { done: true };
      await new Promise<void>((resolve) => {
        wake = resolve;
        req.resume();
      });
    }
  };
  const readable: WebReadable = { getReader: () => ({ read, cancel: async () => void (chunks.length = 0) }) };
  const hasBody = (req.headers["content-length"] ?? "0") !== "0" || req.headers["transfer-encoding"] !== undefined;
  return { readable, unread: () => hasBody && !ended };
}

/** Writes a Web-style response to a Node response, the body chunk by chunk, waiting for `drain` when the socket is full. */
async function writeResponse(res: NodeResponse, response: AcpResponse, bodyUnread: () => boolean): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (bodyUnread()) headers["connection"] = "close"; // the rest of the request is not read; the connection cannot be reused
  if (response.body === null) {
    // No body (a 202, say): `Content-Length: 0` and one write, so that the client sees the whole
    // response with its headers and can reuse the socket at once, even if it cancels the body.
    res.writeHead(response.status, { ...headers, "content-length": "0" });
    return void res.end();
  }
  res.writeHead(response.status, headers);
  res.flushHeaders?.();
  const reader = response.body.getReader();
  let gone = false;
  res.on("close", () => {
    gone = !res.writableFinished;
    if (gone) void reader.cancel().catch(() => {});
  });
  for (;;) {
    const { done, value } = await reader.read();
    if (done || gone) break;
    if (value !== undefined && !res.write(typeof value === "string" ? new TextEncoder().encode(value) : value)) await drained(res);
  }
  if (!gone) res.end();
}

/** Settles once the response drained or closed. */
function drained(res: NodeResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.removeListener("drain", done);
      res.removeListener("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
