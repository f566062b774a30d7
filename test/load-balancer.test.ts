/**
 * More than one machine (issue 35, item 5): two processes of
 * examples/remote-server.ts (`npx tsx examples/remote-server.ts`, run as
 * written, each in a process group of its own) sharing a session directory, behind a real
 * HAProxy (Debian's package, installed here when missing) with round robin,
 * an inserted affinity cookie (`ACPSRV`), health checks and redispatch. Our
 * client (`connectClient` over `httpTransport` or `webSocketTransport`, one
 * `createCookieJar()` per client, kept across its reconnect) shows:
 * - affinity: each client's messages all reach one process (a message that
 *   reached the other would find no such connection there and end the
 *   connection), both processes get clients; without cookies the second
 *   message lands on the other process and the connection fails;
 * - a process stopped (SIGKILL over HTTP, SIGTERM over WebSocket) while its
 *   client waits on a permission request ends that client's connection
 *   cleanly: the permission handler's signal aborts, `closed` settles, a
 *   request in flight rejects;
 * - the client reconnects with the same jar, HAProxy sends it to the live
 *   process, which offers `session/resume` (`capabilities.session`),
 *   restores the session from the shared file (its history replayed) and
 *   runs the next turn, whose reply counts the turns the session had.
 * No wall-clock assertion: every wait is a poll bounded by the test timeout.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import {
  type AgentPeer,
  type ClientHandlers,
  connectClient,
  createCookieJar,
  createSessionStore,
  httpTransport,
  PROTOCOL_VERSION,
  type RequestPermissionResponse,
  type Transport,
  webSocketTransport,
} from "../generated/src/v2/index.js";
import { type Balancer, type ServerProcess, startHaproxy, startServer, stopAll, untilServer } from "./support/load-balancer.js";
import { ensureDebianPackage } from "./support/system-packages.js";
import { tempDir } from "./support/temp-dirs.js";

const ALLOW: RequestPermissionResponse = { outcome: { outcome: "selected", optionId: "allow" } };

let sessionDir = "";
let balancer: Balancer;
const servers = new Map<string, ServerProcess>();
const peers: AgentPeer[] = [];

beforeAll(async () => {
  const haproxy = ensureDebianPackage("haproxy", "haproxy");
  sessionDir = tempDir("lb-sessions");
  for (const name of ["a", "b"]) servers.set(name, await startServer(name, sessionDir));
  balancer = await startHaproxy(haproxy, tempDir("lb-haproxy"), [...servers.values()]);
}, 1_200_000); // installing haproxy on a fresh machine takes minutes

afterAll(async () => {
  for (const peer of peers.splice(0)) peer.close();
  await stopAll();
});

/** Resolves once `check` holds, checking every few milliseconds (no deadline: the test's timeout is the limit). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A client on `transport`: its sessions (a fresh `createSessionStore`), the stop reasons of its turns, the errors its connection reported. */
function openClient(transport: Transport, permission: NonNullable<ClientHandlers["session/request_permission"]>) {
  const sessions = createSessionStore();
  const stopReasons: string[] = [];
  const errors: string[] = [];
  const peer = connectClient(
    transport,
    {
      "session/update": (notification) => {
        sessions.update(notification);
        const { update } = notification;
        if (update.sessionUpdate === "state_update" && update.state === "idle" && typeof update.stopReason === "string") stopReasons.push(update.stopReason);
      },
      "session/request_permission": permission,
    },
    { onError: (error) => void errors.push(error.message) },
  );
  peers.push(peer);
  return { peer, sessions, stopReasons, errors };
}

type Client = ReturnType<typeof openClient>;

/** `initialize`; returns the name of the process that answered (`example-agent (a)` -> `a`) and whether it offers session/resume. */
async function initialize(client: Client): Promise<{ server: string; resumable: boolean }> {
  const init = await client.peer.request("initialize", { protocolVersion: PROTOCOL_VERSION, info: { name: "lb-test", version: "1.0.0" } });
  const server = /^example-agent \((\w+)\)$/.exec(init.info.name)?.[1];
  if (server === undefined) throw new Error(`unexpected agent name ${init.info.name}`);
  // v2: `capabilities.session` (even `{}`) offers the baseline session methods, session/resume among them.
  return { server, resumable: init.capabilities?.session !== undefined && init.capabilities.session !== null };
}

