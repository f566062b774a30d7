/**
 * Bytes to state without a copy (issue 11): the connection owns the tree
 * `JSON.parse` made of each line, so it decodes notifications with `parseOwned`
 * (the tree itself comes back when `parse` would change nothing; requests and
 * results keep `parse`, see README "Benchmark: the connection against the SDK's"),
 * and hands a `session/update` to the session store's own handler, which then
 * reduces it with `reduceSessionOwned`. A caller of `sessions.update` keeps
 * the copying path: its object is never frozen nor changed, and later changes
 * to it never reach the state. Identity is observed on the trees `JSON.parse`
 * returned inside the connection (a spy on `JSON.parse`), so no test-only code
 * path exists in the generated package.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  connectAgent,
  connectClient,
  createSessionStore,
  emptySessionState,
  inMemoryTransports,
  reduceSession,
  sessionStateToJSON,
  type SessionUpdate,
  type UpdateSessionNotification,
} from "../generated/src/v2/index.js";
import { rawPeer, settle } from "./support/raw-peer.js";

type Json = Record<string, any>;

/** Records every value `JSON.parse` returns from now on (the connection's trees among them). */
function recordParsedTrees(): Json[] {
  const trees: Json[] = [];
  const parse = JSON.parse;
  vi.spyOn(JSON, "parse").mockImplementation((text: string, reviver?: (this: any, key: string, value: any) => any) => {
    const tree = parse(text, reviver);
    trees.push(tree);
    return tree;
  });
  return trees;
}

afterEach(() => vi.restoreAllMocks());

/** A client end under test, driven by a raw agent that writes lines by hand. */
function clientWithRawAgent(handlers: Parameters<typeof connectClient>[1]) {
  const [near, far] = inMemoryTransports();
  const errors: Error[] = [];
  const agent = connectClient(near, handlers, { onError: (e) => errors.push(e) });
  return { agent, raw: rawPeer(far), errors };
}

const toolCall = (rawInput: Json): SessionUpdate => ({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Read", rawInput });
const chunk = (text: string): SessionUpdate => ({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text } });
const notification = (params: UpdateSessionNotification) => ({ jsonrpc: "2.0", method: "session/update", params });

/** Whether `value` or anything inside it is frozen (an iterative walk). */
function anythingFrozen(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next !== "object" || next === null) continue;
    if (Object.isFrozen(next)) return true;
    stack.push(...Object.values(next));
  }
  return false;
}

/** The tree the connection parsed for the `session/update` whose tool call input is `marker`. */
function wireUpdate(trees: readonly Json[], marker: string): Json {
  const found = trees.find((tree) => tree?.method === "session/update" && tree.params?.update?.rawInput?.marker === marker);
  if (found === undefined) throw new Error(`no parsed session/update with marker ${marker}`);
  return found.params.update;
}

describe("the connection decodes the notifications it parsed without copying them (parseOwned)", () => {
  it("hands a notification's params to its handler as the tree JSON.parse made", async () => {
    let received: unknown;
    const { raw, errors } = clientWithRawAgent({ "session/update": (params) => void (received = params) });
    const trees = recordParsedTrees();
    await raw.sendJson(notification({ sessionId: "s1", update: toolCall({ marker: "handler" }) }));
    await settle();
    expect(errors).toEqual([]);
    expect(received).toBe(trees.find((tree) => tree?.method === "session/update")!.params);
  });

  it("decodes requests and results as parse does (a copy, README: the bundle decision)", async () => {
    const [near, far] = inMemoryTransports();
    let received: unknown;
    connectAgent(near, { "session/new": (params) => ((received = params), { sessionId: "s1" }) });
    const agent = connectClient(far, {});
    const trees = recordParsedTrees();
    const result = await agent.request("session/new", { cwd: "/work" });
    expect(result).toEqual({ sessionId: "s1" });
    expect(received).toEqual({ cwd: "/work" });
    expect(received).not.toBe(trees.find((tree) => tree?.method === "session/new")!.params);
  });

  it("hands over parse's value when parse changes a notification, and reports what parse rejects", async () => {
    const seen: unknown[] = [];
    const { raw, errors } = clientWithRawAgent({ "session/update": (params) => void seen.push(params) });
    await raw.sendJson(notification({ sessionId: "s1", update: chunk("hi"), extra: 1 } as UpdateSessionNotification));
    await raw.sendJson(notification({ sessionId: 5, update: chunk("hi") } as unknown as UpdateSessionNotification));
    await settle();
    expect(seen).toEqual([{ sessionId: "s1", update: chunk("hi") }]);
    expect(errors).toEqual([expect.objectContaining({ code: -32602, data: { issues: [expect.objectContaining({ path: "/sessionId" })] } })]);
  });

  it("still returns parse's value when parse changes a request, and -32602 with issues when it fails", async () => {
    let received: unknown;
    const { raw } = clientWithRawAgent({ "session/request_permission": (params) => ((received = params), { outcome: { outcome: "cancelled" } }) });
    await raw.sendJson({ jsonrpc: "2.0", id: 1, method: "session/request_permission", params: { sessionId: "s", title: "t", options: [], extra: 1 } });
    await raw.next();
    expect(received).toEqual({ sessionId: "s", title: "t", options: [] });
    await raw.sendJson({ jsonrpc: "2.0", id: 2, method: "session/request_permission", params: { title: "t" } });
    const answer = await raw.next();
    expect(answer).toMatchObject({ id: 2, error: { code: -32602, data: { issues: [expect.objectContaining({ path: expect.any(String) })] } } });
  });
});

