/**
 * The connection contract (DESIGN.md "Connection", issue 10) over in-memory
 * transports: wire errors, extension methods, ordering and concurrency,
 * outgoing validation, cancellation both ways, correlation of 1,000
 * concurrent requests, a peer closing mid-request, `RequestError`,
 * `PROTOCOL_VERSION` and the session store; nothing throws or rejects
 * unhandled, whatever handlers, params, signals or a custom transport throw.
 * Wire-level cases drive the far end by hand (test/support/raw-peer.ts).
 */
import { describe, expect, it } from "vitest";
import * as v1 from "../generated/src/v1/index.js";
import {
  connectAgent,
  connectClient,
  createSessionStore,
  inMemoryTransports,
  PROTOCOL_VERSION,
  RequestError,
  type AgentHandlers,
  type InitializeResponse,
  type NewSessionRequest,
  type PromptRequest,
  type RequestPermissionRequest,
  type SessionUpdate,
  type Transport,
} from "../generated/src/v2/index.js";
import * as v2Unstable from "../generated/src/v2/unstable/index.js";
import { ENTRIES } from "./support/surfaces.js";
import { rawPeer, settle } from "./support/raw-peer.js";

const INIT_RESULT: InitializeResponse = { protocolVersion: 2, info: { name: "test-agent", version: "1.0.0" } };
const NEW_SESSION: NewSessionRequest = { cwd: "/work" };
const PERMISSION: RequestPermissionRequest = { sessionId: "s", title: "t", options: [{ optionId: "yes", name: "Yes", kind: "allow_once" }] };
const PROMPT: PromptRequest = { sessionId: "s", prompt: [{ type: "text", text: "hi" }] };

/** An agent under test with a raw far end. */
function agentWithRawClient(handlers: AgentHandlers, options: Parameters<typeof connectAgent>[2] = {}) {
  const [near, far] = inMemoryTransports();
  const errors: Error[] = [];
  const client = connectAgent(near, handlers, { onError: (e) => errors.push(e), ...options });
  return { client, raw: rawPeer(far), errors };
}

/** The next line `raw` received, or "no answer" when none came within `ms` (a test of what must be answered fails instead of timing out). */
async function nextWithin(raw: ReturnType<typeof rawPeer>, ms = 200): Promise<any> {
  for (let waited = 0; raw.received.length === 0 && waited < ms; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
  return raw.received.length > 0 ? raw.received.shift() : "no answer";
}

/** What calling `run` gave: "resolved", its promise's error, or `["threw", error]` when it threw synchronously (the contract: never). */
function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return run().then(() => "resolved", (error: unknown) => error);
  } catch (error) {
    return Promise.resolve(["threw", error]);
  }
}

/** Runs `body`, then lets queued work run; returns the unhandled rejections seen meanwhile (the contract: never one). */
async function unhandledDuring(body: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => void seen.push(reason);
  process.on("unhandledRejection", listener);
  try {
    await body();
    await settle();
  } finally {
    process.off("unhandledRejection", listener);
  }
  return seen;
}

/** A typed agent and a typed client connected in memory. */
function pair(handlers: AgentHandlers, clientHandlers: Parameters<typeof connectClient>[1] = {}) {
  const [near, far] = inMemoryTransports();
  const errors: Error[] = [];
  const client = connectAgent(near, handlers, { onError: (e) => errors.push(e) });
  const agent = connectClient(far, clientHandlers, { onError: (e) => errors.push(e) });
  return { client, agent, errors };
}