/** Runs a turn to its end (the permission handler decides); returns its stop reason. */
async function turn(client: Client, sessionId: string, text: string): Promise<string | undefined> {
  const ended = client.stopReasons.length;
  await client.peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  await until(() => client.stopReasons.length > ended);
  return client.stopReasons[ended];
}

/** The agent's replies in a client's state of the session, in order. */
function replies(client: Client, sessionId: string): string[] {
  const messages = [...(client.sessions.get(sessionId)?.agentMessages.values() ?? [])];
  return messages.map((message) => (message.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join(""));
}

/** The ids of the tool calls in the session's file in the shared directory (none before it exists). */
function savedToolCalls(sessionId: string): string[] {
  try {
    const saved = JSON.parse(readFileSync(join(sessionDir, `${sessionId}.json`), "utf8")) as { toolCalls: [string, unknown][] };
    return saved.toolCalls.map(([id]) => id);
  } catch {
    return [];
  }
}

/** A permission handler allowing the first request and holding the second until the connection closes; `held` tells when it holds and whether its signal aborted. */
function allowThenHold() {
  const held = { asked: false, aborted: false };
  let requests = 0;
  const handler: NonNullable<ClientHandlers["session/request_permission"]> = (_params, { signal }) => {
    if (++requests === 1) return ALLOW;
    held.asked = true;
    return new Promise<RequestPermissionResponse>((_resolve, reject) => signal.addEventListener("abort", () => ((held.aborted = true), reject(new Error("connection closed"))), { once: true }));
  };
  return { held, handler };
}

/** Opens a session on `client` and runs one allowed turn, then starts a second turn and waits until the agent waits on its permission request and has saved it. */
async function sessionMidTurn(client: Client, held: { asked: boolean }): Promise<string> {
  const { sessionId } = await client.peer.request("session/new", { cwd: "/tmp" });
  expect(await turn(client, sessionId, "first")).toBe("end_turn");
  expect(replies(client, sessionId)).toEqual(["You said: first (turn 1 of this session)"]);
  await client.peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "second" }] });
  await until(() => held.asked && savedToolCalls(sessionId).includes("tool-2"));
  return sessionId;
}

/** Reconnects with `transport` (same cookie jar): HAProxy picks a live process other than `gone`; it resumes the session from the shared file with its history replayed, and a third turn runs there. */
async function resumeElsewhere(transport: Transport, jar: ReturnType<typeof createCookieJar>, gone: string, sessionId: string): Promise<string> {
  const again = openClient(transport, () => ALLOW);
  const { server, resumable } = await initialize(again);
  expect(server).not.toBe(gone);
  expect(jar.header()).toBe(`ACPSRV=${server}`); // HAProxy moved the affinity to the live process
  expect(resumable).toBe(true);
  expect(await again.peer.request("session/resume", { sessionId, cwd: "/tmp", replayFrom: { type: "start" } })).toEqual({});
  // The replayed history, from the file the stopped process wrote: turn 1 done, turn 2 cut off at its permission request.
  const restored = again.sessions.get(sessionId);
  expect(replies(again, sessionId)).toEqual(["You said: first (turn 1 of this session)"]);
  expect([...(restored?.agentThoughts.keys() ?? [])]).toEqual(["thought-1", "thought-2"]);
  expect([...(restored?.toolCalls.values() ?? [])].map((call) => [call.toolCallId, call.status])).toEqual([
    ["tool-1", "completed"],
    ["tool-2", "pending"],
  ]);
  expect(restored?.state).toEqual({ state: "idle" }); // reported before the resume's answer
  expect(await turn(again, sessionId, "third")).toBe("end_turn");
  expect(replies(again, sessionId)).toEqual(["You said: first (turn 1 of this session)", "You said: third (turn 3 of this session)"]);
  expect(again.errors).toEqual([]);
  again.peer.close();
  await again.peer.closed;
  return server;
}

