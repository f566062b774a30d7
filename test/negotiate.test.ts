/**
 * Version negotiation (acp-bindings/negotiate, issue 30) in memory: the
 * agent end's first-message rules, driven line by line by a raw peer (a
 * request, a notification, bad JSON and a malformed `initialize` before it,
 * an unsupported version, a second `initialize`), the version chosen for each
 * request, and the client end against it and against agents answering an
 * unexpected version.
 */
import { describe, expect, it } from "vitest";
import { chooseVersion, connectVersions, serveVersions, type AgentVersions } from "../generated/src/negotiate/index.js";
import * as v1 from "../generated/src/v1/index.js";
import * as v2 from "../generated/src/v2/index.js";
import type { LineSink, Transport } from "../generated/src/v2/index.js";
import { rawPeer, settle } from "./support/raw-peer.js";

const V1_AGENT: v1.AgentHandlers = {
  initialize: (params) => ({ protocolVersion: params.protocolVersion, agentInfo: { name: "v1-agent", version: "1" } }),
  "session/new": () => ({ sessionId: "v1-session" }),
};

const V2_AGENT: v2.AgentHandlers = {
  initialize: (params) => ({ protocolVersion: params.protocolVersion, info: { name: "v2-agent", version: "2" } }),
  "session/new": () => ({ sessionId: "v2-session" }),
};

const V2_INIT = { protocolVersion: 2, info: { name: "raw", version: "0" } };

/** A router serving `versions`, and a raw peer on its other end; `errors` collects what `onError` got. */
function routed(versions: AgentVersions = { v1: V1_AGENT, v2: V2_AGENT }) {
  const [agentEnd, clientEnd] = v2.inMemoryTransports();
  const errors: string[] = [];
  const server = serveVersions(agentEnd, versions, { onError: (error) => errors.push(error.message) });
  return { server, raw: rawPeer(clientEnd), errors };
}