describe("wire errors", () => {
  it("answers invalid JSON with -32700 and id null, and goes on", async () => {
    const { raw } = agentWithRawClient({ "session/new": () => ({ sessionId: "s1" }) });
    await raw.send("{not json");
    expect(await raw.next()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "session/new", params: NEW_SESSION });
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: 1, result: { sessionId: "s1" } });
  });

  it("answers what is not a JSON-RPC 2.0 message with -32600", async () => {
    const { raw } = agentWithRawClient({});
    await raw.send("42");
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32600 } });
    await raw.send("[1,2]");
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32600 } });
    await raw.sendJson({ jsonrpc: "1.0", id: 7, method: "session/new", params: NEW_SESSION });
    expect(await raw.next()).toMatchObject({ id: 7, error: { code: -32600 } });
    await raw.sendJson({ jsonrpc: "2.0", id: { no: 1 }, method: "session/new" });
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32600 } });
    await raw.sendJson({ jsonrpc: "2.0", id: 8, method: 5 });
    expect(await raw.next()).toMatchObject({ id: 8, error: { code: -32600 } });
  });

  // Each surface's schema says which request ids it admits: v1's RequestId is null, an int64 or a string; v2's
  // excludes null ("Unlike base JSON-RPC, it MUST NOT be `null`"). An id outside it is not a valid request.
  const ADMITS_NULL_ID = { v1: true, "v1/unstable": true, v2: false, "v2/unstable": false } as const;
  for (const [surface, admitsNull] of Object.entries(ADMITS_NULL_ID)) {
    it(`${surface}: answers a request whose id its RequestId does not admit with -32600, echoing the id`, async () => {
      const [near, far] = inMemoryTransports();
      ENTRIES[surface as keyof typeof ENTRIES].connectAgent(near, {});
      const raw = rawPeer(far);
      await raw.sendJson({ jsonrpc: "2.0", id: null, method: "no/such", params: {} });
      expect(await raw.next()).toMatchObject({ id: null, error: { code: admitsNull ? -32601 : -32600 } });
      for (const id of [1.5, 2 ** 70, -(2 ** 70)]) {
        await raw.sendJson({ jsonrpc: "2.0", id, method: "no/such", params: {} });
        expect(await raw.next()).toMatchObject({ id, error: { code: -32600 } });
      }
      for (const id of [9, "nine", -(2 ** 53)]) {
        await raw.sendJson({ jsonrpc: "2.0", id, method: "no/such", params: {} });
        expect(await raw.next()).toMatchObject({ id, error: { code: -32601 } });
      }
    });
  }

  it("answers an unknown method, a method without handler and a method of the other side with -32601", async () => {
    const { raw } = agentWithRawClient({ initialize: () => INIT_RESULT });
    for (const [id, method] of [[1, "no/such"], [2, "session/new"], [3, "session/request_permission"], [4, "__proto__"], [5, "constructor"]] as const) {
      await raw.sendJson({ jsonrpc: "2.0", id, method, params: {} });
      expect(await raw.next()).toMatchObject({ id, error: { code: -32601 } });
    }
  });

  it("answers invalid params with -32602 and JSON pointers in data.issues; the handler is not called", async () => {
    let called = false;
    const { raw } = agentWithRawClient({ "session/new": () => ((called = true), { sessionId: "s" }) });
    await raw.sendJson({ jsonrpc: "2.0", id: "a", method: "session/new", params: { cwd: 5 } });
    const answer = await raw.next();
    expect(answer).toMatchObject({ id: "a", error: { code: -32602 } });
    expect(answer.error.data.issues).toContainEqual(expect.objectContaining({ path: "/cwd" }));
    expect(called).toBe(false);
  });

  it("answers with the RequestError a handler throws, and -32603 without a stack for anything else", async () => {
    const { raw } = agentWithRawClient({
      "session/new": () => {
        throw RequestError.authenticationRequired("log in first", { hint: "auth" });
      },
      "session/prompt": async () => {
        throw new TypeError("boom");
      },
    });
    await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "session/new", params: NEW_SESSION });
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "log in first", data: { hint: "auth" } } });
    await raw.sendJson({ jsonrpc: "2.0", id: 2, method: "session/prompt", params: PROMPT });
    const answer = await raw.next();
    expect(answer).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32603, message: "boom" } });
    expect(JSON.stringify(answer)).not.toMatch(/at |\.ts:/);
  });

  it("answers -32603 with a fixed message when a handler throws what String() cannot convert", async () => {
    const messageThrows = new Error("x");
    Object.defineProperty(messageThrows, "message", { get: () => { throw new Error("message getter"); } });
    const thrown: Record<string, unknown> = {
      "Object.create(null)": Object.create(null),
      "a throwing toString": { toString: () => { throw new Error("toString"); } },
      "an Error whose message getter throws": messageThrows,
    };
    for (const [name, value] of Object.entries(thrown)) {
      const unhandled = await unhandledDuring(async () => {
        const { raw } = agentWithRawClient({ "session/new": () => { throw value; } });
        await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "session/new", params: NEW_SESSION });
        expect(await nextWithin(raw), name).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "an error that cannot be converted to a string" } });
      });
      expect(unhandled, name).toEqual([]);
    }
  });

  it("finds handlers on the prototype (a class instance, Object.create(base)) and calls them with the handlers object as this", async () => {
    class Agent {
      sessions = 0;
      cancelled: string[] = [];
      "session/new"(): { sessionId: string } {
        return { sessionId: `s${++this.sessions}` };
      }
      "session/cancel"({ sessionId }: { sessionId: string }): void {
        this.cancelled.push(sessionId);
      }
    }
    const agent = new Agent();
    const { raw } = agentWithRawClient(agent);
    await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "session/new", params: NEW_SESSION });
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: 1, result: { sessionId: "s1" } });
    await raw.sendJson({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s1" } });
    await settle();
    expect(agent.cancelled).toEqual(["s1"]);

    const derived = agentWithRawClient(Object.create({ "session/new": () => ({ sessionId: "base" }) }));
    await derived.raw.sendJson({ jsonrpc: "2.0", id: 2, method: "session/new", params: NEW_SESSION });
    expect(await derived.raw.next()).toEqual({ jsonrpc: "2.0", id: 2, result: { sessionId: "base" } });
  });

  it("answers -32603 when reading a request's handler throws (a getter), and reports a notification's", async () => {
    const handlers = {
      get "session/new"(): never {
        throw new Error("request getter");
      },
      get "session/cancel"(): never {
        throw new Error("notification getter");
      },
    };
    const unhandled = await unhandledDuring(async () => {
      const { raw, errors } = agentWithRawClient(handlers);
      const batch = [
        { jsonrpc: "2.0", id: 1, method: "session/new", params: NEW_SESSION },
        { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s" } },
        { jsonrpc: "2.0", id: 2, method: "session/new", params: NEW_SESSION },
      ];
      await Promise.all(batch.map((message) => raw.sendJson(message))); // delivered as one batch
      expect([await nextWithin(raw), await nextWithin(raw)]).toEqual([1, 2].map((id) => ({ jsonrpc: "2.0", id, error: { code: -32603, message: "request getter" } })));
      expect(errors.map((e) => e.message)).toEqual(["notification getter"]);
    });
    expect(unhandled).toEqual([]);
  });

  it("never answers a notification, also with invalid params or an unknown method (onError instead)", async () => {
    const seen: unknown[] = [];
    const { raw, errors } = agentWithRawClient({ "session/cancel": (p) => void seen.push(p) });
    await raw.sendJson({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: 5 } });
    await raw.sendJson({ jsonrpc: "2.0", method: "no/such", params: {} });
    await raw.sendJson({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s1" } });
    await settle();
    expect(raw.received).toEqual([]);
    expect(seen).toEqual([{ sessionId: "s1" }]);
    expect(errors.map((e) => (e as RequestError).code)).toEqual([-32602, -32601]);
  });

  it("never answers a response, also a malformed one; one without jsonrpc \"2.0\" rejects its request with -32603", async () => {
    const { client, raw, errors } = agentWithRawClient({});
    const permission = client.request("session/request_permission", PERMISSION).catch((error: unknown) => error);
    const request = await raw.next();
    await raw.sendJson({ id: request.id, result: { outcome: { outcome: "cancelled" } } });
    expect(await nextWithin(raw)).toBe("no answer");
    expect(await permission).toMatchObject({ code: -32603, message: 'invalid response to session/request_permission: jsonrpc must be "2.0"' });
    await raw.sendJson({ jsonrpc: "2.0", id: 77, result: {}, method: null });
    await raw.sendJson({ jsonrpc: "1.0", id: 5, error: { code: 1, message: "x" } });
    await raw.sendJson({ jsonrpc: "2.0", id: { not: "an id" }, result: {} });
    expect(await nextWithin(raw)).toBe("no answer");
    expect(errors.map((e) => e.message)).toEqual(["response with unknown id 77", "response with unknown id 5", 'response with unknown id {"not":"an id"}']);
  });

  it("reports a response with an unknown id instead of throwing", async () => {
    const { raw, errors } = agentWithRawClient({});
    await raw.sendJson({ jsonrpc: "2.0", id: 999, result: {} });
    await raw.sendJson({ jsonrpc: "2.0", id: "x", result: {} });
    await settle();
    expect(errors.map((e) => e.message)).toEqual(["response with unknown id 999", 'response with unknown id "x"']);
  });
});

