/**
 * The ACP server (createAcpServer; nodeHttpHandler, nodeWebSocketUpgrade):
 * every refusal (415, 406, 404, 409, 413, 400, 403, 401, 503, 405, 426), CORS,
 * malformed bodies, each limit's error, a client that never reads its SSE
 * stream, 1,000 concurrent connections, `close()` settling pending requests,
 * a dropped SSE stream failing the agent's in-flight permission request, and
 * the reconnect path (a new initialize, then session/resume of the old
 * session). Driven with `fetch` against a `node:http` server on 127.0.0.1 and
 * with direct `handle(new Request(...))` calls.
 */
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type AcpServerOptions, connectAgent, createAcpServer, PROTOCOL_VERSION } from "../generated/src/v2/index.js";
import { type AgentLog, type Served, serve, v2Agent } from "./support/http-agents.js";

const servers: Served[] = [];

afterEach(async () => {
  for (const served of servers.splice(0)) await served.stop();
});

async function started(options: Partial<AcpServerOptions> = {}): Promise<Served> {
  const served = await serve({ connect: v2Agent(), ...options });
  servers.push(served);
  return served;
}

const INITIALIZE = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: PROTOCOL_VERSION, info: { name: "raw", version: "1" } } };

/** A minimal client of the wire: POSTs messages, reads SSE streams event by event. */
class RawClient {
  connectionId = "";
  private nextId = 1;
  constructor(
    readonly url: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  post(message: unknown, extra: Record<string, string> = {}): Promise<Response> {
    const ids: Record<string, string> = this.connectionId === "" ? {} : { "Acp-Connection-Id": this.connectionId };
    return fetch(this.url, { method: "POST", headers: { "Content-Type": "application/json", ...this.headers, ...ids, ...extra }, body: JSON.stringify(message) });
  }

  async initialize(): Promise<unknown> {
    const response = await this.post(INITIALIZE);
    expect(response.status).toBe(200);
    this.connectionId = response.headers.get("Acp-Connection-Id")!;
    return response.json();
  }

  /** POSTs a request (202), returning its id. */
  async request(method: string, params: unknown, session?: string): Promise<number> {
    const id = this.nextId++;
    const response = await this.post({ jsonrpc: "2.0", id, method, params }, session === undefined ? {} : { "Acp-Session-Id": session });
    expect(response.status).toBe(202);
    return id;
  }

  async stream(session?: string, signal?: AbortSignal): Promise<EventReader> {
    const headers: Record<string, string> = { Accept: "text/event-stream", "Acp-Connection-Id": this.connectionId, ...this.headers };
    if (session !== undefined) headers["Acp-Session-Id"] = session;
    const response = await fetch(this.url, { headers, ...(signal === undefined ? {} : { signal }) });
    expect(response.status).toBe(200);
    return new EventReader(response);
  }
}

/** Reads the JSON messages of an SSE response, one at a time. */
class EventReader {
  private buffer = "";
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  constructor(response: Response) {
    this.reader = response.body!.getReader();
  }