describe("the agent end: the first message must be initialize", () => {
  it("a request before initialize gets -32600 with its id; the connection waits on and takes initialize", async () => {
    const { server, raw } = routed();
    await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/", mcpServers: [] } });
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32600, message: "Invalid request: the first request must be initialize, not session/new" } });
    await raw.sendJson({ jsonrpc: "2.0", id: 2, method: "initialize", params: V2_INIT });
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: 2, result: { protocolVersion: 2, info: { name: "v2-agent", version: "2" } } });
    expect((await server.negotiated)?.version).toBe(2);
  });

  it("a notification before initialize is not answered (onError is told); then initialize", async () => {
    const { server, raw, errors } = routed();
    await raw.sendJson({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s" } });
    await raw.sendJson({ jsonrpc: "2.0", id: 5, result: {} });
    await settle();
    expect(raw.received).toEqual([]);
    expect(errors).toEqual(["notification session/cancel before initialize (not answered)", "response with id 5 before initialize"]);
    await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } });
    expect(await raw.next()).toMatchObject({ id: 1, result: { protocolVersion: 1 } });
    expect((await server.negotiated)?.version).toBe(1);
  });

  it("bad JSON and a non-object get -32700 and -32600 with id null, as the surface's connection answers them", async () => {
    const { raw } = routed();
    await raw.send("{not json");
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the line is not JSON" } });
    await raw.send("[1]");
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request: not a JSON-RPC 2.0 message object" } });
    await raw.sendJson({ jsonrpc: "1.0", id: 3, method: "initialize", params: V2_INIT });
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: 3, error: { code: -32600, message: 'Invalid request: jsonrpc must be "2.0"' } });
  });

  it("a malformed initialize gets -32602 with JSON pointers (the chosen version's parser), and the connection waits on", async () => {
    const { server, raw } = routed();
    await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2" } });
    expect(await raw.next()).toMatchObject({ id: 1, error: { code: -32602, data: { issues: [{ path: "/protocolVersion" }] } } });
    await raw.sendJson({ jsonrpc: "2.0", id: 2, method: "initialize" });
    expect(await raw.next()).toMatchObject({ id: 2, error: { code: -32602, data: { issues: [{ path: "" }] } } });
    await raw.sendJson({ jsonrpc: "2.0", id: 3, method: "initialize", params: { protocolVersion: 2, info: { name: 7 } } });
    const answer = await raw.next();
    expect(answer).toMatchObject({ id: 3, error: { code: -32602, message: "Invalid params for initialize" } });
    expect(answer.error.data.issues[0].path).toMatch(/^\/info/);
    // v2 admits no null id (its RequestId), v1 does: the router answers as the chosen version's connection would.
    await raw.sendJson({ jsonrpc: "2.0", id: null, method: "initialize", params: V2_INIT });
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32600 } });
    await raw.sendJson({ jsonrpc: "2.0", id: 4, method: "initialize", params: V2_INIT });
    expect(await raw.next()).toMatchObject({ id: 4, result: { protocolVersion: 2 } });
    expect((await server.negotiated)?.version).toBe(2);
  });

  it("an unsupported version is answered with the newest configured one; its handler sees its own version", async () => {
    for (const [requested, versions, expected] of [
      [0, { v1: V1_AGENT, v2: V2_AGENT }, 2],
      [9, { v1: V1_AGENT, v2: V2_AGENT }, 2],
      [9, { v1: V1_AGENT }, 1],
      [1, { v2: V2_AGENT }, 2],
      [2, { v1: V1_AGENT }, 1],
    ] as const) {
      const { server, raw } = routed(versions);
      const params = requested >= 2 ? { ...V2_INIT, protocolVersion: requested } : { protocolVersion: requested, clientInfo: { name: "raw", version: "0" } };
      await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "initialize", params });
      expect(await raw.next(), `requested ${requested}`).toMatchObject({ id: 1, result: { protocolVersion: expected } });
      const negotiated = await server.negotiated;
      expect(negotiated?.version).toBe(expected);
      // The client's name crosses between v1's clientInfo and v2's info.
      expect(negotiated?.version === 1 ? negotiated.initialize.clientInfo : negotiated?.initialize.info).toEqual({ name: "raw", version: "0" });
      server.close();
    }
  });

  it("a second initialize goes to the chosen surface's handler: the version does not change", async () => {
    const { server, raw } = routed();
    await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } });
    expect(await raw.next()).toMatchObject({ id: 1, result: { protocolVersion: 1, agentInfo: { name: "v1-agent" } } });
    await raw.sendJson({ jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: 2, clientInfo: null } });
    expect(await raw.next()).toMatchObject({ id: 2, result: { protocolVersion: 2, agentInfo: { name: "v1-agent" } } });
    await raw.sendJson({ jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: "/", mcpServers: [] } });
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: 3, result: { sessionId: "v1-session" } });
    expect((await server.negotiated)?.version).toBe(1);
  });

  it("lines after initialize in the same read reach the chosen connection in order", async () => {
    const written: unknown[] = [];
    let sink: LineSink | undefined;
    const transport: Transport = { start: (given) => void (sink = given), send: async (line) => void written.push(JSON.parse(line)), close: () => {} };
    serveVersions(transport, { v1: V1_AGENT, v2: V2_AGENT });
    const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: V2_INIT });
    const open = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/" } });
    sink!.lines!(["{bad", init, open]);
    await settle();
    expect(written).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the line is not JSON" } },
      { jsonrpc: "2.0", id: 1, result: { protocolVersion: 2, info: { name: "v2-agent", version: "2" } } },
      { jsonrpc: "2.0", id: 2, result: { sessionId: "v2-session" } },
    ]);
  });

  it("input ending before initialize settles negotiated with undefined and closed", async () => {
    const { server, raw } = routed();
    raw.close();
    expect(await server.negotiated).toBeUndefined();
    await server.closed;
  });

  it("a handler factory gets the client peer: the handlers call the client", async () => {
    const [agentEnd, clientEnd] = v2.inMemoryTransports();
    serveVersions(agentEnd, {
      v2: (client) => ({
        ...V2_AGENT,
        "session/new": async () => {
          await client.notify("session/update", { sessionId: "s", update: { sessionUpdate: "state_update", state: "idle" } });
          return { sessionId: "s" };
        },
      }),
    });
    const updates: string[] = [];
    const agent = await connectVersions(clientEnd, { v2: { "session/update": (params) => void updates.push(params.update.sessionUpdate) } }, { info: { name: "c", version: "1" } });
    expect(await agent.peer.request("session/new", { cwd: "/" })).toEqual({ sessionId: "s" });
    expect(updates).toEqual(["state_update"]);
  });
});