describe("lines read together (LineSink.lines)", () => {
  /** A transport whose sink the test drives by hand; it logs what the connection writes as `["wrote", message]`. */
  function drivenTransport(log: unknown[]) {
    let sink!: Parameters<Transport["start"]>[0];
    const transport: Transport = {
      start: (s) => void (sink = s),
      send: (line) => (log.push(["wrote", JSON.parse(line)]), Promise.resolve()),
      close() {},
    };
    return { transport, sink: () => sink };
  }

  const LINES = [
    "{not json",
    "[1,2]",
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: NEW_SESSION }),
    JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: 5 } }),
    JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s1" } }),
    JSON.stringify({ jsonrpc: "2.0", id: 99, result: {} }),
    JSON.stringify({ jsonrpc: "2.0", id: 2, method: "no/such", params: {} }),
    JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: 5 } }),
    JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s2" } }),
  ];

  /** Feeds `lines` to a fresh agent, one `line` call each or as one `lines` batch; what it wrote, reported and handled, in one log. */
  async function run(feed: "one by one" | "one batch", lines: readonly string[], closeOn?: string) {
    const log: unknown[] = [];
    const { transport, sink } = drivenTransport(log);
    const client = connectAgent(
      transport,
      {
        "session/new": (params) => (log.push(["new", params]), { sessionId: "s1" }),
        "session/cancel": (params) => {
          log.push(["cancel", params]);
          if (params.sessionId === closeOn) client.close();
        },
      },
      { onError: (error) => void log.push(["error", error.message]) },
    );
    if (feed === "one batch") sink().lines!(lines);
    else for (const line of lines) sink().line(line);
    await settle();
    return log;
  }

  it("a batch gives what its lines give one by one: the same answers, reports and handler calls, in the same order", async () => {
    const alone = await run("one by one", LINES);
    const wrote = alone.filter((e) => (e as unknown[])[0] === "wrote").map((e) => (e as [string, { error?: { code: number } }])[1]);
    expect(wrote.map((m) => m.error?.code ?? "result")).toEqual([-32700, -32600, -32601, -32602, "result"]); // a request's answer waits for its handler's promise
    expect(alone.filter((e) => (e as unknown[])[0] !== "wrote")).toEqual([
      ["new", NEW_SESSION],
      ["error", expect.stringContaining("Invalid params for session/cancel")],
      ["cancel", { sessionId: "s1" }],
      ["error", "response with unknown id 99"],
      ["cancel", { sessionId: "s2" }],
    ]);
    expect(await run("one batch", LINES)).toEqual(alone);
  });

  it("handles no line of a batch after a handler closed the connection, as none after it one by one", async () => {
    const lines = ["s1", "s2", "s3"].map((sessionId) => JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } }));
    const alone = await run("one by one", lines, "s2");
    expect(alone).toEqual([["cancel", { sessionId: "s1" }], ["cancel", { sessionId: "s2" }]]);
    expect(await run("one batch", lines, "s2")).toEqual(alone);
  });
});