describe("the session store: trusted when the connection hands it an update, copying for its other callers", () => {
  it("stores the values of a session/update from the connection without a copy", async () => {
    const sessions = createSessionStore();
    const { raw, errors } = clientWithRawAgent({ "session/update": sessions.update });
    const trees = recordParsedTrees();
    await raw.sendJson(notification({ sessionId: "s1", update: toolCall({ marker: "wire", path: "/a" }) }));
    await settle();
    expect(errors).toEqual([]);
    const stored = sessions.get("s1")!.toolCalls.get("t1") as Json;
    expect(stored.rawInput).toBe(wireUpdate(trees, "wire").rawInput);
  });

  it("copies when the update reaches the store through a handler of the user's", async () => {
    const sessions = createSessionStore();
    const kept: UpdateSessionNotification[] = [];
    const { raw } = clientWithRawAgent({ "session/update": (params) => (kept.push(params), sessions.update(params)) });
    const trees = recordParsedTrees();
    await raw.sendJson(notification({ sessionId: "s1", update: toolCall({ marker: "mine", path: "/a" }) }));
    await settle();
    const stored = sessions.get("s1")!.toolCalls.get("t1") as Json;
    expect(stored.rawInput).toEqual({ marker: "mine", path: "/a" });
    expect(stored.rawInput).not.toBe(wireUpdate(trees, "mine").rawInput);
    expect(anythingFrozen(kept)).toBe(false);
  });

  it("never freezes nor changes a caller's object, and its later changes never reach the state", () => {
    const sessions = createSessionStore();
    const mine = { sessionId: "s1", update: toolCall({ marker: "caller", nested: { list: [1, 2] } }) };
    const before = structuredClone(mine);
    sessions.update(mine);
    const stored = sessions.get("s1")!.toolCalls.get("t1") as Json;
    expect(stored.rawInput).toEqual({ marker: "caller", nested: { list: [1, 2] } });
    expect(anythingFrozen(mine)).toBe(false);
    expect(mine).toEqual(before);
    (mine.update as Json).rawInput.nested.list.push(3);
    (mine.update as Json).title = "changed";
    expect(sessions.get("s1")!.toolCalls.get("t1")).toMatchObject({ title: "Read", rawInput: { nested: { list: [1, 2] } } });
  });

  it("folds a stream from the connection into the same states as reduceSession", async () => {
    const sessions = createSessionStore();
    const [near, far] = inMemoryTransports();
    const client = connectAgent(near, {});
    connectClient(far, { "session/update": sessions.update });
    const updates: UpdateSessionNotification[] = [
      { sessionId: "s1", update: chunk("Hel") },
      { sessionId: "s2", update: toolCall({ marker: "a" }) },
      { sessionId: "s1", update: chunk("lo") },
      { sessionId: "s2", update: { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed", rawInput: null } },
      { sessionId: "s1", update: { sessionUpdate: "agent_thought_chunk", messageId: "th1", content: { type: "text", text: "hmm" } } },
      { sessionId: "s2", update: { sessionUpdate: "_custom", anything: [1, { deep: true }] } },
    ];
    for (const params of updates) await client.notify("session/update", params);
    await settle();
    for (const id of ["s1", "s2"]) {
      const expected = updates.filter((u) => u.sessionId === id).reduce((state, u) => reduceSession(state, u.update), emptySessionState());
      expect(sessionStateToJSON(sessions.get(id)!)).toEqual(sessionStateToJSON(expected));
    }
  });
});