describe("chooseVersion", () => {
  it("the highest configured not above the requested, else the newest", () => {
    const served = [{ version: 1 }, { version: 2 }];
    expect([0, 1, 2, 3].map((requested) => chooseVersion(served, requested)?.version)).toEqual([2, 1, 2, 2]);
    expect(chooseVersion([], 1)).toBeUndefined();
  });
});

describe("the client end", () => {
  it("offers v2, and goes on as v1 on the same connection when the agent answers v1", async () => {
    const [agentEnd, clientEnd] = v2.inMemoryTransports();
    const served = serveVersions(agentEnd, { v1: V1_AGENT });
    const agent = await connectVersions(clientEnd, { v1: {}, v2: {} }, { info: { name: "c", version: "1" } });
    expect(agent.version).toBe(1);
    if (agent.version !== 1) return;
    expect(agent.initialize).toEqual({ protocolVersion: 1, agentInfo: { name: "v1-agent", version: "1" } });
    expect(await agent.peer.request("session/new", { cwd: "/", mcpServers: [] })).toEqual({ sessionId: "v1-session" });
    expect((await served.negotiated)?.initialize).toEqual({ protocolVersion: 1, clientInfo: { name: "c", version: "1" } });
  });

  it("speaks v2 with an agent serving both", async () => {
    const [agentEnd, clientEnd] = v2.inMemoryTransports();
    serveVersions(agentEnd, { v1: V1_AGENT, v2: V2_AGENT });
    const agent = await connectVersions(clientEnd, { v1: {}, v2: {} }, { info: { name: "c", version: "1" } });
    expect(agent.version).toBe(2);
    expect(agent.initialize).toEqual({ protocolVersion: 2, info: { name: "v2-agent", version: "2" } });
  });

  it("rejects an answer of a version it does not speak, and an agent's error; checks its own params", async () => {
    const [agentEnd, clientEnd] = v2.inMemoryTransports();
    v2.connectAgent(agentEnd, { initialize: () => ({ protocolVersion: 3, info: { name: "future", version: "3" } }) });
    await expect(connectVersions(clientEnd, { v1: {}, v2: {} }, { info: { name: "c", version: "1" } })).rejects.toThrow("the agent answered protocol version 3, which this client does not speak (it speaks 2, 1)");
    const [agentEnd2, clientEnd2] = v2.inMemoryTransports();
    v2.connectAgent(agentEnd2, { initialize: () => Promise.reject(v2.RequestError.authenticationRequired()) });
    await expect(connectVersions(clientEnd2, { v2: {} }, { info: { name: "c", version: "1" } })).rejects.toMatchObject({ code: -32000 });
    const [, clientEnd3] = v2.inMemoryTransports();
    // @ts-expect-error info is required by v2's InitializeRequest
    await expect(connectVersions(clientEnd3, { v2: {} }, {})).rejects.toMatchObject({ code: -32602 });
  });

  it("rejects when the agent closes before answering", async () => {
    const [agentEnd, clientEnd] = v2.inMemoryTransports();
    const raw = rawPeer(agentEnd);
    const connecting = connectVersions(clientEnd, { v1: {} }, {});
    expect(await raw.next()).toMatchObject({ id: 0, method: "initialize", params: { protocolVersion: 1 } });
    raw.close();
    await expect(connecting).rejects.toThrow("the connection closed before the agent answered initialize");
  });
});