describe("what cannot be sent", () => {
  it("answers -32603 when a handler's result is not JSON (BigInt), and the connection goes on", async () => {
    const { raw } = agentWithRawClient({ "session/new": () => ({ sessionId: "s", extra: 1n }) as never }, { validateOutgoing: false });
    await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "session/new", params: NEW_SESSION });
    expect(await raw.next()).toMatchObject({ id: 1, error: { code: -32603, message: expect.stringContaining("not serialisable") } });
  });

  it("answers -32603 without data when a thrown error cannot be sent as it is: data not JSON, a code not an integer, a message not a string", async () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const codeThrows = new RequestError(-32000, "code getter");
    Object.defineProperty(codeThrows, "code", { get: () => { throw new Error("code"); } });
    const objectMessage = new RequestError(-32000, "x");
    (objectMessage as { message: unknown }).message = { not: "a string" };
    const bigMessage = new Error("x");
    (bigMessage as { message: unknown }).message = 10n;
    const cases: [unknown, string | RegExp][] = [
      [new RequestError(-32000, "auth", { n: 1n }), /^Internal error: the error is not serialisable as JSON: .*BigInt/],
      [new RequestError(-32000, "auth", cycle), /^Internal error: the error is not serialisable as JSON: .*circular/],
      [new RequestError(NaN, "NaN code"), "NaN code"],
      [new RequestError(1.5, "fraction code"), "fraction code"],
      [new RequestError("x" as never, "string code", { kept: false }), "string code"],
      [objectMessage, "[object Object]"],
      [codeThrows, "code getter"],
      [bigMessage, "10"],
    ];
    for (const [value, message] of cases) {
      const unhandled = await unhandledDuring(async () => {
        const { raw } = agentWithRawClient({ "session/new": async () => { throw value; } });
        await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "session/new", params: NEW_SESSION });
        const answer = await nextWithin(raw);
        expect(answer, String(message)).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: typeof message === "string" ? message : expect.stringMatching(message) } });
      });
      expect(unhandled).toEqual([]);
    }
  });

  it("a custom transport whose send throws or returns no promise: request and notify reject with -32603, the request is not kept", async () => {
    for (const [name, send] of [
      ["throws", () => { throw new Error("send threw"); }],
      ["returns undefined", () => undefined],
    ] as const) {
      let sink!: Parameters<Transport["start"]>[0];
      const transport = { start: (s: typeof sink) => void (sink = s), send, close() {} } as unknown as Transport;
      const errors: string[] = [];
      const client = connectAgent(transport, {}, { onError: (e) => void errors.push(e.message) });
      const update = { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text: "x" } } } as const;
      if (name === "throws") {
        expect(await outcome(() => client.notify("session/update", update))).toMatchObject({ code: -32603, message: "could not send session/update: send threw" });
        expect(await outcome(() => client.request("session/request_permission", PERMISSION))).toMatchObject({ code: -32603, message: "could not send session/request_permission: send threw" });
      } else {
        expect(await outcome(() => client.notify("session/update", update))).toBe("resolved");
        void client.request("session/request_permission", PERMISSION);
        await settle();
      }
      // The request's entry is gone once it failed (or it stays pending until answered).
      sink.line(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { outcome: { outcome: "cancelled" } } }));
      expect(errors, name).toEqual(name === "throws" ? ["response with unknown id 1"] : []);
    }
  });

  it("rejects request and notify of a method the peer does not handle, and a malformed error response", async () => {
    const { client, raw } = agentWithRawClient({});
    await expect(client.request("session/new" as never, NEW_SESSION as never)).rejects.toMatchObject({ code: -32601 });
    await expect(client.notify("session/cancel" as never, {} as never)).rejects.toMatchObject({ code: -32601 });
    const permission = client.request("session/request_permission", PERMISSION);
    const request = await raw.next();
    await raw.sendJson({ jsonrpc: "2.0", id: request.id, error: { code: "bad" } });
    await expect(permission).rejects.toMatchObject({ code: -32603, message: "malformed error response to session/request_permission" });
  });
});

describe("extension methods", () => {
  it("routes _-prefixed requests and notifications to the ext hooks; without a hook a request gets -32601", async () => {
    const notes: unknown[] = [];
    const { raw } = agentWithRawClient(
      {},
      { onExtRequest: (method, params) => ({ method, params }), onExtNotification: (method, params) => void notes.push([method, params]) },
    );
    await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "_acme/echo", params: { a: 1 } });
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: 1, result: { method: "_acme/echo", params: { a: 1 } } });
    await raw.sendJson({ jsonrpc: "2.0", method: "_acme/ping", params: [1] });
    await settle();
    expect(notes).toEqual([["_acme/ping", [1]]]);

    const bare = agentWithRawClient({});
    await bare.raw.sendJson({ jsonrpc: "2.0", id: 2, method: "_acme/echo", params: {} });
    expect(await bare.raw.next()).toMatchObject({ id: 2, error: { code: -32601 } });
  });

  it("sends ext requests and notifications from the peer", async () => {
    const { client, raw } = agentWithRawClient({});
    const answer = client.extRequest("_acme/echo", { a: 1 });
    const request = await raw.next();
    expect(request).toEqual({ jsonrpc: "2.0", id: request.id, method: "_acme/echo", params: { a: 1 } });
    await raw.sendJson({ jsonrpc: "2.0", id: request.id, result: { ok: true } });
    expect(await answer).toEqual({ ok: true });
    await client.extNotify("_acme/ping", null);
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", method: "_acme/ping", params: null });
  });
});

