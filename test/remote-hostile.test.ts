/**
 * Issue 36, item 4: the guarantees of test/connection-fuzz.test.ts for the
 * network transports. The mutated sessions of test/support/connection-fuzz.ts
 * (values nested up to 10^5 deep in every field position, huge numbers, bit
 * flips, invalid UTF-8, a byte order mark, NUL, truncation) go
 * - to our server, each line as a POST body and as a WebSocket frame: every
 *   POST is answered with a status (never a rejected `handle`, never a 5xx),
 *   and afterwards the same connection still answers a request;
 * - to our clients, each line as a server-sent event and as a WebSocket frame
 *   from a raw server of this test: afterwards the client still answers the
 *   agent's request.
 * Nothing may reach the process as an uncaught exception or an unhandled rejection.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchEscapes } from "./support/escapes.js";
import { WebSocket, WebSocketServer } from "ws";
import { connectClient, httpTransport, PROTOCOL_VERSION, webSocketTransport } from "../generated/src/v2/index.js";
import { AGENT_BOUND, CLIENT_BOUND, deepText, everyPlacement, fuzzInput, Rng, type FuzzInput } from "./support/connection-fuzz.js";
import { serve, v2Agent, type Served } from "./support/http-agents.js";

const INPUTS = 150;
const escaped = watchEscapes();

/** The lines of an input as bytes (split at newlines; `\r` kept, blank lines dropped). */
function lineBytes(input: FuzzInput): Uint8Array[] {
  const lines: Uint8Array[] = [];
  for (let start = 0; start < input.bytes.length; ) {
    const end = input.bytes.indexOf(10, start);
    const stop = end < 0 ? input.bytes.length : end;
    if (stop > start) lines.push(input.bytes.subarray(start, stop));
    start = stop + 1;
  }
  return lines;
}

/** The inputs of a run: seeded mutations, and a 10^5-deep value in every field position. */
function inputsFor(session: readonly unknown[], seed: number): FuzzInput[] {
  const rng = new Rng(seed);
  const mutated = Array.from({ length: INPUTS }, () => fuzzInput(session, rng));
  return [...mutated, ...everyPlacement(session, deepText(100_000, new Rng(seed)))];
}

const PROBE_ID = "remote-probe";
const initialize = (id: string | number) => JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: PROTOCOL_VERSION, info: { name: "hostile", version: "1" } } });

describe("our server, sent hostile lines", () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve({ connect: v2Agent() });
  });
  afterAll(() => served.stop());

  /** POSTs `body` (bytes or text) on `connectionId` (none: a new connection); the status and the answer's text. */
  async function post(body: Uint8Array | string, connectionId?: string): Promise<{ status: number; text: string; connectionId: string | null }> {
    const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    if (connectionId !== undefined) headers["Acp-Connection-Id"] = connectionId;
    const response = await served.acp.handle(new Request(served.url, { method: "POST", headers, body: typeof body === "string" ? body : new Uint8Array(body) }) as never);
    const text = response.body === null ? "" : await new Response(response.body as never).text();
    return { status: response.status, text, connectionId: response.headers.get("acp-connection-id") };
  }

  it("answers every POSTed line with a status below 500, and the connection still takes a request after it", async () => {
    const statuses = new Map<number, number>();
    for (const [n, input] of inputsFor(AGENT_BOUND, 3601).entries()) {
      const opened = await post(initialize(0));
      expect(opened.status, `input ${n}`).toBe(200);
      const connectionId = opened.connectionId!;
      for (const line of lineBytes(input)) {
        const { status } = await post(line, connectionId);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        expect(status, `input ${n}`).toBeLessThan(500);
      }
      // The connection is alive: a later request on it is still taken (202; its answer travels on the stream).
      const sessionNew = JSON.stringify({ jsonrpc: "2.0", id: PROBE_ID, method: "session/new", params: { cwd: "/" } });
      expect((await post(sessionNew, connectionId)).status, `input ${n}`).toBe(202);
    }
    expect([...statuses.keys()].every((status) => [200, 202, 400, 404, 409, 413, 415].includes(status)), JSON.stringify([...statuses])).toBe(true);
    expect(escaped).toEqual([]);
  }, 300_000);

  it("takes every line as a WebSocket frame, and the socket still answers initialize after it", async () => {
    for (const [n, input] of inputsFor(AGENT_BOUND, 3602).entries()) {
      const socket = new WebSocket(served.wsUrl);
      const frames: string[] = [];
      const probed = new Promise<void>((resolve, reject) => {
        socket.on("message", (data) => {
          const text = String(data);
          frames.push(text);
          if (text.includes(`"id":"${PROBE_ID}"`)) resolve();
        });
        socket.on("close", (code) => reject(new Error(`input ${n}: the socket closed (${code}) before the probe was answered`)));
      });
      await new Promise((resolve, reject) => (socket.once("open", resolve), socket.once("error", reject)));
      socket.send(initialize(0));
      for (const line of lineBytes(input)) socket.send(new TextDecoder().decode(line));
      socket.send(initialize(PROBE_ID));
      await probed;
      socket.close();
      for (const frame of frames) expect(() => JSON.parse(frame)).not.toThrow();
    }
    expect(escaped).toEqual([]);
  }, 300_000);
});