  async next(): Promise<any> {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end >= 0) {
        const event = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        if (event.startsWith("data: ")) return JSON.parse(event.slice(6));
        continue;
      }
      const { done, value } = await this.reader.read();
      if (done) return undefined;
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** The next message that `match` accepts. */
  async find(match: (message: any) => boolean): Promise<any> {
    for (;;) {
      const message = await this.next();
      if (message === undefined || match(message)) return message;
    }
  }
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A request to `handle` directly. */
function request(method: string, headers: Record<string, string> = {}, body?: string): Request {
  return new Request("http://acp.test/acp", { method, headers, ...(body === undefined ? {} : { body }) });
}

describe("refusals", () => {
  it("415 for a POST that is not application/json; 406 for a GET without Accept: text/event-stream; 405 for PUT; 426 for an upgrade through handle", async () => {
    const acp = createAcpServer({ connect: v2Agent() });
    expect((await acp.handle(request("POST", { "Content-Type": "text/plain" }, JSON.stringify(INITIALIZE)))).status).toBe(415);
    expect((await acp.handle(request("GET", { "Acp-Connection-Id": "x" }))).status).toBe(406);
    expect((await acp.handle(request("PUT"))).status).toBe(405);
    expect((await acp.handle(request("GET", { Upgrade: "websocket" }))).status).toBe(426);
    await acp.close();
  });

  it("400 for a malformed body (a -32700 error), an array or a non-object (-32600), a missing connection id; 404 for an unknown one", async () => {
    const acp = createAcpServer({ connect: v2Agent() });
    const json = { "Content-Type": "application/json" };
    const bad = await acp.handle(request("POST", json, "{not json"));
    expect(bad.status).toBe(400);
    expect(await (bad as Response).json()).toMatchObject({ id: null, error: { code: -32700 } });
    for (const body of ["[]", "42"]) {
      const refused = await acp.handle(request("POST", json, body));
      expect(refused.status).toBe(400);
      expect(await (refused as Response).json()).toMatchObject({ error: { code: -32600 } });
    }
    expect((await acp.handle(request("POST", json, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: {} })))).status).toBe(400);
    expect((await acp.handle(request("POST", { ...json, "Acp-Connection-Id": "nope" }, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: {} })))).status).toBe(404);
    expect((await acp.handle(request("GET", { Accept: "text/event-stream", "Acp-Connection-Id": "nope" }))).status).toBe(404);
    expect((await acp.handle(request("DELETE", { "Acp-Connection-Id": "nope" }))).status).toBe(404);
    await acp.close();
  });

  it("initialize answers 200 with a 128-bit Acp-Connection-Id (also for a pretty-printed body); DELETE ends the connection, then its id is 404", async () => {
    const served = await started();
    const response = await fetch(served.url, { method: "POST", headers: { "Content-Type": "application/json; charset=utf-8" }, body: JSON.stringify(INITIALIZE, null, 2) });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: 0, result: { info: { name: "http-agent" } } });
    const connectionId = response.headers.get("Acp-Connection-Id")!;
    expect(connectionId).toMatch(/^[0-9a-f]{32}$/);
    const client = new RawClient(served.url);
    client.connectionId = connectionId;
    expect((await client.post({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/tmp" } })).status).toBe(202);
    expect((await client.post(INITIALIZE)).status).toBe(400); // not on an open connection
    const deleted = await fetch(served.url, { method: "DELETE", headers: { "Acp-Connection-Id": connectionId } });
    expect(deleted.status).toBe(202);
    expect((await client.post({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/tmp" } })).status).toBe(404);
    expect((await fetch(served.url, { method: "DELETE", headers: { "Acp-Connection-Id": connectionId } })).status).toBe(404);
    expect(served.acp.connectionCount).toBe(0);
  });

  it("409 for a second reader of a stream and for a session beyond maxSessionStreams; other sessions go on", async () => {
    const served = await started({ maxSessionStreams: 1 });
    const client = new RawClient(served.url);
    await client.initialize();
    await client.stream();
    const second = await fetch(served.url, { headers: { Accept: "text/event-stream", "Acp-Connection-Id": client.connectionId } });
    expect(second.status).toBe(409);
    const session = await client.stream("session-a");
    const other = await fetch(served.url, { headers: { Accept: "text/event-stream", "Acp-Connection-Id": client.connectionId, "Acp-Session-Id": "session-b" } });
    expect(other.status).toBe(409);
    const prompt = { jsonrpc: "2.0", id: 7, method: "session/prompt", params: { sessionId: "session-b", prompt: [] } };
    expect((await client.post(prompt, { "Acp-Session-Id": "session-b" })).status).toBe(409);
    // session-a still works: its prompt is answered (an unknown session is the agent's business, not the transport's)
    await client.request("session/prompt", { sessionId: "session-a", prompt: [{ type: "text", text: "hi" }] }, "session-a");
    expect(await session.find((m) => m.id === 1)).toMatchObject({ result: { messageId: expect.any(String) } });
  });

  it("400 for a session message without Acp-Session-Id or with another one", async () => {
    const served = await started();
    const client = new RawClient(served.url);
    await client.initialize();
    const prompt = { jsonrpc: "2.0", id: 1, method: "session/prompt", params: { sessionId: "s1", prompt: [] } };
    expect((await client.post(prompt)).status).toBe(400);
    expect((await client.post(prompt, { "Acp-Session-Id": "s2" })).status).toBe(400);
  });

  it("413 for a body over maxBodyBytes, declared or streamed", async () => {
    const served = await started({ maxBodyBytes: 256 });
    const big = JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, padding: "x".repeat(1000) } });
    expect((await fetch(served.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: big })).status).toBe(413);
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const streamed = await fetch(served.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: chunked, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(served.acp.connectionCount).toBe(0);
  });

  it("400 for an Acp-Connection-Id or Acp-Session-Id longer than maxIdLength", async () => {
    const acp = createAcpServer({ connect: v2Agent(), maxIdLength: 40 });
    const long = "x".repeat(41);
    expect((await acp.handle(request("GET", { Accept: "text/event-stream", "Acp-Connection-Id": long }))).status).toBe(400);
    expect((await acp.handle(request("GET", { Accept: "text/event-stream", "Acp-Connection-Id": "x", "Acp-Session-Id": long }))).status).toBe(400);
    await acp.close();
  });

  it("503 once maxConnections are open, and after close()", async () => {
    const acp = createAcpServer({ connect: v2Agent(), maxConnections: 2 });
    const init = (): Promise<Response> => acp.handle(request("POST", { "Content-Type": "application/json" }, JSON.stringify(INITIALIZE))) as Promise<Response>;
    expect((await init()).status).toBe(200);
    expect((await init()).status).toBe(200);
    expect((await init()).status).toBe(503);
    await acp.close();
    expect((await init()).status).toBe(503);
  });

  it("a limit that is not a positive integer is a RangeError", () => {
    expect(() => createAcpServer({ connect: v2Agent(), maxBufferedBytes: 0 })).toThrow(RangeError);
    expect(() => createAcpServer({ connect: v2Agent(), idleTimeoutMs: 1.5 })).toThrow(RangeError);
  });
});

describe("origins, CORS and authorize", () => {
  it("403 for a disallowed Origin; an allowed one gets CORS headers; a preflight is 204", async () => {
    const acp = createAcpServer({ connect: v2Agent(), allowedOrigins: ["https://app.example"] });
    const json = { "Content-Type": "application/json" };
    expect((await acp.handle(request("POST", { ...json, Origin: "https://evil.example" }, JSON.stringify(INITIALIZE)))).status).toBe(403);
    expect((await acp.handle(request("OPTIONS", { Origin: "https://evil.example" }))).status).toBe(403);
    const preflight = await acp.handle(request("OPTIONS", { Origin: "https://app.example", "Access-Control-Request-Method": "POST" }));
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("Access-Control-Allow-Origin")).toBe("https://app.example");
    expect(preflight.headers.get("Access-Control-Allow-Methods")).toContain("DELETE");
    expect(preflight.headers.get("Access-Control-Allow-Headers")).toContain("Acp-Session-Id");
    const allowed = await acp.handle(request("POST", { ...json, Origin: "https://app.example" }, JSON.stringify(INITIALIZE)));
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("Access-Control-Allow-Origin")).toBe("https://app.example");
    expect(allowed.headers.get("Access-Control-Expose-Headers")).toBe("Acp-Connection-Id, Acp-Session-Id");
    expect((await acp.handle(request("POST", json, JSON.stringify(INITIALIZE)))).status).toBe(200); // no Origin: not a browser
    await acp.close();
  });

  it("by default only the server's own origin is served", async () => {
    const served = await started();
    const host = new URL(served.url).host;
    const post = (origin: string): Promise<Response> => fetch(served.url, { method: "POST", headers: { "Content-Type": "application/json", Origin: origin }, body: JSON.stringify(INITIALIZE) });
    expect((await post("http://attacker.example")).status).toBe(403);
    expect((await post(`http://${host}`)).status).toBe(200);
  });

  it("authorize runs on every request: false is 401 without credentials, 403 with; a response is sent as it is", async () => {
    const seen: string[] = [];
    const served = await started({
      authorize: (req) => {
        seen.push(req.method);
        const token = req.headers.get("authorization");
        if (token === "Bearer teapot") return new Response("short and stout", { status: 418 });
        return token === "Bearer good";
      },
    });
    const post = (headers: Record<string, string>): Promise<Response> => fetch(served.url, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(INITIALIZE) });
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("WWW-Authenticate")).toBe("Bearer");
    expect((await post({ Authorization: "Bearer bad" })).status).toBe(403);
    expect((await post({ Authorization: "Bearer teapot" })).status).toBe(418);
    const client = new RawClient(served.url, { Authorization: "Bearer good" });
    await client.initialize();
    // the connection id alone is no credential
    const stolen = await fetch(served.url, { headers: { Accept: "text/event-stream", "Acp-Connection-Id": client.connectionId } });
    expect(stolen.status).toBe(401);
    await client.stream();
    expect(seen).toEqual(["POST", "POST", "POST", "POST", "GET", "GET"]);
  });
});