describe("ordering and concurrency", () => {
  it("runs notification handlers one at a time in arrival order, even when they are async", async () => {
    const order: string[] = [];
    const { raw } = agentWithRawClient({
      "session/cancel": async ({ sessionId }) => {
        order.push(`start ${sessionId}`);
        await new Promise((resolve) => setTimeout(resolve, sessionId === "a" ? 20 : 1));
        order.push(`end ${sessionId}`);
      },
    });
    for (const id of ["a", "b", "c"]) await raw.sendJson({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: id } });
    while (order.length < 6) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("settles a response at once, also while notifications wait behind an async handler that awaits that very request", async () => {
    const events: string[] = [];
    const { raw, client } = agentWithRawClient({
      "session/cancel": async ({ sessionId }) => {
        events.push(`start ${sessionId}`);
        if (sessionId === "a") await client.request("session/request_permission", PERMISSION).then((r) => events.push(`answered ${JSON.stringify(r.outcome)}`));
        events.push(`end ${sessionId}`);
      },
    });
    for (const id of ["a", "b"]) await raw.sendJson({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: id } });
    const asked = await nextWithin(raw);
    expect(asked.method).toBe("session/request_permission");
    await raw.sendJson({ jsonrpc: "2.0", id: asked.id, result: { outcome: { outcome: "cancelled" } } });
    for (let waited = 0; events.length < 5 && waited < 500; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(events).toEqual(["start a", 'answered {"outcome":"cancelled"}', "end a", "start b", "end b"]);
  });

  it("queues synchronous handlers behind an async one, reports a handler that throws or rejects, and goes on in order", async () => {
    const order: string[] = [];
    const { raw, errors } = agentWithRawClient({
      "session/cancel": ({ sessionId }) => {
        order.push(sessionId);
        if (sessionId === "a") return new Promise<void>((resolve) => setTimeout(resolve, 20));
        if (sessionId === "b") throw new Error("b failed");
        if (sessionId === "d") return Promise.reject(new Error("d failed"));
        return undefined;
      },
    });
    for (const id of ["a", "b", "c", "d", "e"]) await raw.sendJson({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: id } });
    // "a" is still running: the others wait behind it.
    expect(order).toEqual(["a"]);
    while (order.length < 5 || errors.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual(["a", "b", "c", "d", "e"]);
    expect(errors.map((e) => e.message)).toEqual(["b failed", "d failed"]);
    // With the queue drained, a synchronous handler runs as its line arrives.
    await raw.sendJson({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "f" } });
    expect(order).toEqual(["a", "b", "c", "d", "e", "f"]);
  });

  it("reports a notification handler throwing or rejecting with what String() cannot convert, with a fixed message", async () => {
    const { raw, errors } = agentWithRawClient({
      "session/cancel": ({ sessionId }) => {
        if (sessionId === "sync") throw Object.create(null);
        return Promise.reject(Object.create(null));
      },
    });
    for (const sessionId of ["sync", "async"]) await raw.sendJson({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } });
    await settle();
    expect(errors.map((e) => e.message)).toEqual(["an error that cannot be converted to a string", "an error that cannot be converted to a string"]);
  });

  it("goes on after a handler's odd thenable: one whose then throws, a then getter that throws, one that calls back twice", async () => {
    const order: string[] = [];
    let running = 0;
    const { raw, errors } = agentWithRawClient({
      "session/cancel": (({ sessionId }: { sessionId: string }) => {
        order.push(sessionId);
        if (running++ !== 0) order.push("ran beside another");
        const done = () => running--;
        if (sessionId === "a") {
          done();
          return { then: () => { throw new Error("then of a failed"); } };
        }
        if (sessionId === "b") {
          done();
          return { get then(): unknown { throw new Error("then getter of b failed"); } };
        }
        if (sessionId === "c") {
          return { then: (ok: () => void, fail: (e: unknown) => void) => setTimeout(() => (done(), ok(), ok(), fail(new Error("c twice"))), 10) };
        }
        done();
        return undefined;
      }) as unknown as NonNullable<AgentHandlers["session/cancel"]>,
    });
    for (const id of ["a", "b", "c", "d", "e"]) await raw.sendJson({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: id } });
    // Bounded, so a queue that stops fails here rather than at the test's timeout.
    for (let waited = 0; order.length < 5 && waited < 2000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(["a", "b", "c", "d", "e"]);
    expect(errors.map((e) => e.message)).toEqual(["then of a failed", "then getter of b failed"]);
    await raw.sendJson({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "f" } });
    expect(order).toEqual(["a", "b", "c", "d", "e", "f"]);
  });

  it("starts no queued notification handler after close()", async () => {
    const ran: string[] = [];
    const { client, raw } = agentWithRawClient({
      "session/cancel": async ({ sessionId }) => {
        ran.push(sessionId);
        await new Promise((resolve) => setTimeout(resolve, 10));
      },
    });
    for (const sessionId of ["a", "b", "c"]) await raw.sendJson({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } });
    await settle();
    client.close();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(ran).toEqual(["a"]);
  });

  it("handles requests concurrently: a handler waiting for a later request does not block it", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { agent } = pair({
      "session/new": async ({ cwd }) => {
        if (cwd === "/first") await released;
        else release();
        return { sessionId: cwd };
      },
    });
    const results = await Promise.all([agent.request("session/new", { cwd: "/first" }), agent.request("session/new", { cwd: "/second" })]);
    expect(results).toEqual([{ sessionId: "/first" }, { sessionId: "/second" }]);
  });

  it("correlates 1,000 concurrent requests answered out of order", async () => {
    const { agent } = pair({
      "session/new": async ({ cwd }) => {
        await new Promise((resolve) => setTimeout(resolve, Number(cwd.slice(1)) % 7));
        return { sessionId: `s${cwd}` };
      },
    });
    const cwds = Array.from({ length: 1000 }, (_, i) => `/${i}`);
    const results = await Promise.all(cwds.map((cwd) => agent.request("session/new", { cwd })));
    expect(results.map((r) => r.sessionId)).toEqual(cwds.map((cwd) => `s${cwd}`));
  });
});