/**
 * A raw Streamable HTTP and WebSocket server that answers `initialize` and then
 * plays what the test gives it: lines as server-sent events on the connection's
 * stream, or as frames. It records the client's POSTs and frames.
 */
class RawAgent {
  readonly posted: string[] = [];
  readonly framed: string[] = [];
  private stream: ServerResponse | undefined;
  private streamOpened: (() => void) | undefined;
  private socket: WebSocket | undefined;
  private readonly http = createServer((req, res) => void this.handle(req, res));
  private readonly sockets = new WebSocketServer({ server: this.http });
  url = "";

  async listen(): Promise<this> {
    this.sockets.on("connection", (socket) => {
      this.socket = socket;
      socket.on("message", (data) => {
        const text = String(data);
        this.framed.push(text);
        const message = JSON.parse(text) as { id?: unknown; method?: string };
        if (message.method === "initialize") socket.send(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: PROTOCOL_VERSION, info: { name: "raw", version: "1" } } }));
      });
    });
    await new Promise<void>((resolve) => this.http.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/acp`;
    return this;
  }

  /** Forgets the last client's stream, before the next client connects. */
  forget(): void {
    this.stream = undefined;
  }

  /** Resolves once the client's connection stream is open. */
  opened(): Promise<void> {
    return this.stream !== undefined ? Promise.resolve() : new Promise((resolve) => (this.streamOpened = resolve));
  }

  /** Sends one line to the client: as an event when `how` is "sse", else as a frame. */
  play(how: "sse" | "ws", line: string): void {
    if (how === "sse") this.stream?.write(`data: ${line}\n\n`);
    else this.socket?.send(line);
  }

  async close(): Promise<void> {
    this.sockets.close();
    this.http.closeAllConnections();
    await new Promise((resolve) => this.http.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = "";
    for await (const chunk of req) body += chunk;
    if (req.method === "GET") {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.flushHeaders();
      if (req.headers["acp-session-id"] === undefined) {
        this.stream = res;
        this.streamOpened?.();
      }
      return;
    }
    if (req.method !== "POST") return void res.writeHead(202).end();
    this.posted.push(body);
    const message = JSON.parse(body) as { id?: unknown; method?: string };
    if (message.method !== "initialize") return void res.writeHead(202).end();
    const answer = JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: PROTOCOL_VERSION, info: { name: "raw", version: "1" } } });
    res.writeHead(200, { "Content-Type": "application/json", "Acp-Connection-Id": "raw-1" }).end(answer);
  }
}

describe.each(["sse", "ws"] as const)("our client, sent hostile lines as %s", (how) => {
  it("goes on: after every input it still answers the agent's request", async () => {
    const agent = await new RawAgent().listen();
    const wsUrl = agent.url.replace(/^http/, "ws");
    try {
      for (const input of inputsFor(CLIENT_BOUND, how === "sse" ? 3603 : 3604)) {
        agent.forget();
        const transport = how === "sse" ? httpTransport(agent.url) : webSocketTransport(wsUrl, { WebSocket });
        let permission!: () => void;
        const asked = new Promise<void>((resolve) => (permission = resolve));
        const client = connectClient(
          transport,
          {
            "session/request_permission": (params) => {
              if (params.title === PROBE_ID) permission();
              return { outcome: { outcome: "selected", optionId: "allow" } };
            },
            "session/update": () => {},
          },
          { onError: () => {} },
        );
        await client.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "c", version: "1" } });
        if (how === "sse") await agent.opened();
        for (const line of lineBytes(input)) agent.play(how, new TextDecoder().decode(line));
        const probe = { sessionId: "s1", title: PROBE_ID, subject: { type: "tool_call", toolCall: { toolCallId: "t", title: "t", status: "pending" } }, options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }] };
        agent.play(how, JSON.stringify({ jsonrpc: "2.0", id: PROBE_ID, method: "session/request_permission", params: probe }));
        await asked;
        client.close();
      }
    } finally {
      await agent.close();
    }
    expect(escaped).toEqual([]);
  }, 300_000);
});