describe("two remote-server processes behind HAProxy (cookie affinity, shared session files)", () => {
  it("the affinity cookie keeps each client on one process; both processes get clients; without cookies the connection breaks", async () => {
    const clients = await Promise.all(
      [0, 1, 2, 3].map(async (i) => {
        const jar = createCookieJar();
        const client = openClient(httpTransport(balancer.url, { cookieJar: jar }), () => ALLOW);
        const { server } = await initialize(client);
        expect(jar.header()).toBe(`ACPSRV=${server}`);
        const { sessionId } = await client.peer.request("session/new", { cwd: "/tmp" });
        expect(sessionId.startsWith(`${server}-`)).toBe(true); // made by the process that answered initialize
        for (const text of [`hello ${i}`, `again ${i}`]) expect(await turn(client, sessionId, text)).toBe("end_turn");
        expect(replies(client, sessionId)).toEqual([`You said: hello ${i} (turn 1 of this session)`, `You said: again ${i} (turn 2 of this session)`]);
        expect(client.errors).toEqual([]);
        expect(jar.header()).toBe(`ACPSRV=${server}`);
        return { client, server };
      }),
    );
    expect(new Set(clients.map(({ server }) => server))).toEqual(new Set(["a", "b"]));
    for (const { client } of clients) client.peer.close();

    // The control: no cookies, so round robin sends each request anywhere; the connection id exists on one process only.
    const lost = openClient(httpTransport(balancer.url, { cookies: "omit" }), () => ALLOW);
    await initialize(lost);
    await expect(lost.peer.request("session/new", { cwd: "/tmp" })).rejects.toThrow();
    await lost.peer.closed;
  });

  it("over HTTP: SIGKILL of the process mid-turn ends its client's connection; the client reconnects, the other process resumes the session from the file", async () => {
    const jar = createCookieJar();
    const { held, handler } = allowThenHold();
    const client = openClient(httpTransport(balancer.url, { cookieJar: jar }), handler);
    const { server } = await initialize(client);
    const sessionId = await sessionMidTurn(client, held);

    const victim = servers.get(server)!;
    victim.signal("SIGKILL");
    const inFlight = client.peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "are you there?" }] });
    await expect(inFlight).rejects.toThrow();
    await client.peer.closed;
    expect(held.aborted).toBe(true); // the permission handler was told: its request will never be answered
    await victim.exited;

    // Reconnect at once (HAProxy may not have seen the process go yet: the refused connection is redispatched).
    await resumeElsewhere(httpTransport(balancer.url, { cookieJar: jar }), jar, server, sessionId);

    // The stopped process comes back on its port (once HAProxy saw it gone: its port is free); the health check brings it back into the pool.
    await untilServer(balancer, server, "DOWN");
    servers.set(server, await startServer(server, sessionDir, victim.port));
    await untilServer(balancer, server, "UP");
  });

  it("over WebSocket: SIGTERM of the process mid-turn closes its client's socket; the client reconnects, the other process resumes the session from the file", async () => {
    const wsUrl = balancer.url.replace(/^http/, "ws");
    const jar = createCookieJar();
    const { held, handler } = allowThenHold();
    const client = openClient(webSocketTransport(wsUrl, { WebSocket, cookieJar: jar }), handler);
    const { server } = await initialize(client);
    expect(jar.header()).toBe(`ACPSRV=${server}`); // the cookie HAProxy set on the 101 answer
    const sessionId = await sessionMidTurn(client, held);

    const victim = servers.get(server)!;
    victim.signal("SIGTERM"); // remote-server.ts closes its connections, then exits
    await client.peer.closed;
    expect(held.aborted).toBe(true);
    await expect(client.peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "are you there?" }] })).rejects.toThrow();
    await victim.exited;

    await resumeElsewhere(webSocketTransport(wsUrl, { WebSocket, cookieJar: jar }), jar, server, sessionId);
    await untilServer(balancer, server, "DOWN");
    servers.set(server, await startServer(server, sessionDir, victim.port));
    await untilServer(balancer, server, "UP");
  });
});