describe("outgoing validation", () => {
  it("rejects invalid outgoing params without writing them; validateOutgoing: false writes them", async () => {
    const { client, raw } = agentWithRawClient({});
    const bad = { sessionId: "s", title: 5, options: [] } as never;
    await expect(client.request("session/request_permission", bad)).rejects.toMatchObject({ code: -32602, data: { issues: [expect.objectContaining({ path: "/title" })] } });
    await expect(client.notify("session/update", { sessionId: "s" } as never)).rejects.toMatchObject({ code: -32602 });
    await settle();
    expect(raw.received).toEqual([]);

    const loose = agentWithRawClient({}, { validateOutgoing: false });
    void loose.client.notify("session/update", { sessionId: "s" } as never);
    expect(await loose.raw.next()).toEqual({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s" } });
  });

  it("request and notify reject, never throw, on params with a throwing getter or Proxy and on a signal whose getter throws", async () => {
    const { client, raw } = agentWithRawClient({});
    const getter = { ...PERMISSION, get title(): string { throw new Error("title getter"); } };
    const proxy = new Proxy({}, { get: () => { throw new Error("proxy get"); }, has: () => { throw new Error("proxy has"); }, ownKeys: () => { throw new Error("proxy keys"); } });
    const badSignal = { get aborted(): boolean { throw new Error("aborted getter"); }, addEventListener() {}, removeEventListener() {} };
    expect(await outcome(() => client.request("session/request_permission", getter))).toMatchObject({ code: -32602, message: "invalid params of session/request_permission: title getter" });
    expect(await outcome(() => client.notify("session/update", proxy as never))).toMatchObject({ code: -32602, message: expect.stringMatching(/^invalid params of session\/update: proxy/) });
    expect(await outcome(() => client.request("session/request_permission", PERMISSION, { signal: badSignal }))).toMatchObject({ code: -32603, message: "could not send session/request_permission: aborted getter" });
    expect(await outcome(() => client.extRequest("_acme/x", {}, { signal: badSignal }))).toMatchObject({ code: -32603 });
    await settle();
    expect(raw.received).toEqual([]);
  });

  it("settles a request whose signal's removeEventListener throws, and nothing throws out of the transport's sink", async () => {
    let sink!: Parameters<Transport["start"]>[0];
    const transport: Transport = { start: (s) => void (sink = s), send: () => Promise.resolve(), close() {} };
    const client = connectAgent(transport, {});
    const signal = { aborted: false, addEventListener() {}, removeEventListener: () => { throw new Error("remove"); } };
    const permission = client.request("session/request_permission", PERMISSION, { signal });
    expect(() => sink.line(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { outcome: { outcome: "cancelled" } } }))).not.toThrow();
    expect(await permission).toEqual({ outcome: { outcome: "cancelled" } });
  });

  it("turns an invalid handler result into -32603 with data.issues; validateOutgoing: false sends it", async () => {
    const handlers: AgentHandlers = { "session/new": () => ({ sessionId: 42 }) as never };
    const strict = agentWithRawClient(handlers);
    await strict.raw.sendJson({ jsonrpc: "2.0", id: 1, method: "session/new", params: NEW_SESSION });
    const answer = await strict.raw.next();
    expect(answer).toMatchObject({ id: 1, error: { code: -32603, data: { issues: [expect.objectContaining({ path: "/sessionId" })] } } });

    const loose = agentWithRawClient(handlers, { validateOutgoing: false });
    await loose.raw.sendJson({ jsonrpc: "2.0", id: 1, method: "session/new", params: NEW_SESSION });
    expect(await loose.raw.next()).toEqual({ jsonrpc: "2.0", id: 1, result: { sessionId: 42 } });
  });

  it("decodes results with the tolerant parser and rejects a result it cannot decode", async () => {
    const { client, raw } = agentWithRawClient({});
    const permission = client.request("session/request_permission", PERMISSION);
    const request = await raw.next();
    await raw.sendJson({ jsonrpc: "2.0", id: request.id, result: { nope: true } });
    await expect(permission).rejects.toMatchObject({ code: -32603, data: { issues: expect.any(Array) } });
  });

  it("rejects with the peer's error as a RequestError carrying code, message and data", async () => {
    const { agent } = pair({ "session/new": () => Promise.reject(RequestError.resourceNotFound("gone", { uri: "file:///x" })) });
    const error = await agent.request("session/new", NEW_SESSION).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({ code: -32002, message: "gone", data: { uri: "file:///x" } });
  });
});

