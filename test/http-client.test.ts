/**
 * httpTransport and webSocketTransport against small servers of this test's
 * own on 127.0.0.1 (node:http, and a `ws` WebSocketServer), for what the SDK's
 * server never does: a POST answered 500 fails only its request (a
 * `RequestError` with `data.status`), a 404 ends the transport, a session's
 * event stream that ends with a request in flight fails that request (no
 * hang), a 409 fails only that session, `Set-Cookie` comes back as `Cookie`
 * (also across a reconnect through a shared jar), an oversized event is
 * dropped and reported, `close()` DELETEs the connection; the missing
 * WebSocket's message, binary frames ignored, the injected `fetch` and
 * `WebSocket` used.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { connectClient, createCookieJar, type FetchLike, httpTransport, PROTOCOL_VERSION, RequestError, webSocketTransport } from "../generated/src/v2/index.js";

/** What the fake server saw of one request. */
interface Seen {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly message: { method?: string; id?: unknown; params?: { sessionId?: string } } | undefined;
}

/** A POSTed message's handler: answers `res` itself and returns true, or returns false for the default (202, then `{}` on the stream). */
type PostHandler = (message: NonNullable<Seen["message"]>, res: ServerResponse) => boolean;

/** A fake Streamable HTTP server: `initialize` answered 200 with connection id "c1" and an affinity cookie; event streams kept open by key ("connection" or the session id). */
class FakeServer {
  readonly seen: Seen[] = [];
  readonly streams = new Map<string, ServerResponse>();
  /** Resolves when the stream of a key opens. */
  private readonly opened = new Map<string, () => void>();
  onPost: PostHandler = () => false;
  /** Answers a session's GET itself (a 409, say) when it returns true. */
  onSessionGet: (sessionId: string, res: ServerResponse) => boolean = () => false;
  private readonly server = createServer((req, res) => void this.handle(req, res));
  url = "";

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/acp`;
    return this;
  }

  /** Sends one event on a stream. */
  event(key: string, data: string): void {
    this.streams.get(key)?.write(`data: ${data}\n\n`);
  }

  /** Resolves once the stream of `key` is open. */
  streamOpen(key: string): Promise<void> {
    if (this.streams.has(key)) return Promise.resolve();
    return new Promise((resolve) => this.opened.set(key, resolve));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = "";
    for await (const chunk of req) body += chunk;
    const message = body === "" ? undefined : JSON.parse(body);
    this.seen.push({ method: req.method ?? "", headers: req.headers, message });
    if (req.method === "DELETE") return void res.writeHead(202).end();
    if (req.method === "GET") return this.openStream(req, res);
    if (message.method === "initialize") {
      const answer = JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: PROTOCOL_VERSION, info: { name: "fake", version: "1" } } });
      return void res.writeHead(200, { "Content-Type": "application/json", "Acp-Connection-Id": "c1", "Set-Cookie": "affinity=node-7; Path=/; HttpOnly" }).end(answer);
    }
    if (this.onPost(message, res)) return;
    res.writeHead(202).end();
    if (message.method !== undefined && message.id !== undefined) {
      this.event(message.params?.sessionId ?? "connection", JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { echoed: message.method } }));
    }
  }

  private openStream(req: IncomingMessage, res: ServerResponse): void {
    const session = req.headers["acp-session-id"];
    const key = typeof session === "string" ? session : "connection";
    if (typeof session === "string" && this.onSessionGet(session, res)) return;
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    res.write(": open\n\n");
    this.streams.set(key, res);
    this.opened.get(key)?.();
  }
}

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  vi.unstubAllGlobals();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fakeServer(): Promise<FakeServer> {
  const server = await new FakeServer().listen();
  cleanups.push(() => server.close());
  return server;
}

/** Our client over `httpTransport(server.url, options)`, initialized; onError messages collected in `errors`. */
async function connected(server: FakeServer, options: Parameters<typeof httpTransport>[1] = {}) {
  const errors: string[] = [];
  const agent = connectClient(httpTransport(server.url, options), {}, { onError: (error) => void errors.push(error.message) });
  cleanups.push(() => agent.close());
  await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "test", version: "1" } });
  await server.streamOpen("connection");
  return { agent, errors };
}

describe("httpTransport against a fake server", () => {
  it("a POST answered 500 fails only that request (a RequestError with data.status and the body); the next request is answered", async () => {
    const server = await fakeServer();
    server.onPost = (message, res) => message.method === "_test/broken" && (res.writeHead(500, { "Content-Type": "text/plain" }).end("boom"), true);
    const { agent } = await connected(server);
    const error = await agent.extRequest("_test/broken", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({ code: -32603, data: { status: 500, body: "boom" } });
    expect(await agent.extRequest("_test/fine", {})).toEqual({ echoed: "_test/fine" });
  });

  it("a POST answered 404 ends the transport: the request rejects, the connection closes, onError is told", async () => {
    const server = await fakeServer();
    server.onPost = (_message, res) => (res.writeHead(404).end("Unknown Acp-Connection-Id"), true);
    const { agent, errors } = await connected(server);
    await expect(agent.extRequest("_test/gone", {})).rejects.toMatchObject({ code: -32603 });
    await agent.closed;
    expect(errors.join("\n")).toMatch(/HTTP 404/);
  });

  it("a session's event stream that ends with a request in flight fails that request; the next one opens the stream again", async () => {
    const server = await fakeServer();
    server.onPost = (message, res) => message.method === "_test/slow" && (res.writeHead(202).end(), true);
    const { agent } = await connected(server);
    const slow = agent.extRequest("_test/slow", { sessionId: "s1" });
    await until(() => server.seen.some((s) => s.message?.method === "_test/slow"));
    const firstStream = server.streams.get("s1")!;
    server.streams.delete("s1");
    firstStream.end();
    await expect(slow).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(/event stream ended/) });
    expect(await agent.extRequest("_test/fine", { sessionId: "s1" })).toEqual({ echoed: "_test/fine" });
    expect(server.seen.filter((s) => s.method === "GET" && s.headers["acp-session-id"] === "s1")).toHaveLength(2);
  });

  it("a session's 409 fails only that session's requests; other sessions and the connection go on", async () => {
    const server = await fakeServer();
    server.onSessionGet = (sessionId, res) => sessionId === "busy" && (res.writeHead(409).end("Outbound stream already has an active receiver"), true);
    const { agent } = await connected(server);
    await expect(agent.extRequest("_test/a", { sessionId: "busy" })).rejects.toMatchObject({ code: -32603, data: { status: 409 } });
    await expect(agent.extRequest("_test/b", { sessionId: "busy" })).rejects.toMatchObject({ data: { status: 409 } });
    expect(await agent.extRequest("_test/c", { sessionId: "free" })).toEqual({ echoed: "_test/c" });
    expect(await agent.extRequest("_test/d", {})).toEqual({ echoed: "_test/d" });
  });

  it("posts session-scoped messages with Acp-Session-Id, answers to requests of a session's stream too", async () => {
    const server = await fakeServer();
    const { agent } = await connected(server);
    await agent.extRequest("_test/x", { sessionId: "s2" });
    const post = server.seen.find((s) => s.message?.method === "_test/x")!;
    expect(post.headers).toMatchObject({ "acp-connection-id": "c1", "acp-session-id": "s2", "content-type": "application/json" });
    server.event("s2", JSON.stringify({ jsonrpc: "2.0", id: "agent-1", method: "_test/ask", params: {} }));
    await until(() => server.seen.some((s) => s.message?.id === "agent-1"));
    expect(server.seen.find((s) => s.message?.id === "agent-1")!.headers["acp-session-id"]).toBe("s2");
  });

  it("sends Set-Cookie's cookie back as Cookie with the caller's headers, and again through a shared jar after a reconnect", async () => {
    const server = await fakeServer();
    const cookieJar = createCookieJar();
    const { agent } = await connected(server, { cookieJar, headers: { Authorization: "Bearer t", Cookie: "mine=1" } });
    await agent.extRequest("_test/x", {});
    const after = server.seen.slice(1);
    expect(after.length).toBeGreaterThanOrEqual(2);
    for (const seen of after) expect(seen.headers).toMatchObject({ cookie: "affinity=node-7; mine=1", authorization: "Bearer t" });
    agent.close();
    await until(() => server.seen.some((s) => s.method === "DELETE"));
    expect(server.seen.find((s) => s.method === "DELETE")!.headers).toMatchObject({ "acp-connection-id": "c1", cookie: "affinity=node-7; mine=1" });
    const count = server.seen.length;
    const again = connectClient(httpTransport(server.url, { cookieJar }), {});
    cleanups.push(() => again.close());
    await again.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "test", version: "1" } });
    expect(server.seen[count]!.headers.cookie).toBe("affinity=node-7");
  });

  it("cookies: 'omit' keeps none and sends none", async () => {
    const server = await fakeServer();
    const { agent } = await connected(server, { cookies: "omit" });
    await agent.extRequest("_test/x", {});
    expect(server.seen.every((s) => s.headers.cookie === undefined)).toBe(true);
  });

  it("an event over maxMessageBytes is dropped and reported; the stream goes on", async () => {
    const server = await fakeServer();
    server.onPost = (message, res) => {
      if (message.method !== "_test/big") return false;
      res.writeHead(202).end();
      server.event("connection", JSON.stringify({ jsonrpc: "2.0", method: "_test/note", params: { text: "x".repeat(2000) } }));
      server.event("connection", JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { small: true } }));
      return true;
    };
    const { agent, errors } = await connected(server, { maxMessageBytes: 1000 });
    expect(await agent.extRequest("_test/big", {})).toEqual({ small: true });
    expect(errors).toEqual(["a server-sent event longer than maxMessageBytes (1000 bytes) was dropped"]);
  });

  it("close() DELETEs the connection and ends", async () => {
    const server = await fakeServer();
    const { agent } = await connected(server);
    agent.close();
    await agent.closed;
    await until(() => server.seen.some((s) => s.method === "DELETE"));
  });

  it("uses the injected fetch, called without a receiver", async () => {
    const server = await fakeServer();
    const calls: string[] = [];
    const fetch: FetchLike = function (this: unknown, url, init) {
      expect(this).toBeUndefined();
      calls.push(init.method);
      return globalThis.fetch(url, init);
    };
    await connected(server, { fetch });
    expect(calls.slice(0, 2)).toEqual(["POST", "GET"]);
  });

  it("reads events whatever their line ends (LF, CRLF, CR) and however the stream is cut, a CRLF split across reads included", async () => {
    let seed = 7;
    const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const encoder = new TextEncoder();
    for (let trial = 0; trial < 60; trial++) {
      const sent: string[] = [];
      let text = ": a comment\n";
      for (let i = 0; i < 12; i++) {
        const end = ["\n", "\r\n", "\r"][random(3)]!;
        const message = { jsonrpc: "2.0", method: "_test/note", params: { i, text: "é".repeat(random(5)), id: i % 3 === 0 ? i : undefined } };
        sent.push(JSON.stringify(message));
        text += `event: message${end}data: ${JSON.stringify(message)}${end}${random(2) === 0 ? `id: ${i}${end}` : ""}${end}`;
      }
      const bytes = encoder.encode(text);
      const reads: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; ) {
        const size = 1 + random(40);
        reads.push(bytes.subarray(at, at + size));
        at += size;
      }
      // A body of `chunks`: then its end, or (an event stream) nothing more.
      const body = (chunks: Uint8Array[], open: boolean) => ({
        getReader: () => ({
          read: async () => (chunks.length > 0 ? { done: false, value: chunks.shift() } : open ? new Promise<never>(() => {}) : { done: true }),
          cancel: async () => {},
        }),
      });
      const fetch: FetchLike = async (_url, init) => {
        const headers = new Headers(init.method === "POST" ? { "Acp-Connection-Id": "c1" } : {});
        const response = init.method === "POST" ? encoder.encode(JSON.stringify({ jsonrpc: "2.0", id: 0, result: {} })) : undefined;
        return { ok: true, status: 200, headers, body: response === undefined ? body(reads, true) : body([response], false) };
      };
      const lines: string[] = [];
      const transport = httpTransport("http://127.0.0.1:9/acp", { fetch });
      transport.start({ line: (line) => void lines.push(line), end: () => {}, problem: () => {} });
      await transport.send(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} }));
      await until(() => lines.length === 1 + sent.length);
      expect(lines.slice(1)).toEqual(sent);
      transport.close();
    }
  });

  it("without fetch: start ends the transport with an error naming options.fetch", async () => {
    vi.stubGlobal("fetch", undefined);
    const errors: string[] = [];
    const agent = connectClient(httpTransport("http://127.0.0.1:9/acp"), {}, { onError: (error) => void errors.push(error.message) });
    await agent.closed;
    expect(errors.join("\n")).toMatch(/options\.fetch/);
  });
});

/** Resolves once `check` holds (no deadline: the test's timeout is the limit). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 2));
}

describe("webSocketTransport", () => {
  /** A `ws` server that answers each request with `{ echoed }`, after a binary frame. */
  async function echoServer(): Promise<string> {
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => server.once("listening", resolve));
    server.on("connection", (socket) => {
      socket.on("message", (data, isBinary) => {
        if (isBinary) return;
        const message = JSON.parse(String(data));
        if (message.id === undefined || message.method === undefined) return;
        socket.send(Buffer.from([1, 2, 3]));
        socket.send(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { echoed: message.method } }));
      });
    });
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/acp`;
  }

  it("ignores (and reports) binary frames; uses the injected WebSocket; close() ends", async () => {
    const url = await echoServer();
    const made: string[] = [];
    class Counted extends WebSocket {
      constructor(address: string, protocols?: string | string[], options?: { headers?: Record<string, string> }) {
        super(address, protocols, options);
        made.push(address);
      }
    }
    const errors: string[] = [];
    const agent = connectClient(webSocketTransport(url, { WebSocket: Counted }), {}, { onError: (error) => void errors.push(error.message) });
    expect(await agent.extRequest("_test/x", {})).toEqual({ echoed: "_test/x" });
    expect(made).toEqual([url]);
    expect(errors).toEqual(["a binary WebSocket frame was ignored (ACP messages are text frames)"]);
    agent.close();
    await agent.closed;
  });

  it("sends the headers option with the upgrade (the ws package's third argument)", async () => {
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => server.once("listening", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const upgrade = new Promise<IncomingHttpHeaders>((resolve) => server.once("connection", (_socket, req) => resolve(req.headers)));
    const agent = connectClient(webSocketTransport(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`, { WebSocket, headers: { Authorization: "Bearer t" } }), {});
    cleanups.push(() => agent.close());
    expect(await upgrade).toMatchObject({ authorization: "Bearer t" });
  });

  it("without a WebSocket (Node 20 has no global one): the transport ends with a message naming options.WebSocket and the ws package; send rejects", async () => {
    vi.stubGlobal("WebSocket", undefined);
    const errors: string[] = [];
    const transport = webSocketTransport("ws://127.0.0.1:9/acp");
    const agent = connectClient(transport, {}, { onError: (error) => void errors.push(error.message) });
    await agent.closed;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/options\.WebSocket/);
    expect(errors[0]).toMatch(/\bws\b/);
    await expect(transport.send("{}")).rejects.toThrow(/options\.WebSocket/);
  });

  it("a constructor that throws (a bad URL) ends the transport instead of throwing", async () => {
    const errors: string[] = [];
    const agent = connectClient(webSocketTransport("not a url", { WebSocket }), {}, { onError: (error) => void errors.push(error.message) });
    await agent.closed;
    expect(errors).toHaveLength(1);
  });
});