describe("limits on what the server holds", () => {
  it("a client that never reads its SSE stream: the connection closes once maxBufferedBytes are queued, the agent's sends reject", async () => {
    let agent: ReturnType<typeof connectAgent> | undefined;
    const acp = createAcpServer({
      maxBufferedBytes: 64 * 1024,
      connect: (transport) => (agent = connectAgent(transport, { initialize: () => ({ protocolVersion: PROTOCOL_VERSION, info: { name: "a", version: "1" } }) })),
    });
    const init = await acp.handle(request("POST", { "Content-Type": "application/json" }, JSON.stringify(INITIALIZE)));
    const connectionId = init.headers.get("Acp-Connection-Id")!;
    const stream = await acp.handle(request("GET", { Accept: "text/event-stream", "Acp-Connection-Id": connectionId, "Acp-Session-Id": "s1" }));
    expect(stream.status).toBe(200); // never read
    const update = { sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text: "y".repeat(1000) } } as const;
    let sent = 0;
    const failure = await (async () => {
      for (;;) {
        await agent!.notify("session/update", { sessionId: "s1", update });
        sent++;
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(sent).toBeGreaterThan(30);
    expect(sent).toBeLessThan(70); // bounded: ~64 KiB of ~1 KiB events
    await agent!.closed;
    expect(acp.connectionCount).toBe(0);
    expect((await acp.handle(request("DELETE", { "Acp-Connection-Id": connectionId }))).status).toBe(404);
  });

  it("maxMessageBytes: a longer agent message is not sent (its send rejects); a longer WebSocket frame closes the socket (1009)", async () => {
    let agent: ReturnType<typeof connectAgent> | undefined;
    const served = await started({
      maxMessageBytes: 2048,
      connect: (transport) => (agent = connectAgent(transport, { initialize: () => ({ protocolVersion: PROTOCOL_VERSION, info: { name: "a", version: "1" } }) })),
    });
    const client = new RawClient(served.url);
    await client.initialize();
    const update = { sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text: "z".repeat(4096) } } as const;
    await expect(agent!.notify("session/update", { sessionId: "s1", update })).rejects.toThrow(/maxMessageBytes/);
    const socket = new WebSocket(served.wsUrl);
    await new Promise((resolve) => socket.once("open", resolve));
    socket.send(JSON.stringify(INITIALIZE));
    await new Promise((resolve) => socket.once("message", resolve));
    socket.send(JSON.stringify({ jsonrpc: "2.0", method: "_x", params: { padding: "p".repeat(4096) } }));
    const [code] = await new Promise<[number]>((resolve) => socket.once("close", (closeCode: number) => resolve([closeCode])));
    expect(code).toBe(1009);
  });

  it("idleTimeoutMs: a connection with no open stream expires (404 afterwards)", async () => {
    const served = await started({ idleTimeoutMs: 50 });
    const client = new RawClient(served.url);
    await client.initialize();
    await until(() => served.acp.connectionCount === 0);
    expect((await client.post({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/tmp" } })).status).toBe(404);
  });

  it("1,000 concurrent connections held by the server, each initialize + session/new answered over its SSE stream", async () => {
    const served = await started({ maxConnections: 1000 });
    const clients = Array.from({ length: 1000 }, () => new RawClient(served.url));
    const sessions: string[] = [];
    // Streams are read 100 at a time and then closed (the connections stay): both ends of each stream live in this
    // process, and 1,000 open at once would need some 2,000 descriptors, past a common limit of 1,024.
    for (let batch = 0; batch < clients.length; batch += 100) {
      const some = clients.slice(batch, batch + 100);
      await Promise.all(some.map((client) => client.initialize()));
      const reading = new AbortController();
      const streams = await Promise.all(some.map((client) => client.stream(undefined, reading.signal)));
      await Promise.all(some.map((client) => client.request("session/new", { cwd: "/tmp" })));
      for (const stream of streams) sessions.push((await stream.find((m) => m.id === 1)).result.sessionId);
      reading.abort();
    }
    expect(new Set(sessions).size).toBe(1000);
    expect(served.acp.connectionCount).toBe(1000);
    const refused = await fetch(served.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(INITIALIZE) });
    expect(refused.status).toBe(503);
  }, 60_000);
});

describe("lifecycle", () => {
  it("close() ends every connection and settles the agents' pending requests", async () => {
    const log: AgentLog = { sessions: new Set(), permissionFailures: [] };
    const served = await started({ connect: v2Agent(log) });
    const client = new RawClient(served.url);
    await client.initialize();
    const main = await client.stream();
    await client.request("session/new", { cwd: "/tmp" });
    const sessionId = (await main.find((m) => m.id === 1)).result.sessionId;
    const session = await client.stream(sessionId);
    await client.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }, sessionId);
    await session.find((m) => m.method === "session/request_permission");
    servers.splice(servers.indexOf(served), 1);
    await served.stop();
    await until(() => log.permissionFailures.length === 1);
    expect(await session.next()).toBeUndefined(); // the stream ended
    expect(served.acp.connectionCount).toBe(0);
  });

  it("a dropped SSE stream fails the agent's in-flight session/request_permission; the session outlives it (a new initialize, then session/resume)", async () => {
    const log: AgentLog = { sessions: new Set(), permissionFailures: [] };
    const served = await started({ connect: v2Agent(log) });
    const client = new RawClient(served.url);
    await client.initialize();
    const main = await client.stream();
    await client.request("session/new", { cwd: "/tmp" });
    const sessionId = (await main.find((m) => m.id === 1)).result.sessionId;
    const drop = new AbortController();
    const session = await client.stream(sessionId, drop.signal);
    await client.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }, sessionId);
    await session.find((m) => m.method === "session/request_permission");
    drop.abort();
    await until(() => log.permissionFailures.length === 1);
    expect(log.permissionFailures[0]).toMatch(/stream .* closed/);
    // reconnect: a new connection, the old session resumed on it
    const again = new RawClient(served.url);
    await again.initialize();
    const resumedStream = await again.stream(sessionId);
    await again.stream();
    const id = await again.request("session/resume", { sessionId, cwd: "/tmp" }, sessionId);
    expect(await resumedStream.find((m) => m.id === id)).toMatchObject({ result: {} });
    const prompt = await again.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] }, sessionId);
    expect(await resumedStream.find((m) => m.id === prompt)).toMatchObject({ result: { messageId: expect.any(String) } });
    expect(await resumedStream.find((m) => m.method === "session/request_permission")).toMatchObject({ params: { sessionId } });
  });

  it("messages for a session whose stream is not open yet wait for it, in order", async () => {
    let agent: ReturnType<typeof connectAgent> | undefined;
    const served = await started({ connect: (transport) => (agent = connectAgent(transport, { initialize: () => ({ protocolVersion: PROTOCOL_VERSION, info: { name: "a", version: "1" } }) })) });
    const client = new RawClient(served.url);
    await client.initialize();
    for (const text of ["one", "two"]) await agent!.notify("session/update", { sessionId: "s9", update: { sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text } } });
    const stream = await client.stream("s9");
    expect((await stream.next()).params.update.content.text).toBe("one");
    expect((await stream.next()).params.update.content.text).toBe("two");
  });

  it("WebSocket: the first message must be initialize (1002); binary frames are ignored; the 101 carries Acp-Connection-Id", async () => {
    const served = await started();
    const wrong = new WebSocket(served.wsUrl);
    await new Promise((resolve) => wrong.once("open", resolve));
    wrong.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/tmp" } }));
    expect(await new Promise((resolve) => wrong.once("close", resolve))).toBe(1002);
    const socket = new WebSocket(served.wsUrl);
    const upgraded = new Promise<string | undefined>((resolve) => socket.once("upgrade", (res) => resolve(res.headers["acp-connection-id"] as string | undefined)));
    await new Promise((resolve) => socket.once("open", resolve));
    expect(await upgraded).toMatch(/^[0-9a-f]{32}$/);
    socket.send(new Uint8Array([1, 2, 3]));
    socket.send(JSON.stringify(INITIALIZE));
    const answer = await new Promise<string>((resolve) => socket.once("message", (data) => resolve(String(data))));
    expect(JSON.parse(answer)).toMatchObject({ id: 0, result: { info: { name: "http-agent" } } });
    socket.close();
    await until(() => served.acp.connectionCount === 0);
  });
});