describe("cancellation", () => {
  it("an aborted request sends $/cancel_request and rejects with -32800; the late answer is dropped", async () => {
    const { client, raw, errors } = agentWithRawClient({});
    const controller = new AbortController();
    const permission = client.request("session/request_permission", PERMISSION, { signal: controller.signal });
    const request = await raw.next();
    controller.abort();
    await expect(permission).rejects.toMatchObject({ code: -32800 });
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: request.id } });
    await raw.sendJson({ jsonrpc: "2.0", id: request.id, error: { code: -32800, message: "cancelled" } });
    await settle();
    expect(errors).toEqual([]);
  });

  it("a request with an already aborted signal is not sent", async () => {
    const { client, raw } = agentWithRawClient({});
    await expect(client.request("session/request_permission", PERMISSION, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: -32800 });
    await settle();
    expect(raw.received).toEqual([]);
  });

  it("an incoming $/cancel_request aborts the handler's signal; rejecting after it answers -32800", async () => {
    let aborted = false;
    const { agent } = pair({
      "session/prompt": (_params, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("stopped"));
          });
        }),
    });
    const controller = new AbortController();
    const prompt = agent.request("session/prompt", PROMPT, { signal: controller.signal });
    await settle();
    controller.abort();
    await expect(prompt).rejects.toMatchObject({ code: -32800 });
    await settle();
    expect(aborted).toBe(true);
  });

  it("answers -32800 on the wire when the handler gives up after $/cancel_request", async () => {
    const { raw } = agentWithRawClient({
      "session/prompt": (_params, { signal }) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("stopped")))),
    });
    await raw.sendJson({ jsonrpc: "2.0", id: 3, method: "session/prompt", params: PROMPT });
    await raw.sendJson({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 3 } });
    expect(await raw.next()).toMatchObject({ id: 3, error: { code: -32800 } });
  });

  it("a request reusing an id still in flight stays cancellable after the first one is answered", async () => {
    const { raw } = agentWithRawClient({
      "session/prompt": ({ sessionId }, { signal }) =>
        new Promise((resolve, reject) => {
          signal.addEventListener("abort", () => reject(new Error("stopped")));
          if (sessionId === "first") setTimeout(() => resolve({ messageId: "m1" }), 10);
        }),
    });
    await raw.sendJson({ jsonrpc: "2.0", id: 7, method: "session/prompt", params: { ...PROMPT, sessionId: "first" } });
    await raw.sendJson({ jsonrpc: "2.0", id: 7, method: "session/prompt", params: { ...PROMPT, sessionId: "second" } });
    expect(await raw.next()).toEqual({ jsonrpc: "2.0", id: 7, result: { messageId: "m1" } });
    await raw.sendJson({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 7 } });
    expect(await nextWithin(raw)).toMatchObject({ id: 7, error: { code: -32800 } });
  });
});

describe("closing", () => {
  it("a peer closing mid-request rejects the pending requests and settles closed on both ends", async () => {
    const { agent, client } = pair({ "session/prompt": () => new Promise(() => {}) });
    const prompt = agent.request("session/prompt", PROMPT);
    await settle();
    client.close();
    await expect(prompt).rejects.toBeInstanceOf(RequestError);
    await Promise.all([agent.closed, client.closed]);
    await expect(agent.request("session/new", NEW_SESSION)).rejects.toMatchObject({ message: "connection closed" });
  });

  it("close() aborts the signals of the handlers still running", async () => {
    let aborted = false;
    const { agent, client } = pair({
      "session/prompt": (_p, { signal }) => new Promise(() => signal.addEventListener("abort", () => (aborted = true))),
    });
    void agent.request("session/prompt", PROMPT).catch(() => {});
    await settle();
    client.close();
    expect(aborted).toBe(true);
  });

  it("close() aborts the signal of a notification handler still running", async () => {
    let aborted = false;
    const { client, raw } = agentWithRawClient({
      "session/cancel": (_params, { signal }) => new Promise<void>((resolve) => signal.addEventListener("abort", () => ((aborted = true), resolve()))),
    });
    await raw.sendJson({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s" } });
    await settle();
    client.close();
    expect(aborted).toBe(true);
  });

  it("a custom transport whose start throws: connect does not throw, the error is reported and the connection is closed", async () => {
    const transport = { start: () => { throw new Error("start threw"); }, send: () => Promise.resolve(), close() {} } as Transport;
    const errors: string[] = [];
    const client = connectAgent(transport, {}, { onError: (e) => void errors.push(e.message) });
    await client.closed;
    expect(errors).toEqual(["start threw"]);
    await expect(client.request("session/request_permission", PERMISSION)).rejects.toMatchObject({ message: "connection closed" });
  });

  it("close() of a custom transport whose close throws: reported, and the connection closes all the same", async () => {
    const transport = { start() {}, send: () => Promise.resolve(), close: () => { throw new Error("close threw"); } } as Transport;
    const errors: string[] = [];
    const client = connectAgent(transport, {}, { onError: (e) => void errors.push(e.message) });
    const permission = client.request("session/request_permission", PERMISSION).catch((error: unknown) => error);
    expect(() => client.close()).not.toThrow();
    expect(await permission).toMatchObject({ code: -32603, message: "connection closed" });
    await client.closed;
    expect(errors).toEqual(["close threw"]);
  });
});

describe("RequestError and PROTOCOL_VERSION", () => {
  it("has one static constructor per ErrorCode of the schema, named from its title", () => {
    const cases: [RequestError, number, string][] = [
      [RequestError.parseError(), -32700, "Parse error"],
      [RequestError.invalidRequest(), -32600, "Invalid request"],
      [RequestError.methodNotFound(), -32601, "Method not found"],
      [RequestError.invalidParams(), -32602, "Invalid params"],
      [RequestError.internalError(), -32603, "Internal error"],
      [RequestError.requestCancelled(), -32800, "Request cancelled"],
      [RequestError.authenticationRequired(), -32000, "Authentication required"],
      [RequestError.resourceNotFound(), -32002, "Resource not found"],
    ];
    for (const [error, code, message] of cases) {
      expect(error).toBeInstanceOf(Error);
      expect({ code: error.code, message: error.message, data: error.data }).toEqual({ code, message, data: undefined });
    }
    expect(new RequestError(-1, "m", { x: 1 })).toMatchObject({ code: -1, message: "m", data: { x: 1 } });
  });

  it("exports the protocol version of each surface", () => {
    expect([ENTRIES.v1.PROTOCOL_VERSION, ENTRIES["v1/unstable"].PROTOCOL_VERSION, PROTOCOL_VERSION, ENTRIES["v2/unstable"].PROTOCOL_VERSION]).toEqual([1, 1, 2, 2]);
  });

  it("v2 unstable has a proxy end; v1 has none", () => {
    expect(typeof v2Unstable.connectProxy).toBe("function");
    expect("connectProxy" in v1).toBe(false);
  });
});

describe("createSessionStore", () => {
  const chunk = (text: string): SessionUpdate => ({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text } });

  it("as the session/update handler, the store applies a permission request's tool call before the request's handler runs (S4)", async () => {
    const sessions = createSessionStore();
    const [near, far] = inMemoryTransports();
    const seenByHandler: unknown[] = [];
    connectClient(near, {
      "session/update": sessions.update,
      "session/request_permission": () => {
        seenByHandler.push(sessions.get("s")?.toolCalls.get("t9"));
        return { outcome: { outcome: "cancelled" } };
      },
    });
    const raw = rawPeer(far);
    const toolCall = { toolCallId: "t9", title: "Edit a.ts", kind: "edit" };
    await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "session/request_permission", params: { ...PERMISSION, subject: { type: "tool_call", toolCall } } });
    expect((await raw.next()).result).toEqual({ outcome: { outcome: "cancelled" } });
    expect(seenByHandler).toEqual([expect.objectContaining({ ...toolCall, status: "pending" })]);
  });

  it("as the session/update handler, the store takes the first lists of a session/new or resume result in line order (S20): a later update wins", async () => {
    const sessions = createSessionStore();
    const [near, far] = inMemoryTransports();
    const agent = connectClient(near, { "session/update": sessions.update });
    const raw = rawPeer(far);
    const commands = (name: string) => [{ type: "command", name, description: name }];
    const opening = agent.request("session/new", NEW_SESSION);
    const asked = await raw.next();
    // The result and a newer update arrive together: both lines are handled before the caller resumes.
    void raw.sendJson({ jsonrpc: "2.0", id: asked.id, result: { sessionId: "s2", availableCommands: commands("old"), configOptions: null } });
    void raw.sendJson({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s2", update: { sessionUpdate: "available_commands_update", availableCommands: commands("newer") } } });
    await opening;
    expect(sessions.get("s2")?.availableCommands).toEqual(commands("newer"));
    expect(sessions.get("s2")?.configOptions).toBeUndefined();
    // resume: the session id is the params'; null lists are nothing.
    const resuming = agent.request("session/resume", { sessionId: "s3", cwd: "/work" });
    const resume = await raw.next();
    await raw.sendJson({ jsonrpc: "2.0", id: resume.id, result: { availableCommands: commands("resumed"), configOptions: null } });
    await resuming;
    expect(sessions.get("s3")?.availableCommands).toEqual(commands("resumed"));
  });

  it("folds session/update notifications per session with reduceSession; get and subscribe", async () => {
    const sessions = createSessionStore();
    const { client } = pair({}, { "session/update": sessions.update });
    const seen: string[] = [];
    const stop = sessions.subscribe((sessionId) => seen.push(sessionId));
    await client.notify("session/update", { sessionId: "s1", update: chunk("Hel") });
    await client.notify("session/update", { sessionId: "s2", update: chunk("Other") });
    await client.notify("session/update", { sessionId: "s1", update: chunk("lo") });
    await settle();
    stop();
    await client.notify("session/update", { sessionId: "s1", update: chunk("!") });
    await settle();
    expect(seen).toEqual(["s1", "s2", "s1"]);
    expect(sessions.get("s3")).toBeUndefined();
    const message = sessions.get("s1")!.agentMessages.get("m1") as { content: unknown[] };
    expect(message.content).toEqual(["Hel", "lo", "!"].map((text) => ({ type: "text", text })));
  });
});
